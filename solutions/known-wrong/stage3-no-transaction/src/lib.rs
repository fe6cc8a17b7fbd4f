//! Known wrong: the reservation, the payment and the answer are three separate
//! commits. A duplicate that arrives between them finds a key with no answer yet;
//! a payment that fails leaves its key reserved forever, so every retry is refused.

use payment_model::{PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::PgPool;

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let reserved = sqlx::query("INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
        .bind(key)
        .bind(raw_body_hash(body))
        .execute(pool)
        .await?
        .rows_affected()
        == 1;
    if !reserved {
        let (status, response) =
            sqlx::query_as("SELECT status, response FROM idempotency_keys WHERE key = $1")
                .bind(key)
                .fetch_one(pool)
                .await?;
        return Ok(Reply::from_stored(status, response));
    }
    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(pool)
            .await?;
    let reply = Reply::created(payment_id, &request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(reply.status_code())
        .bind(&reply.body)
        .execute(pool)
        .await?;
    Ok(reply)
}
