// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! The reservation with expiry: a key older than the retention window is taken
//! over by the new request instead of replayed. Write `reserve`; the transaction
//! around it (`create_payment`, `attempt_once`) is given: the model answer's
//! `payment.rs`, compiled into this crate.

use sqlx::PgConnection;
use stage8::ClientId;

use crate::Config;

// ANCHOR: reserve
/// Reserves `(client, key)` for this request, within the retention window; returns
/// how many rows it inserted or took over (1: this request pays; 0: replay).
///
/// A new key is inserted. An expired one is taken over: its row gets this
/// request's hash, no answer yet, and a new created_at, as if it were new. An
/// unexpired one is left alone (0 rows). Like stage 3's `DO NOTHING`, the `DO
/// UPDATE` waits for a request in flight with the key, then looks at its outcome.
pub async fn reserve(
    tx: &mut PgConnection,
    client: ClientId,
    key: &str,
    hash: &str,
    config: &Config,
) -> Result<u64, sqlx::Error> {
    // One statement: INSERT INTO idempotency_keys AS k ... ON CONFLICT (client_id,
    // key) DO UPDATE SET ... WHERE <k is older than the window>. Bind the window as
    // text, `config.retention_interval()`, and cast it in SQL: `$4::interval`.
    todo!("stage 9: reserve the key, taking over an expired one (`cargo workbook hint 9`)")
}
// ANCHOR_END: reserve
