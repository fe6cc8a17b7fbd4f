//! The two pieces of `create_payment` that make a retry safe: the reservation
//! (a new key, or the takeover of a key whose request died) and the key the
//! provider is sent. The phases around them are in `phases.rs`.

use payment_model::{PaymentError, hex};
use provider_client::App;
use sha2::{Digest, Sha256};
use stage8::ClientId;

use crate::{Lease, RecoveryPoint, Reserved};

// ANCHOR: derived_key
/// The idempotency key this request sends the provider for one `step` of it.
///
/// It is a function of the client, its key and the step, and of nothing else: a
/// retry of the client's request sends the provider the same key, so it is a
/// retry at the provider too; two clients' `order-1`, or two steps of one
/// payment, never share a key at the provider, where all our clients are one
/// account. Each part is prefixed with its length, so no two different triples
/// hash the same text; the hash keeps the client's key to ourselves.
pub fn derived_key(client: ClientId, key: &str, step: &str) -> String {
    let mut hash = Sha256::new();
    for part in [client.0.to_string().as_str(), key, step] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hex(&hash.finalize())
}
// ANCHOR_END: derived_key

// ANCHOR: reserve
/// Phase 1, one statement in autocommit: reserves `(client, key)` with a lease,
/// and returns the lease and the recovery point to resume from; `None` when the
/// key is not ours to work on (finished, leased to a request in flight, or
/// another body).
///
/// A new key is inserted, `started`, lease 1. A key whose request died
/// (unfinished, lease expired, same body) is taken over: its lease is renewed and
/// its number bumped, and it keeps its recovery point. Two requests cannot both
/// take it over: the second waits on the first one's row lock, then finds the
/// lease renewed.
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
            SET locked_until = EXCLUDED.locked_until, lease = k.lease + 1
            WHERE k.recovery_point <> 'finished' AND k.locked_until <= now()
              AND k.body_hash = EXCLUDED.body_hash
         RETURNING recovery_point, charge_id, lease",
    )
    .bind(client.0)
    .bind(key)
    .bind(hash)
    .bind(app.config.lease_interval())
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
