//! Known wrong: stage 9's model answer, with `payment.rs` here: an attempt is run
//! again after a serialization failure only. A repeat that found its key inside
//! the window and then found it reaped before it could read the answer (the key
//! expired in between) fails with a 500, where the key is simply new now.

mod payment;
#[path = "../../../stage9-expiry/src/reap_one_batch.rs"]
mod reap_one_batch;
#[path = "../../../stage9-expiry/src/reaper.rs"]
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
