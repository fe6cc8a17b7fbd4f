//! The two pieces of `create_payment` that make a retry safe. Write `derived_key`
//! and `reserve`; the phases around them (`create_payment`, and `claim`,
//! `record_charge`, `release`, `refuse`, `set_aside`, `finish`) are given in the
//! model answer's `phases.rs` and `steps.rs`, compiled into this crate.

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

use payment_model::{PaymentError, hex};
use provider_client::App;
use sha2::{Digest, Sha256};
use stage8::ClientId;

use crate::{Lease, RecoveryPoint, Reserved};

// ANCHOR: derived_key
/// The idempotency key this request sends the provider for one `step` of it.
///
/// TO DO: this sends the client's own key, as it is. At the provider all our
/// clients are one account: client B's `order-1` would replay client A's charge.
/// Derive a key from the client, its key, the body's hash and the step, so that
/// a retry of this request sends the same one, and no two (client, key, body,
/// step) share one.
pub fn derived_key(client: ClientId, key: &str, body_hash: &str, step: &str) -> String {
    key.to_owned()
}
// ANCHOR_END: derived_key

// ANCHOR: reserve
/// Phase 1, one statement in autocommit: reserves `(client, key)` with a lease,
/// and returns the lease and the recovery point to resume from; `None` when the
/// key is not ours to work on (finished or set aside, leased to a request in
/// flight, another body, or `started` too long ago to ask the provider again).
///
/// TO DO: this is stage 8's reservation: a key that exists is never ours. A key
/// whose request died (`locked_until <= now()`, the same body) must be taken
/// over from a point a retry can resume from (`charged`; or `started`, first
/// used within `app.config.resume_window_interval()`): renew its lease, give it
/// a new `lease` number (`nextval('idempotency_key_leases')`: the fencing token
/// every later write names), and return its recovery point (`charged` with its
/// `charge_id`, or `started`). `app.config.lease_interval()` is the lease.
pub async fn reserve(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Option<Reserved>, PaymentError> {
    let row: Option<(String, Option<String>, i64)> = sqlx::query_as(
        "INSERT INTO idempotency_keys (client_id, key, body_hash) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO NOTHING
         RETURNING recovery_point, charge_id, lease",
    )
    .bind(client.0)
    .bind(key)
    .bind(hash)
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
