//! Stage 10: idempotency in one round trip. Stage 5's promise (one payment per
//! key, identical replays, 422 for another body, the key rolls back with a failed
//! payment, a bounded wait for a request in flight), with the happy path in ONE
//! statement sent in autocommit: it reserves the key, makes the payment and
//! stores the answer together. One statement is one transaction, so a failed
//! payment takes the key with it. A second statement runs only when the key was
//! already used, to read the stored answer.

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::PgPool;
use stage4::{request_hash, stored_reply};

/// How long a duplicate waits for the request in flight with its key (stage 5).
pub const IN_FLIGHT_WAIT: &str = "250ms";

// ANCHOR: pay_once
/// Reserves the key, pays and stores the answer, in one statement.
///
/// Sibling CTEs run on one snapshot and cannot see each other's rows, so the
/// answer cannot be read back from the payment row: it is built first, from the
/// id the payment will have (`nextval` of the payments' identity sequence), and
/// the key row is inserted complete. The payment is made only for a key row this
/// statement inserted. Returns no row when the key was used before.
///
/// The order of the sub-statements is left to PostgreSQL; data dependencies fix
/// what matters. `lock_timeout` is set (local to the statement's implicit
/// transaction) in `answer`, the row the reserving INSERT reads, so that INSERT's
/// wait for a key in flight is bounded; the previous setting is put back in a
/// subquery that depends on the inserted key row, so the payment runs under the
/// operators' setting.
pub const PAY_ONCE: &str = "
WITH previous AS MATERIALIZED (
    SELECT current_setting('lock_timeout') AS lock_timeout
),
answer AS MATERIALIZED (
    SELECT jsonb_build_object(
               'id', nextval(pg_get_serial_sequence('payments', 'id'))::text,
               'orderId', $3::bigint,
               'amount', $4::int,
               'status', 'approved') AS body,
           set_config('lock_timeout', $5, true) AS bounded
    FROM previous
),
reserved AS (
    INSERT INTO idempotency_keys (key, body_hash, status, response)
    SELECT $1, $2, 201, body FROM answer
    ON CONFLICT (key) DO NOTHING
    RETURNING status, response
),
paid AS (
    INSERT INTO payments (id, order_id, amount) OVERRIDING SYSTEM VALUE
    SELECT (r.response ->> 'id')::bigint, $3, $4
    FROM reserved r
    -- LATERAL and the reference to r: evaluated once the key row is inserted.
    CROSS JOIN LATERAL (
        SELECT set_config('lock_timeout', p.lock_timeout, true)
        FROM previous p WHERE r.status IS NOT NULL
    ) restored
)
SELECT status, response FROM reserved";
// ANCHOR_END: pay_once

// ANCHOR: create_payment
/// Creates the payment for `body` once per `key`: one statement for a new key, a
/// second one only to read the answer of a key used before.
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let paid = sqlx::query_as::<_, (i32, Value)>(PAY_ONCE)
        .bind(key)
        .bind(&hash)
        .bind(request.order_id)
        .bind(request.amount)
        .bind(IN_FLIGHT_WAIT)
        .fetch_optional(pool)
        .await;
    match paid {
        Ok(Some((status, response))) => Ok(Reply::from_stored(Some(status), Some(response))),
        // The key was committed by another request, before our INSERT or while it
        // waited: this statement's snapshot cannot show that row, a new one can.
        Ok(None) => {
            let mut conn = pool.acquire().await?;
            stored_reply(&mut conn, key, &hash).await
        }
        // 55P03 lock_not_available: the first request still holds the key.
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => {
            Ok(Reply::in_flight())
        }
        Err(e) => Err(e.into()),
    }
}
// ANCHOR_END: create_payment
