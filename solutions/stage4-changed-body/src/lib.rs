//! Stage 4: the same key with another body. The key's row remembers a hash of
//! the request; a repeat with another body is refused with 422 and pays nothing.
//! The hash is taken over a normalised body, so the same request written with its
//! fields in another order, or with other spacing, is still the same request.

use payment_model::{InvalidBody, PaymentError, PaymentRequest, Reply, hex};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::{Acquire, PgConnection, PgPool};

// ANCHOR: request_hash
/// SHA-256 (hex) of the body in canonical form: object keys sorted, no spacing.
///
/// `{"amount":100,"orderId":1}` and `{ "orderId": 1, "amount": 100 }` hash alike.
pub fn request_hash(body: &str) -> Result<String, InvalidBody> {
    let value: Value = serde_json::from_str(body).map_err(InvalidBody::NotAPayment)?;
    let mut canonical = String::with_capacity(body.len());
    write_canonical(&value, &mut canonical);
    Ok(hex(&Sha256::digest(canonical.as_bytes())))
}

/// Writes `value` with every object's keys in sorted order. The order is ours on
/// purpose: serde_json's `Map` keeps insertion order as soon as any crate in the
/// build enables its `preserve_order` feature.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
// ANCHOR_END: request_hash

// ANCHOR: create_payment
/// Creates the payment for `body` once per `key`; refuses the key with another body.
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    if !reserve(&mut tx, key, &hash).await? {
        tx.rollback().await?;
        return stored_reply(&mut conn, key, &hash).await;
    }
    let reply = pay_and_record(&mut tx, key, &request).await?;
    tx.commit().await?;
    Ok(reply)
}
// ANCHOR_END: create_payment

/// Inserts the key; true when this request owns it.
///
/// Waits on the row lock of a first request still in flight (see stage 3).
pub async fn reserve(tx: &mut PgConnection, key: &str, hash: &str) -> Result<bool, PaymentError> {
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(key)
    .bind(hash)
    .execute(tx)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

/// Makes the payment and stores its answer with the key, in the caller's
/// transaction: both commit together, or neither does.
pub async fn pay_and_record(
    tx: &mut PgConnection,
    key: &str,
    request: &PaymentRequest,
) -> Result<Reply, PaymentError> {
    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&mut *tx)
            .await?;
    let reply = Reply::created(payment_id, request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(reply.status_code())
        .bind(&reply.body)
        .execute(tx)
        .await?;
    Ok(reply)
}

// ANCHOR: stored_reply
/// The stored answer for `key`, if it was stored for the same request.
pub async fn stored_reply(
    conn: &mut PgConnection,
    key: &str,
    hash: &str,
) -> Result<Reply, PaymentError> {
    let (stored_hash, status, response): (String, Option<i32>, Option<Value>) =
        sqlx::query_as("SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_optional(conn)
            .await?
            .ok_or_else(|| PaymentError::MissingKeyRow(key.to_owned()))?;
    Ok(reply_from_key_row(&stored_hash, hash, status, response))
}

/// What a key row answers a request whose body hashes to `hash`.
pub fn reply_from_key_row(
    stored_hash: &str,
    hash: &str,
    status: Option<i32>,
    response: Option<Value>,
) -> Reply {
    if stored_hash != hash {
        // Replaying the first answer would tell this client its (other) payment
        // was made; paying would break the promise the key made. Refuse.
        return Reply::key_reused();
    }
    Reply::from_stored(status, response)
}
// ANCHOR_END: stored_reply
