//! What the code stage 4 starts from does in stage 4's situation: stage 3's model
//! answer stores a hash of the body with the key and never compares it, so a used
//! key with another amount is answered with the first payment's 201. Its figure is
//! what `cargo workbook stage 4` shows beside the prediction about it.

use harness::{PoolSize, TestDb, reference_schema};
use payment_model::PaymentRequest;

fn body(amount: i32) -> String {
    PaymentRequest {
        order_id: 1,
        amount,
    }
    .to_body()
}

// ANCHOR: stage3_other_body
#[tokio::test]
async fn stage3_answers_the_same_key_with_another_amount_with_the_first_payments_201() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = stage3::create_payment(&pool, "key-1", &body(100))
        .await
        .expect("the first request pays");
    let other = stage3::create_payment(&pool, "key-1", &body(999))
        .await
        .expect("the second request is answered");
    let payments = db.payment_count().await;
    harness::observe(
        "stage4.stage3_other_body",
        &harness::second_request(&first, &other, payments),
    );
    assert_eq!(
        other, first,
        "stage 3 replays the first answer to any request with a used key"
    );
    assert_eq!(
        other.body["amount"], 100,
        "the client asked for 999 and is told that 100 was paid"
    );
    assert_eq!(payments, 1, "nothing more is paid");
}
// ANCHOR_END: stage3_other_body
