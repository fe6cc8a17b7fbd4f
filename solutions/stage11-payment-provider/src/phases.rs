//! `create_payment`'s three phases, each of which commits, around the two pieces
//! the learner writes (`payment.rs`: the reservation and the provider's key).
//! Given to the learner as it is (the exercise compiles this file with `#[path]`).

use payment_model::{PaymentError, PaymentRequest, Reply};
use provider_client::{App, ProviderError, payment_refused, provider_failed};
use sqlx::{Acquire, PgPool};
use stage4::request_hash;
use stage8::{Answer, ClientId, stored_answer};

use crate::{derived_key, reserve};

/// How far the request that holds a key got: the phase a retry resumes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecoveryPoint {
    /// Reserved; the provider may or may not have charged the card.
    Started,
    /// The provider confirmed this charge; the payment row is not written yet.
    Charged { charge_id: String },
}

/// The fencing token of one reservation: the key's `lease` number when this
/// request reserved it or took it over. A takeover bumps it, so a request that
/// was taken over holds a number the key no longer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease(pub i64);

/// A key this request holds: its lease, and where to resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    pub lease: Lease,
    pub point: RecoveryPoint,
}

// ANCHOR: create_payment
/// Creates the payment for `body` once per `(client, key)`, and charges the card
/// once, even when an earlier request with this key died half-way.
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    // Phase 1: reserve the key (new, or taken over from a request that died).
    let Some(Reserved { lease, point }) = reserve(app, client, key, &hash).await? else {
        return answer_from_the_key(&app.pool, client, key, &hash).await;
    };
    // Phase 2: the charge, unless a request before us recorded it already.
    let charge_id = match point {
        RecoveryPoint::Charged { charge_id } => charge_id,
        RecoveryPoint::Started => {
            let provider_key = derived_key(client, key, "charge");
            match app.provider.charge(&provider_key, request.amount).await {
                Ok(charge_id) => {
                    if !record_charge(&app.pool, client, key, lease, &charge_id).await? {
                        // Taken over while we waited: the key is its request's now.
                        return answer_from_the_key(&app.pool, client, key, &hash).await;
                    }
                    charge_id
                }
                Err(ProviderError::Refused { status, .. }) => {
                    // The provider keeps this refusal for the key: it is our answer too.
                    let refused = payment_refused(status);
                    return refuse(&app.pool, client, key, &hash, lease, refused).await;
                }
                Err(e) => {
                    eprintln!("POST /payments: the provider did not confirm the charge: {e}");
                    // Whether or not the card was charged, the client's retry may
                    // resume at once: the same provider key cannot charge twice.
                    release(&app.pool, client, key, lease).await?;
                    let reply = match e {
                        ProviderError::InFlight(_) => Reply::in_flight(),
                        _ => provider_failed(),
                    };
                    return Ok(Answer::first(reply));
                }
            }
        }
    };
    // Phase 3: the payment row and the answer.
    finish(&app.pool, client, key, &hash, lease, &request, &charge_id).await
}
// ANCHOR_END: create_payment

/// The answer of a key this request does not hold: a replay when it is finished,
/// 422 for another body, 409 while another request holds it.
async fn answer_from_the_key(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Answer, PaymentError> {
    let mut conn = pool.acquire().await?;
    stored_answer(&mut conn, client, key, hash).await
}

// ANCHOR: record_charge
/// Phase 2's record, one statement: the provider confirmed `charge_id`. A retry
/// from here on never calls the provider again. False when `lease` is no longer
/// the key's: another request took it over, and this one must write nothing.
pub async fn record_charge(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
    charge_id: &str,
) -> Result<bool, PaymentError> {
    let recorded = sqlx::query(
        "UPDATE idempotency_keys SET recovery_point = 'charged', charge_id = $4
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point = 'started'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .bind(charge_id)
    .execute(pool)
    .await?;
    Ok(recorded.rows_affected() == 1)
}
// ANCHOR_END: record_charge

// ANCHOR: release
/// Ends this request's lease on an unfinished key, so that the client's retry
/// takes the key over at once instead of waiting for the lease to expire. Only
/// while the lease is still ours: a request that was taken over must not end
/// the lease of the request that took the key.
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
) -> Result<(), PaymentError> {
    sqlx::query(
        "UPDATE idempotency_keys SET locked_until = now()
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point <> 'finished'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .execute(pool)
    .await?;
    Ok(())
}
// ANCHOR_END: release

// ANCHOR: refuse
/// Phase 2's other end, one statement: the provider refused the charge for good
/// (it replays the refusal to any retry with the provider key), so `reply` is
/// the key's final answer, stored and replayed like a payment's. Nothing was
/// charged, and no payment row is written.
pub async fn refuse(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    hash: &str,
    lease: Lease,
    reply: Reply,
) -> Result<Answer, PaymentError> {
    let stored = sqlx::query(
        "UPDATE idempotency_keys SET recovery_point = 'finished', status = $4, response = $5
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point = 'started'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(pool)
    .await?;
    if stored.rows_affected() == 0 {
        return answer_from_the_key(pool, client, key, hash).await;
    }
    Ok(Answer::first(reply))
}
// ANCHOR_END: refuse

// ANCHOR: finish
/// Phase 3, one transaction: the payment row for the charge, and the answer.
///
/// The first statement moves the key from `charged` to `finished`, and only
/// under this request's lease; a second request finishing the same key waits on
/// that row, then finds it finished (or leased to another) and answers from the
/// stored row instead of writing a second payment. A stored answer never
/// changes.
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
        "UPDATE idempotency_keys SET recovery_point = 'finished'
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point = 'charged'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .execute(&mut *tx)
    .await?;
    if ours.rows_affected() == 0 {
        tx.rollback().await?;
        return stored_answer(&mut conn, client, key, hash).await;
    }
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
// ANCHOR_END: finish
