//! Stage 3: the unique key in the same transaction. Twenty concurrent requests
//! with one key: one payment, twenty identical 201s; and the key and the payment
//! commit, or vanish, together.

use harness::{Outcome, PoolSize, ReplyKind, TestDb, fire_while_first_is_held, reference_schema};
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
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the first request pays");
    let retry = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the retry is answered");
    assert!(
        first.status == 201,
        "the first request should be answered 201: it was answered {}",
        first.status
    );
    assert_eq!(
        retry, first,
        "a retry gets the stored status and body, byte for byte"
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
    let pool = db.pool(PoolSize::of(2));
    let a = create_payment(&pool, "key-a", &body(1, 100))
        .await
        .expect("key-a pays");
    let b = create_payment(&pool, "key-b", &body(1, 100))
        .await
        .expect("key-b pays");
    assert_ne!(
        a.payment_id(),
        b.payment_id(),
        "two keys are two operations"
    );
    let made = db.payment_count().await;
    assert!(
        made == 2,
        "2 payments should have been made by now: there are {made}"
    );
}

// ANCHOR: rollback
#[tokio::test]
async fn a_failed_payment_releases_its_key_so_a_retry_succeeds() {
    let db = TestDb::create(reference_schema()).await;
    // A real failure inside the transaction, after the key was reserved: the
    // database refuses payments for order 13 until the trigger is dropped.
    db.execute(
        "CREATE FUNCTION refuse_order_13() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.order_id = 13 THEN RAISE EXCEPTION 'payments for order 13 are down'; END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_order_13 BEFORE INSERT ON payments
           FOR EACH ROW EXECUTE FUNCTION refuse_order_13();",
    )
    .await;
    let pool = db.pool(PoolSize::of(2));

    let failed = create_payment(&pool, "key-13", &body(13, 100)).await;
    assert!(
        failed.is_err(),
        "the payment INSERT fails, so create_payment fails: {failed:?}"
    );
    let keys = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert_eq!(
        keys, 0,
        "the key was reserved in the same transaction as the failed payment, so it must be \
         rolled back with it; a key left behind would refuse every retry"
    );

    db.execute("DROP TRIGGER refuse_order_13 ON payments").await;
    let retry = create_payment(&pool, "key-13", &body(13, 100))
        .await
        .expect("the retry is answered");
    assert_eq!(
        retry.status, 201,
        "once payments work again, the retry with the same key pays: {retry:?}"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: rollback
