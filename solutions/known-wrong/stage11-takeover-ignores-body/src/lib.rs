//! Known wrong: stage 11's model answer, with a takeover that does not compare
//! the body's hash. After a crash at `charged`, a retry with amount 999 takes the
//! key over and finishes it with the charge of 100: 201 for 999; after a crash
//! before the charge was recorded, it charges 999 as well.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;

// ANCHOR: takeover_ignores_body
// The mistake: no `k.body_hash = EXCLUDED.body_hash` in the takeover.
pub async fn reserve(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Option<Reserved>, PaymentError> {
    let row: Option<(String, Option<String>, i64)> = sqlx::query_as(
        "INSERT INTO idempotency_keys AS k (client_id, key, body_hash, locked_until)
         VALUES ($1, $2, $3, now() + $4::interval)
         ON CONFLICT (client_id, key) DO UPDATE
            SET locked_until = EXCLUDED.locked_until, lease = nextval('idempotency_key_leases')
            WHERE k.locked_until <= now()
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
// ANCHOR_END: takeover_ignores_body
