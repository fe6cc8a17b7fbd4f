//! Stage 10: idempotency in one round trip. Stage 5's promise (one payment per
//! key, identical replays, 422 for another body, the key rolls back with a failed
//! payment, a bounded wait for a request in flight), in ONE statement sent in
//! autocommit: for a new key it reserves the key, makes the payment and stores the
//! answer together; for a key answered before it began, it returns the stored
//! answer and writes nothing. One statement is one transaction, so a failed
//! payment takes the key with it. A second statement runs only when the key was
//! committed while the statement ran: a duplicate that waited for the request in
//! flight.

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::PgPool;
use stage4::{reply_from_key_row, request_hash, stored_reply};

/// How long a duplicate waits for the request in flight with its key (stage 5).
pub const IN_FLIGHT_WAIT: &str = "250ms";

// ANCHOR: pay_once
/// Answers from the key row, in one statement: the stored one when the key was
/// committed before the statement began, else a new one that reserves the key,
/// pays and stores the answer.
///
/// All the sub-statements share the statement's snapshot. `stored` reads the key
/// row in it: a key answered before is returned as it is, and nothing else runs
/// (no `nextval`, no write, no wait). Otherwise siblings still cannot see each
/// other's rows, so the answer cannot be read back from the payment row: it is
/// built first, from the id the payment will have (`nextval` of the payments'
/// identity sequence), and the key row is inserted complete. The payment is made
/// only for a key row this statement inserted. Returns no row when the key was
/// committed by another request while this statement ran.
///
/// The order of the sub-statements is left to PostgreSQL; data dependencies fix
/// what matters. `lock_timeout` is set (local to the statement's implicit
/// transaction) in `answer`, the row the reserving INSERT reads, so that INSERT's
/// wait for a key in flight is bounded; the previous setting is put back in a
/// subquery that depends on the inserted key row, so the payment runs under the
/// operators' setting.
pub const PAY_ONCE: &str = "
WITH stored AS MATERIALIZED (
    SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1
),
previous AS MATERIALIZED (
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
    -- Planned as a one-time filter, checked before any row is made: a key
    -- answered before takes no id. A plan, not a documented order: a test pins it.
    WHERE NOT EXISTS (SELECT FROM stored)
),
reserved AS (
    INSERT INTO idempotency_keys (key, body_hash, status, response)
    SELECT $1, $2, 201, body FROM answer
    ON CONFLICT (key) DO NOTHING
    RETURNING body_hash, status, response
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
SELECT body_hash, status, response FROM stored
UNION ALL
SELECT body_hash, status, response FROM reserved";
// ANCHOR_END: pay_once

// ANCHOR: create_payment
/// Creates the payment for `body` once per `key`: one statement, and a second one
/// only when the key was committed while the first ran.
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let key_row = sqlx::query_as::<_, (String, Option<i32>, Option<Value>)>(PAY_ONCE)
        .bind(key)
        .bind(&hash)
        .bind(request.order_id)
        .bind(request.amount)
        .bind(IN_FLIGHT_WAIT)
        .fetch_optional(pool)
        .await;
    match key_row {
        // The row this statement inserted (a 201), or the one stored before it
        // began (a replay, or a 422 for another body): stage 4 decides which.
        Ok(Some((stored_hash, status, response))) => {
            Ok(reply_from_key_row(&stored_hash, &hash, status, response))
        }
        // Another request committed the key while this statement waited on it:
        // this statement's snapshot cannot show that row, a new one can.
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
