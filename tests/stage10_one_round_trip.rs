//! Stage 10: idempotency in one round trip. Stage 5's promise, kept with one
//! statement for a new key: one payment per key, identical replays, 422 for
//! another body, the key rolls back with a failed payment, and a duplicate waits
//! only a bounded time for a request in flight.

use harness::{
    FailedPayment, LaterRetry, Outcome, PoolSize, ReplyKind, TestDb, TwoKeys, WireRelay,
    failed_payment_retried, fire_while_first_is_held, later_retry, reference_schema,
    slow_first_request, two_keys,
};
use payment_model::{PaymentRequest, Reply};
use stage10::create_payment;

const REQUESTS: usize = 20;

fn body(order_id: i64, amount: i32) -> String {
    PaymentRequest { order_id, amount }.to_body()
}

// ANCHOR: one_statement
#[tokio::test]
async fn a_new_key_is_paid_and_answered_by_one_statement() {
    let db = TestDb::create(reference_schema()).await;
    // Each row written records the transaction and the statement that wrote it.
    db.execute(
        "CREATE TABLE writes_seen (
           tbl TEXT NOT NULL, xid BIGINT NOT NULL, statement_started TIMESTAMPTZ NOT NULL);
         CREATE FUNCTION record_write() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO writes_seen
             VALUES (TG_TABLE_NAME, txid_current(), statement_timestamp());
           RETURN NULL;
         END $$;
         CREATE TRIGGER record_key AFTER INSERT OR UPDATE ON idempotency_keys
           FOR EACH ROW EXECUTE FUNCTION record_write();
         CREATE TRIGGER record_payment AFTER INSERT OR UPDATE ON payments
           FOR EACH ROW EXECUTE FUNCTION record_write();",
    )
    .await;
    let pool = db.pool(PoolSize::of(2));

    let reply = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("a new key pays");

    assert_eq!(reply.status, 201, "{reply:?}");
    let transactions = db
        .count("SELECT count(DISTINCT xid) FROM writes_seen")
        .await;
    let statements = db
        .count("SELECT count(DISTINCT statement_started) FROM writes_seen")
        .await;
    let writes = db.count("SELECT count(*) FROM writes_seen").await;
    harness::observe(
        "stage10.new_key",
        &serde_json::json!({ "writes": writes, "statements": statements, "transactions": transactions }),
    );
    assert_eq!(
        (transactions, statements),
        (1, 1),
        "the key, the payment and the answer must be written by ONE statement in ONE \
         transaction; saw {writes} row write(s) from {statements} statement(s) in \
         {transactions} transaction(s). Reserve the key, pay and store the answer in one \
         data-modifying CTE. Run `cargo workbook hint 10`."
    );
    assert_eq!(
        writes, 2,
        "two row writes: the key row inserted complete (status and response in the same \
         INSERT) and the payment; an UPDATE of the key row is a third write"
    );
    let paid_id = db.count("SELECT id FROM payments").await;
    assert_eq!(
        reply,
        Reply::created(
            paid_id,
            &PaymentRequest {
                order_id: 1,
                amount: 100
            }
        ),
        "the answer built in SQL is the one `Reply::created` builds, for the payment \
         really made"
    );
}
// ANCHOR_END: one_statement

// ANCHOR: autocommit
#[tokio::test]
async fn a_new_key_is_one_statement_sent_outside_any_transaction_block() {
    let db = TestDb::create(reference_schema()).await;
    // Every message between the pool and PostgreSQL goes through the relay, which
    // reads them: the statements sent, and whether a transaction block was open
    // each time the server said it was ready for the next command.
    let relay = WireRelay::start(db.options()).await;
    let pool = relay.pool(PoolSize::of(1));
    drop(
        pool.acquire()
            .await
            .expect("a connection through the relay"),
    );
    relay.take(); // The connection's start-up is not what is looked at.

    let reply = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("a new key pays");
    let wire = relay.take();

    assert_eq!(reply.status, 201, "{reply:?}");
    assert!(
        wire.queries.is_empty() && !wire.saw_transaction_block(),
        "a new key must be paid in autocommit: no BEGIN, no COMMIT, never a transaction block \
         open. On the wire: {wire}. Send the one statement on the pool itself \
         (`.fetch_optional(pool)`), not inside `pool.begin()`: a single statement is its own \
         transaction. Run `cargo workbook hint 10`."
    );
    assert_eq!(
        wire.executes, 1,
        "one statement executed for a new key. On the wire: {wire}"
    );
}
// ANCHOR_END: autocommit

// ANCHOR: burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_requests_create_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;

    // The first request is held inside its one statement until the 19 others have
    // arrived: they certainly come while the key is reserved and uncommitted.
    let results = fire_while_first_is_held(&db, 1, REQUESTS, |_| {
        let pool = pool.clone();
        async move { create_payment(&pool, "key-1", &body(1, 100)).await }
    })
    .await;

    let outcome = Outcome::new(&results, db.payment_count().await);
    // How many ids the payments' sequence gave out for the burst (its first call of
    // `nextval` is 1): a figure to look at, not a requirement.
    let ids_given_out = db
        .count("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM payments_id_seq")
        .await;
    outcome.record_with(
        "stage10.burst",
        serde_json::json!({ "ids_given_out": ids_given_out }),
    );
    println!("{}", outcome.table());
    assert_eq!(
        outcome.payments, 1,
        "20 requests with one key must pay once: {outcome}"
    );
    let first = results[0].as_ref().ok().cloned();
    assert_eq!(
        first.as_ref().map(|r| r.status),
        Some(201),
        "the first request pays: {:?}",
        results[0]
    );
    // A duplicate waited on the first request's key: either the first committed
    // within the bounded wait (the same 201, replayed), or it did not (409).
    for (i, result) in results.iter().enumerate().skip(1) {
        let replayed = result.as_ref().ok() == first.as_ref();
        let in_flight = ReplyKind::of(result) == ReplyKind::Status(409);
        assert!(
            replayed || in_flight,
            "duplicate {i} must get the first request's 201, replayed, or 409 (still in \
             flight); it got {result:?}. When the statement returns no row, read the stored \
             answer in a new statement: its snapshot cannot show the row committed while \
             it waited. ({outcome})"
        );
    }
    let retry = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("a retry after the burst is answered");
    assert_eq!(
        Some(&retry),
        first.as_ref(),
        "once the first request committed, a retry replays its 201"
    );
}
// ANCHOR_END: burst

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn duplicates_of_a_slow_request_are_told_409_within_the_bound() {
    let db = TestDb::create(reference_schema()).await;
    let size = PoolSize::of(5).with_acquire_timeout(std::time::Duration::from_secs(3));
    let pool = db.pool(size);

    let slow = slow_first_request(&db, &pool, |key, body| {
        let pool = pool.clone();
        async move { create_payment(&pool, key, &body).await }
    })
    .await;

    let in_flight = slow
        .duplicates
        .iter()
        .filter(|r| ReplyKind::of(r) == ReplyKind::Status(409))
        .count();
    let unrelated = ReplyKind::of(&slow.unrelated);
    harness::observe(
        "stage10.slow_first_request",
        &serde_json::json!({ "duplicates_409": in_flight, "unrelated": unrelated.to_string() }),
    );
    assert!(
        slow.duplicates_answered_while_held && in_flight == 19,
        "while the first request was still in flight, each of its 19 duplicates should be told \
         409 (retry later) within the bounded wait; got {in_flight} × 409 (answered in time: {}). \
         Bound the reserving INSERT's wait with `set_config('lock_timeout', ..., true)` inside \
         the statement, and answer 409 on SQLSTATE 55P03. Run `cargo workbook hint 10`.",
        slow.duplicates_answered_while_held
    );
    assert_eq!(
        unrelated,
        ReplyKind::Status(201),
        "a request for another key is not starved: {}",
        slow.state
    );
    assert_eq!(
        slow.first.as_ref().map(|r| r.status).ok(),
        Some(201),
        "the slow request itself completes once let go, under the database's own \
         lock_timeout (put it back before the payment): {:?}",
        slow.first
    );
    assert_eq!(slow.payments, 2, "the slow request and the unrelated one");
}

// ANCHOR: replay
#[tokio::test]
async fn a_later_retry_returns_the_same_body() {
    let db = TestDb::create(reference_schema()).await;
    let LaterRetry {
        first,
        retry,
        payments: made,
    } = later_retry(&db, create_payment).await;
    assert!(
        first.status == 201,
        "the first request should be answered 201: it was answered {}",
        first.status
    );
    assert_eq!(
        retry, first,
        "a retry gets the stored status and body, byte for byte. A 409 here means the key \
         row was committed without its answer: in one statement, an UPDATE cannot see the \
         row a sibling CTE inserted, so insert the key row complete. Run `cargo workbook hint 10`."
    );
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: replay

// ANCHOR: answered_key
#[tokio::test]
async fn a_key_answered_before_is_answered_by_one_statement_that_takes_no_payment_id() {
    let db = TestDb::create(reference_schema()).await;
    let relay = WireRelay::start(db.options()).await;
    let pool = relay.pool(PoolSize::of(1));
    let first = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the first request pays");
    let paid_id = db.count("SELECT id FROM payments").await;

    // The key is committed: a retry, then the same key with another amount.
    relay.take();
    let retry = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the retry is answered");
    let retry_wire = relay.take();
    let other = create_payment(&pool, "key-1", &body(1, 999))
        .await
        .expect("the other amount is answered");
    let other_wire = relay.take();
    let next = create_payment(&pool, "key-2", &body(2, 100))
        .await
        .expect("a new key pays");

    assert_eq!(
        (&retry, &other),
        (&first, &Reply::key_reused()),
        "a key answered before: the retry replays the 201, another amount gets 422"
    );
    harness::observe(
        "stage10.answered_key",
        &serde_json::json!({
            "statements": retry_wire.executes,
            "statements_other_body": other_wire.executes,
            "ids_taken": db.count("SELECT last_value FROM payments_id_seq").await - paid_id - 1,
        }),
    );
    for (what, wire) in [("the retry", &retry_wire), ("another amount", &other_wire)] {
        assert_eq!(
            wire.executes, 1,
            "{what} of a key committed before the request began must be answered by the \
             statement itself, from the key row its snapshot shows: one statement, not a \
             second one to read the answer. On the wire: {wire}. Run `cargo workbook hint 10`."
        );
    }
    assert_eq!(
        next.payment_id(),
        Some((paid_id + 1).to_string().as_str()),
        "the retry and the 422 took ids from the payments' sequence: the next payment got \
         {:?} after {paid_id}. For a key already answered, the statement must not reach \
         `nextval`: nothing is paid, so no id is spent. Run `cargo workbook hint 10`.",
        next.payment_id()
    );
    assert_eq!(db.payment_count().await, 2, "key-1's payment and key-2's");
}
// ANCHOR_END: answered_key

#[tokio::test]
async fn the_same_key_with_another_amount_is_refused_with_422() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the first request pays");
    let second = create_payment(&pool, "key-1", &body(1, 999))
        .await
        .expect("the second request is answered");
    harness::observe(
        "stage10.other_body",
        &harness::second_request(&first, &second, db.payment_count().await),
    );
    assert_eq!(
        second,
        Reply::key_reused(),
        "the key was used with another body: 422, and nothing paid"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}

#[tokio::test]
async fn different_keys_make_different_payments() {
    let db = TestDb::create(reference_schema()).await;
    let TwoKeys {
        a,
        b,
        payments: made,
    } = two_keys(&db, create_payment).await;
    assert_ne!(
        a.payment_id(),
        b.payment_id(),
        "two keys are two operations"
    );
    assert!(
        made == 2,
        "2 payments should have been made by now: there are {made}"
    );
}

// ANCHOR: rollback
#[tokio::test]
async fn a_failed_payment_releases_its_key_so_a_retry_succeeds() {
    let db = TestDb::create(reference_schema()).await;
    // The database refuses the payment of `key-13` inside the statement, after
    // the key was reserved; then it accepts payments again, and the request is
    // retried.
    let FailedPayment {
        failed,
        keys_left,
        retry,
        payments: made,
    } = failed_payment_retried(&db, create_payment).await;
    assert!(
        failed.is_err(),
        "the payment INSERT fails, so create_payment fails: {failed:?}"
    );
    assert_eq!(
        keys_left, 0,
        "one statement is one transaction: the key it reserved is rolled back with the \
         failed payment; a key left behind would refuse every retry"
    );
    let retry = retry.expect("the retry is answered");
    assert_eq!(
        retry.status, 201,
        "once payments work again, the retry with the same key pays: {retry:?}"
    );
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: rollback
