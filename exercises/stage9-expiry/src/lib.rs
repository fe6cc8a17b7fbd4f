//! Stage 9: keys that expire, and the clean-up.
//!
//! A key is kept for a retention window (24 hours by default). Within it, a repeat
//! replays the stored answer; past it, the key is expired: a request with it is a new
//! payment, whether the reaper has deleted the old row yet or not. The reaper
//! deletes expired keys in bounded batches of short transactions, passes over any
//! key whose request is in flight (`FOR UPDATE SKIP LOCKED`), and runs both as a
//! background task of the server and as a one-shot command
//! (`cargo run -p stage9-expiry-solution --bin reap`).
//!
//! Write the index in `migrations/0002_created_at_index.sql`, the reservation in
//! `reserve.rs` and one batch of the reaper in `reap_one_batch.rs`; run
//! `cargo workbook stage 9`, and `cargo workbook hint 9` when stuck. The rest is
//! given: the model answer's `payment.rs` (the transaction around `reserve`),
//! `reaper.rs` (the loop around `reap_one_batch`, and the background task) and
//! `route.rs`, compiled into this crate.

#[path = "../../../solutions/stage9-expiry/src/payment.rs"]
mod payment;
mod reap_one_batch;
#[path = "../../../solutions/stage9-expiry/src/reaper.rs"]
mod reaper;
mod reserve;
#[path = "../../../solutions/stage9-expiry/src/route.rs"]
mod route;

pub use payment::create_payment;
pub use reaper::{ReapError, Reaped, Reaper, reap_expired_keys, spawn_reaper};
pub use route::{Config, ConfigError, RouteConfig, Router, router_with, serve};
pub use stage8::{Answer, ClientId};

/// The migration of this stage's tables: stage 8's, then the index the reaper
/// needs; and the path of the file this stage adds (named in errors).
pub const MIGRATION: &str = concat!(
    include_str!("../../../solutions/stage8-key-per-client/migrations/0001_clients.sql"),
    include_str!("../migrations/0002_created_at_index.sql"),
);
pub const MIGRATION_SOURCE: &str = "exercises/stage9-expiry/migrations/0002_created_at_index.sql";
