//! Known wrong: stage 11's model answer, with a `finish` that inserts a payment
//! row for whatever charge it is given (the model answer before issue 34). A key
//! used again with the same body once the reaper deleted it gets the provider's
//! replay of the first charge: the INSERT fails on `payments.charge_id`'s
//! UNIQUE at every retry, and the key stays `charged` forever.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, PgPool};

// ANCHOR: finish_inserts_every_charge
pub async fn finish(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    hash: &str,
    lease: Lease,
    request: &PaymentRequest,
    charge_id: &str,
) -> Result<Answer, PaymentError> {
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let ours = sqlx::query(
        "UPDATE idempotency_keys SET recovery_point = 'finished', finished_at = now()
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point = 'charged'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .execute(&mut *tx)
    .await?;
    if ours.rows_affected() == 0 {
        tx.rollback().await?;
        return stage8::stored_answer(&mut conn, client, key, hash).await;
    }
    // The mistake: a charge that already has its payment row is not looked for.
    let payment_id: i64 = sqlx::query_scalar(
        "INSERT INTO payments (client_id, order_id, amount, charge_id)
         VALUES ($1, $2, $3, $4) RETURNING id",
    )
    .bind(client.0)
    .bind(request.order_id)
    .bind(request.amount)
    .bind(charge_id)
    .fetch_one(&mut *tx)
    .await?;
    let reply = Reply::created(payment_id, request);
    sqlx::query(
        "UPDATE idempotency_keys SET status = $4, response = $5
         WHERE client_id = $1 AND key = $2 AND lease = $3",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Answer::first(reply))
}
// ANCHOR_END: finish_inserts_every_charge
