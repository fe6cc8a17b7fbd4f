//! Known wrong: the key and the payment commit together, and the answer is
//! stored after the COMMIT, in a statement of its own. A server that dies between
//! the two leaves a payment and a key with no answer: every retry is told 409
//! ("in flight") for ever, and the client never learns its payment was made.

use payment_model::{PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::{Acquire, PgPool};

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let reserved = sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(key)
    .bind(raw_body_hash(body))
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if !reserved {
        tx.rollback().await?;
        let (status, response) =
            sqlx::query_as("SELECT status, response FROM idempotency_keys WHERE key = $1")
                .bind(key)
                .fetch_optional(&mut *conn)
                .await?
                .ok_or_else(|| PaymentError::MissingKeyRow(key.to_owned()))?;
        return Ok(Reply::from_stored(status, response));
    }
    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&mut *tx)
            .await?;
    tx.commit().await?;
    // The bug: the payment is committed, its answer not yet stored.
    let reply = Reply::created(payment_id, &request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(reply.status_code())
        .bind(&reply.body)
        .execute(&mut *conn)
        .await?;
    Ok(reply)
}
