//! Stage 3: the unique key in the same transaction. Twenty concurrent requests
//! with one key: one payment, twenty identical 201s; and the key and the payment
//! commit, or vanish, together.

use harness::{
    FailedPayment, LaterRetry, Outcome, PoolSize, ReplyKind, TestDb, TwoKeys,
    failed_payment_retried, fire_while_first_is_held, later_retry, reference_schema, two_keys,
};
use payment_model::PaymentRequest;
use stage3::create_payment;

const REQUESTS: usize = 20;

fn body(order_id: i64, amount: i32) -> String {
    PaymentRequest { order_id, amount }.to_body()
}

// ANCHOR: burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_requests_create_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;

    // The first request is held inside its payment until the 19 others have
    // arrived: they certainly come while the key is reserved and unanswered.
    let results = fire_while_first_is_held(&db, 1, REQUESTS, |_| {
        let pool = pool.clone();
        async move { create_payment(&pool, "key-1", &body(1, 100)).await }
    })
    .await;

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record("stage3.burst");
    println!("{}", outcome.table());
    assert_eq!(
        outcome.payments, 1,
        "20 requests with one key must pay once: {outcome}"
    );
    assert_eq!(
        outcome.count(ReplyKind::Status(201)),
        REQUESTS,
        "every caller gets the 201, the first one and the 19 that waited for it: {outcome}"
    );
    assert_eq!(
        outcome.distinct_bodies, 1,
        "all 20 bodies are the same: the same payment id, replayed: {outcome}"
    );
}
// ANCHOR_END: burst

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
        "a retry gets the stored status and body, byte for byte"
    );
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
    // The database refuses the payment of `key-13` inside its transaction, after
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
        "the key was reserved in the same transaction as the failed payment, so it must be \
         rolled back with it; a key left behind would refuse every retry"
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

// ANCHOR: answer_in_the_transaction
/// The server dies after the payment and before its answer is stored: here the
/// database refuses to store the answer of `key-13` (a trigger raises an error),
/// which is the same cut. Stored in the paying transaction, the answer fails with
/// the payment: nothing stays behind, and the retry pays. Stored after the COMMIT,
/// it leaves a payment and a key with no answer, which says "in flight" for ever.
#[tokio::test]
async fn a_failure_before_the_answer_is_stored_leaves_neither_payment_nor_key() {
    let db = TestDb::create(reference_schema()).await;
    db.execute(
        "CREATE FUNCTION refuse_answer_13() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.key = 'key-13' AND NEW.status IS NOT NULL THEN
             RAISE EXCEPTION 'the server died before it stored the answer of key-13';
           END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_answer_13 BEFORE INSERT OR UPDATE ON idempotency_keys
           FOR EACH ROW EXECUTE FUNCTION refuse_answer_13();",
    )
    .await;
    let pool = db.pool(PoolSize::of(2));

    let failed = create_payment(&pool, "key-13", &body(13, 100)).await;
    let paid = db.payment_count().await;
    let keys_left = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert!(
        failed.is_err(),
        "storing the answer fails, so create_payment fails: {failed:?}"
    );
    assert!(
        (paid, keys_left) == (0, 0),
        "the request died before its answer was stored, yet {paid} payment(s) and {keys_left} \
         key row(s) were left: the payment and its answer must commit in ONE transaction. A \
         payment committed before its answer leaves a key that answers 409 to every retry, for \
         ever (run `cargo workbook hint 3`)"
    );

    db.execute("DROP TRIGGER refuse_answer_13 ON idempotency_keys")
        .await;
    let retry = create_payment(&pool, "key-13", &body(13, 100))
        .await
        .expect("the retry is answered");
    assert_eq!(
        retry.status, 201,
        "once the server stores answers again, the retry pays: {retry:?}"
    );
    let again = create_payment(&pool, "key-13", &body(13, 100))
        .await
        .expect("a later retry is answered");
    assert_eq!(again, retry, "and a later retry replays its 201");
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: answer_in_the_transaction
