//! Known wrong: compares the hash of the raw body. The same request with its
//! fields in another order, or other spacing, is refused with 422: a client that
//! re-serialises its retry is told its own payment is someone else's.

use payment_model::{InvalidBody, PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::{Acquire, PgPool};

pub fn request_hash(body: &str) -> Result<String, InvalidBody> {
    Ok(raw_body_hash(body))
}

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let reserved = sqlx::query("INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
        .bind(key)
        .bind(&hash)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        == 1;
    if !reserved {
        tx.rollback().await?;
        let (stored_hash, status, response): (String, Option<i32>, Option<serde_json::Value>) =
            sqlx::query_as(
                "SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1",
            )
            .bind(key)
            .fetch_one(&mut *conn)
            .await?;
        if stored_hash != hash {
            return Ok(Reply::key_reused());
        }
        return Ok(Reply::from_stored(status, response));
    }
    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&mut *tx)
            .await?;
    let reply = Reply::created(payment_id, &request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(reply.status_code())
        .bind(&reply.body)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(reply)
}
