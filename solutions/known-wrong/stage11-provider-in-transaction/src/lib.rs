//! Known wrong: the provider is called inside the transaction that reserves the
//! key (stage 8's transaction, with the call between the reservation and the
//! payment row). The provider key is derived, so a retry never charges twice;
//! but every call holds a pooled connection, and the key's row lock, for as long
//! as the provider takes: five slow calls take a pool of five, and a request for
//! any other key waits for a connection until it gives up.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::Acquire;
use stage4::request_hash;
use stage8::{bound_lock_wait, restore_lock_wait, stored_answer};
pub use stage11_answer::*;

// ANCHOR: in_transaction
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut conn = app.pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let previous = bound_lock_wait(&mut tx, &stage8::Config::default()).await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (client_id, key, body_hash) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO NOTHING",
    )
    .bind(client.0)
    .bind(key)
    .bind(&hash)
    .execute(&mut *tx)
    .await;
    match inserted {
        Ok(done) if done.rows_affected() == 1 => {
            restore_lock_wait(&mut tx, &previous).await?;
            // The mistake: the call to the provider, inside the transaction.
            let provider_key = derived_key(client, key, &hash, "charge");
            let Ok(charge_id) = app.provider.charge(&provider_key, request.amount).await else {
                tx.rollback().await?;
                return Ok(Answer::first(provider_failed()));
            };
            let payment_id: i64 = sqlx::query_scalar(
                "INSERT INTO payments (client_id, order_id, amount, charge_id)
                 VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind(client.0)
            .bind(request.order_id)
            .bind(request.amount)
            .bind(&charge_id)
            .fetch_one(&mut *tx)
            .await?;
            let reply = Reply::created(payment_id, &request);
            sqlx::query(
                "UPDATE idempotency_keys
                 SET status = $3, response = $4, recovery_point = 'finished', charge_id = $5
                 WHERE client_id = $1 AND key = $2",
            )
            .bind(client.0)
            .bind(key)
            .bind(reply.status_code())
            .bind(&reply.body)
            .bind(&charge_id)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Answer::first(reply))
        }
        Ok(_) => {
            tx.rollback().await?;
            stored_answer(&mut conn, client, key, &hash).await
        }
        // 55P03 lock_not_available: this client's first request still holds the key.
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => {
            tx.rollback().await?;
            Ok(Answer::first(Reply::in_flight()))
        }
        Err(e) => Err(e.into()),
    }
}
// ANCHOR_END: in_transaction
