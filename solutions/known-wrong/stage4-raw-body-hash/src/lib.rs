//! Known wrong: stage 4's answer, comparing a hash of the raw body. The same
//! request with its fields in another order, or other spacing, is refused with
//! 422: a client that re-serialises its retry is told its own payment is someone
//! else's.

use payment_model::{InvalidBody, PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::{Acquire, PgPool};
use stage4_answer::{pay_and_record, reserve, stored_reply};

pub fn request_hash(body: &str) -> Result<String, InvalidBody> {
    Ok(raw_body_hash(body))
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
