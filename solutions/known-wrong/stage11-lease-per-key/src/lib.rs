//! Known wrong: stage 11's model answer, with lease numbers counted per key row
//! (`lease = 1` for a new row, `k.lease + 1` at a takeover: the model answer
//! before issue 34). A key reaped and used again starts at 1 again: a request
//! that outlived the key's first use, holding lease 1, writes into its next use.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;

// ANCHOR: lease_per_key
// The mistake: a new row's lease is 1, a takeover's the row's number plus one.
pub async fn reserve(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Option<Reserved>, PaymentError> {
    let row: Option<(String, Option<String>, i64)> = sqlx::query_as(
        "INSERT INTO idempotency_keys AS k (client_id, key, body_hash, locked_until, lease)
         VALUES ($1, $2, $3, now() + $4::interval, 1)
         ON CONFLICT (client_id, key) DO UPDATE
            SET locked_until = EXCLUDED.locked_until, lease = k.lease + 1
            WHERE k.locked_until <= now() AND k.body_hash = EXCLUDED.body_hash
              AND (k.recovery_point = 'charged'
                   OR k.recovery_point = 'started' AND k.created_at > now() - $5::interval)
         RETURNING recovery_point, charge_id, lease",
    )
    .bind(client.0)
    .bind(key)
    .bind(hash)
    .bind(app.config.lease_interval())
    .bind(app.config.resume_window_interval())
    .fetch_optional(&app.pool)
    .await?;
    Ok(row.map(|(point, charge_id, lease)| Reserved {
        lease: Lease(lease),
        point: match (point.as_str(), charge_id) {
            ("charged", Some(charge_id)) => RecoveryPoint::Charged { charge_id },
            _ => RecoveryPoint::Started,
        },
    }))
}
// ANCHOR_END: lease_per_key
