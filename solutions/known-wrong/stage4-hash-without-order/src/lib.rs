//! Known wrong: stage 4's answer with a hash that leaves `orderId` out, as if the
//! amount were all that made a payment. Key K used for order 1 and then sent for
//! order 2 with the same amount replays order 1's 201: the client is told order 2
//! was paid.

use payment_model::{InvalidBody, PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::{Acquire, PgPool};
use stage4_answer::{pay_and_record, reserve, stored_reply};

pub fn request_hash(body: &str) -> Result<String, InvalidBody> {
    let mut value: Value = serde_json::from_str(body).map_err(InvalidBody::NotAPayment)?;
    // The bug: the order is not part of what the key promises.
    if let Some(fields) = value.as_object_mut() {
        fields.remove("orderId");
    }
    stage4_answer::request_hash(&value.to_string())
}

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    if !reserve(&mut tx, key, &hash).await? {
        tx.rollback().await?;
        return stored_reply(&mut conn, key, &hash).await;
    }
    let reply = pay_and_record(&mut tx, key, &request).await?;
    tx.commit().await?;
    Ok(reply)
}
