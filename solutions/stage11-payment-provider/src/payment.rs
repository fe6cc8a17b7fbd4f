//! The two pieces of `create_payment` that make a retry safe: the reservation
//! (a new key, or the takeover of a key whose request died) and the key the
//! provider is sent. The phases around them are in `phases.rs` and `steps.rs`.

use payment_model::{PaymentError, hex};
use provider_client::App;
use sha2::{Digest, Sha256};
use stage8::ClientId;

use crate::{Lease, RecoveryPoint, Reserved};

// ANCHOR: derived_key
/// The idempotency key this request sends the provider for one `step` of it.
///
/// It is a function of the client, its key, the body's hash and the step, and
/// of nothing else: a retry of the client's request (same key, same body) sends
/// the provider the same key, so it is a retry at the provider too, even when
/// our row of the key is gone; two clients' `order-1`, two steps of one
/// payment, or one key used again with another body, never share a key at the
/// provider, where all our clients are one account. Each part is prefixed with
/// its length, so no two different lists hash the same text; the hash keeps the
/// client's key to ourselves.
pub fn derived_key(client: ClientId, key: &str, body_hash: &str, step: &str) -> String {
    let mut hash = Sha256::new();
    for part in [client.0.to_string().as_str(), key, body_hash, step] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hex(&hash.finalize())
}
// ANCHOR_END: derived_key

// ANCHOR: reserve
/// Phase 1, one statement in autocommit: reserves `(client, key)` with a lease,
/// and returns the lease and the recovery point to resume from; `None` when the
/// key is not ours to work on (finished or set aside, leased to a request in
/// flight, another body, or `started` too long ago to ask the provider again).
///
/// A new key is inserted, `started`, with a new lease number. A key whose
/// request died (lease expired, same body) is taken over from a point a retry
/// can resume from: `charged`, or `started` while the provider still remembers
/// its key. Its lease is renewed under a new number, and it keeps its recovery
/// point. Two requests cannot both take it over: the second waits on the first
/// one's row lock, then finds the lease renewed.
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
            SET locked_until = EXCLUDED.locked_until,
                lease = nextval('idempotency_key_leases')
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
// ANCHOR_END: reserve
