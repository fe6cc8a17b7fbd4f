//! Known wrong: stage 11's model answer, with a takeover of any key not
//! `finished` (the model answer's condition before keys could be set aside): a
//! key set aside (`unknown`) is taken over by each retry, which asks the
//! provider again and gets the same answer.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;

// ANCHOR: resume_set_aside_keys
// The mistake: `unknown` keys are taken over too.
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
            WHERE k.locked_until <= now() AND k.body_hash = EXCLUDED.body_hash
              AND k.recovery_point <> 'finished'
              AND (k.recovery_point <> 'started' OR k.created_at > now() - $5::interval)
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
// ANCHOR_END: resume_set_aside_keys
