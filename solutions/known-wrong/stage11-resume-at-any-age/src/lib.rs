//! Known wrong: stage 11's model answer, with a takeover of a `started` key at
//! any age (the model answer before issue 34). Once the provider has pruned its
//! key (Stripe: keys "at least 24 hours old"), the retry's call is a new request
//! to it: the card is charged a second time.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;

// ANCHOR: resume_at_any_age
// The mistake: no bound on how old a `started` key may be.
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
              AND k.recovery_point IN ('started', 'charged')
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
// ANCHOR_END: resume_at_any_age
