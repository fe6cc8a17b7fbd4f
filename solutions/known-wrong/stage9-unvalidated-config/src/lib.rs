//! Known wrong: stage 9's model answer, with the reaper as it was (`reaper.rs`
//! here): it never checks its settings. A batch of 0 keys deletes nothing and is
//! never "not full", so the reaper loops for ever; a negative one is a LIMIT
//! PostgreSQL refuses, found at the first batch; a retention of zero deletes every
//! answer as soon as it is stored.

#[path = "../../../stage9-expiry/src/payment.rs"]
mod payment;
#[path = "../../../stage9-expiry/src/reap_one_batch.rs"]
mod reap_one_batch;
mod reaper;
#[path = "../../../stage9-expiry/src/reserve.rs"]
mod reserve;
#[path = "../../../stage9-expiry/src/route.rs"]
mod route;

pub use payment::create_payment;
pub use reaper::{ReapError, Reaped, Reaper, reap_expired_keys, spawn_reaper};
pub use route::{Config, ConfigError, RouteConfig, Router, router_with, serve};
pub use stage8::{Answer, ClientId};

pub const MIGRATION: &str = concat!(
    include_str!("../../../stage8-key-per-client/migrations/0001_clients.sql"),
    include_str!("../../../stage9-expiry/migrations/0002_created_at_index.sql"),
);
pub const MIGRATION_SOURCE: &str = "solutions/stage9-expiry/migrations/0002_created_at_index.sql";
