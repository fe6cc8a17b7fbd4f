//! What the shapes this stage replaces do, each run where `cargo workbook stage 10`
//! reads its figure: stage 5's answer (the code the exercise starts with) counted on
//! the wire for a retry, and the trap of writing the answer with a sibling `UPDATE`.

use harness::{LaterRetry, PoolSize, TestDb, WireRelay, later_retry, reference_schema};
use payment_model::PaymentRequest;

fn body(order_id: i64, amount: i32) -> String {
    PaymentRequest { order_id, amount }.to_body()
}

// ANCHOR: stage5_retry
#[tokio::test]
async fn stage5_sends_seven_statements_to_answer_a_retry() {
    let db = TestDb::create(reference_schema()).await;
    let relay = WireRelay::start(db.options()).await;
    let pool = relay.pool(PoolSize::of(1));
    let first = stage5::create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the first request pays");
    // A first retry prepares the statements the retry path uses on this connection:
    // the second one is the steady state, as on a warm pool.
    stage5::create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the retry is answered");
    relay.take();
    let retry = stage5::create_payment(&pool, "key-1", &body(1, 100))
        .await
        .expect("the retry is answered");
    let wire = relay.take();
    let statements = wire.executes + wire.queries.len();
    harness::observe(
        "stage10.stage5_retry",
        &serde_json::json!({ "statements": statements }),
    );
    assert_eq!(retry, first, "the retry replays the first answer");
    assert_eq!(
        (wire.queries.as_slice(), wire.executes),
        (["BEGIN".to_owned(), "ROLLBACK".to_owned()].as_slice(), 5),
        "BEGIN, the lock_timeout read, set and put back around an INSERT that does \
         nothing, ROLLBACK, and the SELECT of the answer. On the wire: {wire}"
    );
}
// ANCHOR_END: stage5_retry

// ANCHOR: final_update
#[tokio::test]
async fn a_sibling_update_leaves_the_key_without_its_answer_and_every_retry_gets_409() {
    let db = TestDb::create(reference_schema()).await;
    let LaterRetry {
        first,
        retry,
        payments,
    } = later_retry(&db, final_update::create_payment).await;
    let got = if retry == first {
        "replayed"
    } else if retry.status == 409 {
        "409"
    } else if payments > 1 {
        "paid again"
    } else {
        "other"
    };
    harness::observe(
        "stage10.final_update_retry",
        &serde_json::json!({ "retry": got, "payments": payments }),
    );
    assert_eq!(first.status, 201, "the first request pays: {first:?}");
    assert_eq!(
        (retry.status, payments),
        (409, 1),
        "the UPDATE could not see the key row its sibling inserted: the key is committed \
         without its answer, and its retry is told 409, in flight: {retry:?}"
    );
    let unanswered = db
        .count("SELECT count(*) FROM idempotency_keys WHERE status IS NULL AND response IS NULL")
        .await;
    assert_eq!(unanswered, 1, "the key row stays (NULL, NULL)");
}
// ANCHOR_END: final_update
