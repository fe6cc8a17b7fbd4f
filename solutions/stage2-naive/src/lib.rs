//! Stage 2: the naive version. It checks whether the key was used, then writes.
//! It is correct when requests come one after another, and wrong as soon as two
//! of them overlap: both check, both find nothing, both pay.

use payment_model::{PaymentError, PaymentRequest, RaceWindow, Reply, raw_body_hash};
use sqlx::PgPool;

// ANCHOR: create_payment
/// Check, then write. `window` is where the tests hold every request between the
/// two, so that the race they lose happens every time.
pub async fn create_payment(
    pool: &PgPool,
    key: &str,
    body: &str,
    window: &RaceWindow,
) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;

    // Check: has a request with this key already been answered?
    let stored: Option<(Option<i32>, Option<serde_json::Value>)> =
        sqlx::query_as("SELECT status, response FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_optional(pool)
            .await?;
    if let Some((status, response)) = stored {
        // Whatever the body says this time: the naive version never compares it.
        return Ok(Reply::from_stored(status, response));
    }

    // Every other request with this key may be right here too: none of them has
    // written anything yet, so every one of them found nothing.
    window.between_check_and_write().await;

    // Write: the payment commits at once, in its own statement...
    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(pool)
            .await?;
    let reply = Reply::created(payment_id, &request);
    // ...and only then the key. Its primary key rejects every duplicate but the
    // first, after their payments are already made: too late to protect anything.
    sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash, status, response) VALUES ($1, $2, $3, $4)",
    )
    .bind(key)
    .bind(raw_body_hash(body))
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(pool)
    .await?;
    Ok(reply)
}
// ANCHOR_END: create_payment
