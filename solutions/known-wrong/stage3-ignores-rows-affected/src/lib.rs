//! Known wrong: the key is reserved in the transaction, but the code never asks
//! whether the INSERT inserted anything. Each duplicate waits for the first
//! request, does nothing, and then pays anyway.

use payment_model::{PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::PgPool;

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
        .bind(key)
        .bind(raw_body_hash(body))
        .execute(&mut *tx)
        .await?;
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
