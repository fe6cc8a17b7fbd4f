//! The steps `create_payment` (`phases.rs`) is made of, after the learner's
//! `reserve`: each one statement, or one short transaction, and each write under
//! the lease the reservation returned. Given to the learner as it is.

use payment_model::{PaymentError, PaymentRequest, Reply};
use provider_client::{App, Config, payment_pending};
use sqlx::{Acquire, PgConnection, PgPool};
use stage8::{Answer, ClientId, stored_answer};

use crate::{Lease, Reserved, reserve};

/// What phase 1 ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The key is this request's to work on.
    Ours(Reserved),
    /// The key is not ours: its answer for this request (a replay, 409, 422).
    Answered(Answer),
}

/// How many times phase 1 reserves a key it found reaped between its
/// reservation and its read: once more is enough, unless keys are kept for no
/// time at all.
const CLAIM_ATTEMPTS: usize = 3;

// ANCHOR: claim
/// Phase 1: the key is ours (new, or taken over), or the answer it holds.
///
/// A finished key can be reaped between our reservation (which found it) and
/// our read of its answer. It is then no key at all: like Stripe, which treats
/// a key used again after it was pruned as a new request, we reserve it anew.
pub async fn claim(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Claim, PaymentError> {
    for _ in 0..CLAIM_ATTEMPTS {
        if let Some(reserved) = reserve(app, client, key, hash).await? {
            return Ok(Claim::Ours(reserved));
        }
        match answer_from_the_key(app, client, key, hash).await {
            Err(PaymentError::MissingKeyRow(_)) => continue,
            answer => return answer.map(Claim::Answered),
        }
    }
    Err(PaymentError::MissingKeyRow(key.to_owned()))
}
// ANCHOR_END: claim

// ANCHOR: answer_from_the_key
/// The answer of a key this request does not hold: a replay when it is finished
/// (or set aside), 422 for another body, 409 while another request holds it.
/// A `started` key no request holds, first used too long ago to ask the
/// provider again, is set aside for reconciliation here, and answered so.
pub async fn answer_from_the_key(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Answer, PaymentError> {
    let mut conn = app.pool.acquire().await?;
    let answer = stored_answer(&mut conn, client, key, hash).await?;
    if answer.reply == Reply::in_flight()
        && set_aside_forgotten(&mut conn, client, key, &app.config).await?
    {
        return Ok(Answer::first(payment_pending()));
    }
    Ok(answer)
}
// ANCHOR_END: answer_from_the_key

// ANCHOR: set_aside_forgotten
/// One statement: a `started` key whose lease ran out, first used longer ago
/// than `config.resume_window`, is set aside (`unknown`, with the pending
/// answer): the provider may have forgotten its key, and asking it again could
/// charge twice. False when the key is not such a key.
async fn set_aside_forgotten(
    conn: &mut PgConnection,
    client: ClientId,
    key: &str,
    config: &Config,
) -> Result<bool, PaymentError> {
    let reply = payment_pending();
    let set_aside = sqlx::query(
        "UPDATE idempotency_keys SET recovery_point = 'unknown', status = $3, response = $4
         WHERE client_id = $1 AND key = $2 AND recovery_point = 'started'
           AND locked_until <= now() AND created_at <= now() - $5::interval",
    )
    .bind(client.0)
    .bind(key)
    .bind(reply.status_code())
    .bind(&reply.body)
    .bind(config.resume_window_interval())
    .execute(conn)
    .await?;
    Ok(set_aside.rows_affected() == 1)
}
// ANCHOR_END: set_aside_forgotten

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
/// the lease of the request that took the key. False when it was not ours any
/// more: the request then answers from the key, not for it.
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
) -> Result<bool, PaymentError> {
    let released = sqlx::query(
        "UPDATE idempotency_keys SET locked_until = now()
         WHERE client_id = $1 AND key = $2 AND lease = $3
           AND recovery_point IN ('started', 'charged')",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .execute(pool)
    .await?;
    Ok(released.rows_affected() == 1)
}
// ANCHOR_END: release

// ANCHOR: refuse
/// Phase 2's other end, one statement: the provider refused the charge for good
/// (it replays the refusal to any retry with the provider key), so `reply` is
/// the key's final answer, stored and replayed like a payment's. Nothing was
/// charged, and no payment row is written. False when the lease is not ours.
pub async fn refuse(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
    reply: &Reply,
) -> Result<bool, PaymentError> {
    let stored = sqlx::query(
        "UPDATE idempotency_keys
         SET recovery_point = 'finished', finished_at = now(), status = $4, response = $5
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point = 'started'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(pool)
    .await?;
    Ok(stored.rows_affected() == 1)
}
// ANCHOR_END: refuse

// ANCHOR: set_aside
/// Phase 2's third end, one statement: the provider's final answer for its key
/// does not say whether (or what) it charged, and asking again would only
/// repeat it. The key is set aside, `unknown`, its lease ended: no retry takes
/// it over, `reply` (the pending answer) is replayed to each, and the reaper
/// lists it for reconciliation. False when the lease is not ours.
pub async fn set_aside(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
    reply: &Reply,
) -> Result<bool, PaymentError> {
    let set_aside = sqlx::query(
        "UPDATE idempotency_keys
         SET recovery_point = 'unknown', locked_until = now(), status = $4, response = $5
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND recovery_point = 'started'",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(pool)
    .await?;
    Ok(set_aside.rows_affected() == 1)
}
// ANCHOR_END: set_aside

// ANCHOR: finish
/// Phase 3, one transaction: the payment row for the charge, and the answer.
///
/// The first statement moves the key from `charged` to `finished`, and only
/// under this request's lease; a second request finishing the same key waits on
/// that row, then finds it finished (or leased to another) and answers from the
/// stored row instead of writing a second payment. A stored answer never
/// changes.
///
/// A charge already recorded as a payment is that payment: the provider
/// replayed the charge of an earlier use of this client's key with this body,
/// whose row we reaped while the provider still remembered its key. The answer
/// is that payment's, played again.
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
        return stored_answer(&mut conn, client, key, hash).await;
    }
    let made: Option<i64> = sqlx::query_scalar(
        "INSERT INTO payments (client_id, order_id, amount, charge_id)
         VALUES ($1, $2, $3, $4) ON CONFLICT (charge_id) DO NOTHING RETURNING id",
    )
    .bind(client.0)
    .bind(request.order_id)
    .bind(request.amount)
    .bind(charge_id)
    .fetch_optional(&mut *tx)
    .await?;
    let (payment_id, replayed) = match made {
        Some(id) => (id, false),
        None => {
            let earlier = sqlx::query_scalar("SELECT id FROM payments WHERE charge_id = $1")
                .bind(charge_id)
                .fetch_one(&mut *tx)
                .await?;
            (earlier, true)
        }
    };
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
    Ok(Answer { reply, replayed })
}
// ANCHOR_END: finish
