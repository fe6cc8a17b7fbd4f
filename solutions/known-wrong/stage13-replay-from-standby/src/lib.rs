//! Known wrong: see payment.rs. The route and the ends of a COMMIT are the model
//! answer's, compiled into this crate.

#[path = "../../../stage13-failover/src/commit.rs"]
mod commit;
mod payment;
#[path = "../../../stage13-failover/src/route.rs"]
mod route;

pub use commit::Commit;
pub use payment::{commit_within, create_payment};
pub use route::{App, Config, RouteConfig, Router, router, serve};
pub use stage8::{Answer, ClientId};

pub const MIGRATION: &str =
    include_str!("../../../stage8-key-per-client/migrations/0001_clients.sql");
pub const MIGRATION_SOURCE: &str = "solutions/stage8-key-per-client/migrations/0001_clients.sql";

/// The model answer's primary settings.
pub const PRIMARY_SETTINGS: &str = include_str!("../../../stage13-failover/primary.conf");
pub const PRIMARY_SETTINGS_SOURCE: &str = "solutions/stage13-failover/primary.conf";
