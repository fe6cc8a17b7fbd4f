//! Stage 10: idempotency in one round trip. Stage 5's promise, kept with one
//! statement for a new key: one payment per key, identical replays, 422 for
//! another body, the key rolls back with a failed payment, and a duplicate waits
//! only a bounded time for a request in flight.

use harness::{
    FailedPayment, LaterRetry, Outcome, PoolSize, ReplyKind, Shown, TestDb, TwoKeys, WireRelay,
    failed_payment_retried, fire_while_first_is_held, later_retry, reference_schema,
    slow_first_request, two_keys,
};
use harness::{catalogue, t};
use payment_model::{PaymentError, PaymentRequest, Reply};
use stage10::create_payment;

// What these tests say, in the learner's language
// (tests/locales/*/stage10_one_round_trip.ftl).
catalogue!(static MESSAGES = "locales", "stage10_one_round_trip");

/// `made` payments must be `wanted`, or the test fails saying how many there are.
fn payments_made_by_now(made: i64, wanted: i64) {
    assert!(
        made == wanted,
        "{}",
        t!(
            MESSAGES,
            "payments-made-by-now",
            wanted = wanted,
            payments = made
        )
    );
}

/// A request that had to be answered, or the test fails saying so (`failed`:
/// the message naming the request).
fn answered(result: Result<Reply, PaymentError>, failed: &str) -> Reply {
    result.unwrap_or_else(|e| {
        panic!(
            "{}",
            MESSAGES.say(failed, &[("error", e.to_string().into())])
        )
    })
}

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

    let reply = answered(
        create_payment(&pool, "key-1", &body(1, 100)).await,
        "a-new-key-must-be-paid",
    );

    assert!(
        reply.status == 201,
        "{}",
        t!(MESSAGES, "a-new-key-is-answered-201", got = reply.shown())
    );
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
    assert!(
        (transactions, statements) == (1, 1),
        "{}",
        t!(
            MESSAGES,
            "one-statement-in-one-transaction",
            writes = writes,
            statements = statements,
            transactions = transactions
        )
    );
    assert!(
        writes == 2,
        "{}",
        t!(MESSAGES, "two-row-writes", writes = writes)
    );
    let paid_id = db.count("SELECT id FROM payments").await;
    let expected = Reply::created(
        paid_id,
        &PaymentRequest {
            order_id: 1,
            amount: 100,
        },
    );
    assert!(
        reply == expected,
        "{}",
        t!(
            MESSAGES,
            "the-answer-built-in-sql-is-reply-created",
            expected = expected.shown(),
            got = reply.shown()
        )
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
    drop(pool.acquire().await.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "no-connection-through-the-relay",
                error = e.to_string()
            )
        )
    }));
    relay.take(); // The connection's start-up is not what is looked at.

    let reply = answered(
        create_payment(&pool, "key-1", &body(1, 100)).await,
        "a-new-key-must-be-paid",
    );
    let wire = relay.take();

    assert!(
        reply.status == 201,
        "{}",
        t!(MESSAGES, "a-new-key-is-answered-201", got = reply.shown())
    );
    assert!(
        wire.queries.is_empty() && !wire.saw_transaction_block(),
        "{}",
        t!(
            MESSAGES,
            "a-new-key-is-paid-in-autocommit",
            wire = wire.to_string()
        )
    );
    assert!(
        wire.executes == 1,
        "{}",
        t!(
            MESSAGES,
            "one-statement-for-a-new-key",
            wire = wire.to_string()
        )
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
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "twenty-requests-with-one-key-pay-once",
            outcome = outcome.to_string()
        )
    );
    let first = results[0].as_ref().ok().cloned();
    assert!(
        first.as_ref().map(|r| r.status) == Some(201),
        "{}",
        t!(MESSAGES, "the-first-request-pays", got = results[0].shown())
    );
    // A duplicate waited on the first request's key: either the first committed
    // within the bounded wait (the same 201, replayed), or it did not (409).
    for (i, result) in results.iter().enumerate().skip(1) {
        let replayed = result.as_ref().ok() == first.as_ref();
        let in_flight = ReplyKind::of(result) == ReplyKind::Status(409);
        assert!(
            replayed || in_flight,
            "{}",
            t!(
                MESSAGES,
                "a-duplicate-gets-the-201-replayed-or-409",
                number = i,
                got = result.shown(),
                outcome = outcome.to_string()
            )
        );
    }
    let retry = answered(
        create_payment(&pool, "key-1", &body(1, 100)).await,
        "a-retry-after-the-burst-must-be-answered",
    );
    assert!(
        Some(&retry) == first.as_ref(),
        "{}",
        t!(
            MESSAGES,
            "a-retry-after-the-commit-replays-the-201",
            first = results[0].shown(),
            retry = retry.shown()
        )
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
        "{}",
        MESSAGES.say(
            if slow.duplicates_answered_while_held {
                "duplicates-of-a-slow-request-are-told-409"
            } else {
                "duplicates-of-a-slow-request-are-answered-while-it-is-held"
            },
            &[("count", in_flight.into())]
        )
    );
    assert!(
        unrelated == ReplyKind::Status(201),
        "{}",
        t!(
            MESSAGES,
            "another-key-is-not-starved",
            got = unrelated.said(),
            state = &slow.state
        )
    );
    assert!(
        slow.first.as_ref().map(|r| r.status).ok() == Some(201),
        "{}",
        t!(
            MESSAGES,
            "the-slow-request-completes-once-let-go",
            got = slow.first.shown()
        )
    );
    assert!(
        slow.payments == 2,
        "{}",
        t!(
            MESSAGES,
            "the-slow-request-and-the-other-key-pay",
            payments = slow.payments
        )
    );
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
        "{}",
        t!(MESSAGES, "the-first-request-pays", got = first.shown())
    );
    assert!(
        retry == first,
        "{}",
        t!(
            MESSAGES,
            "a-retry-gets-the-stored-answer-byte-for-byte",
            first = first.shown(),
            retry = retry.shown()
        )
    );
    payments_made_by_now(made, 1);
}
// ANCHOR_END: replay

// ANCHOR: answered_key
#[tokio::test]
async fn a_key_answered_before_is_answered_by_one_statement_that_takes_no_payment_id() {
    let db = TestDb::create(reference_schema()).await;
    let relay = WireRelay::start(db.options()).await;
    let pool = relay.pool(PoolSize::of(1));
    let first = answered(
        create_payment(&pool, "key-1", &body(1, 100)).await,
        "the-first-request-must-pay",
    );
    let paid_id = db.count("SELECT id FROM payments").await;

    // The key is committed: a retry, then the same key with another amount.
    relay.take();
    let retry = answered(
        create_payment(&pool, "key-1", &body(1, 100)).await,
        "the-retry-must-be-answered",
    );
    let retry_wire = relay.take();
    let other = answered(
        create_payment(&pool, "key-1", &body(1, 999)).await,
        "another-amount-must-be-answered",
    );
    let other_wire = relay.take();
    let next = answered(
        create_payment(&pool, "key-2", &body(2, 100)).await,
        "a-new-key-must-be-paid",
    );

    assert!(
        (&retry, &other) == (&first, &Reply::key_reused()),
        "{}",
        t!(
            MESSAGES,
            "a-key-answered-before-replays-or-refuses",
            retry = retry.shown(),
            other = other.shown()
        )
    );
    harness::observe(
        "stage10.answered_key",
        &serde_json::json!({
            "statements": retry_wire.executes,
            "statements_other_body": other_wire.executes,
            "ids_taken": db.count("SELECT last_value FROM payments_id_seq").await - paid_id - 1,
        }),
    );
    for (said, wire) in [
        ("the-retry-is-answered-by-one-statement", &retry_wire),
        ("another-amount-is-answered-by-one-statement", &other_wire),
    ] {
        assert!(
            wire.executes == 1,
            "{}",
            MESSAGES.say(said, &[("wire", wire.to_string().into())])
        );
    }
    assert!(
        next.payment_id() == Some((paid_id + 1).to_string().as_str()),
        "{}",
        t!(
            MESSAGES,
            "a-key-answered-before-takes-no-payment-id",
            got = format!("{:?}", next.payment_id()),
            paid = paid_id
        )
    );
    let made = db.payment_count().await;
    payments_made_by_now(made, 2);
}
// ANCHOR_END: answered_key

#[tokio::test]
async fn the_same_key_with_another_amount_is_refused_with_422() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = answered(
        create_payment(&pool, "key-1", &body(1, 100)).await,
        "the-first-request-must-pay",
    );
    let second = answered(
        create_payment(&pool, "key-1", &body(1, 999)).await,
        "another-amount-must-be-answered",
    );
    harness::observe(
        "stage10.other_body",
        &harness::second_request(&first, &second, db.payment_count().await),
    );
    assert!(
        second == Reply::key_reused(),
        "{}",
        t!(
            MESSAGES,
            "another-body-is-refused-with-422",
            got = second.shown()
        )
    );
    let made = db.payment_count().await;
    payments_made_by_now(made, 1);
}

#[tokio::test]
async fn different_keys_make_different_payments() {
    let db = TestDb::create(reference_schema()).await;
    let TwoKeys {
        a,
        b,
        payments: made,
    } = two_keys(&db, create_payment).await;
    assert!(
        a.payment_id() != b.payment_id(),
        "{}",
        t!(
            MESSAGES,
            "two-keys-are-two-payments",
            id = format!("{:?}", a.payment_id())
        )
    );
    payments_made_by_now(made, 2);
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
        "{}",
        t!(
            MESSAGES,
            "a-failed-payment-fails-the-call",
            got = failed.shown()
        )
    );
    assert!(
        keys_left == 0,
        "{}",
        t!(
            MESSAGES,
            "the-failed-payments-key-is-rolled-back",
            keys = keys_left
        )
    );
    let retry = answered(retry, "the-retry-must-be-answered");
    assert!(
        retry.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-retry-pays-once-payments-work",
            got = retry.shown()
        )
    );
    payments_made_by_now(made, 1);
}
// ANCHOR_END: rollback
