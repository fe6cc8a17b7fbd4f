//! Stage 13: the key on two machines.
//!
//! Stage 8's route runs on a primary that streams its WAL to a hot standby, and
//! keeps its promise across a failover: a client is told 201 once the payment is
//! on the standby too, only the paying transaction waits for the standby, never
//! longer than the route's bound, and keys are read on the primary only.
//!
//! Write the primary's settings in `primary.conf`, and `attempt_once` and
//! `commit_within` in `payment.rs`; run `cargo workbook stage 13`, and
//! `cargo workbook hint 13` when stuck. The route (`route.rs`), `create_payment`
//! around your `attempt_once` (`retry.rs`) and the ends of a COMMIT (`commit.rs`)
//! are given: they are the model answer's own files, compiled into this crate.

#[path = "../../../solutions/stage13-failover/src/commit.rs"]
mod commit;
mod payment;
#[path = "../../../solutions/stage13-failover/src/retry.rs"]
mod retry;
#[path = "../../../solutions/stage13-failover/src/route.rs"]
mod route;

pub use commit::Commit;
pub use payment::commit_within;
pub use retry::create_payment;
pub use route::{App, Config, RouteConfig, Router, router, serve};
pub use stage8::{Answer, ClientId};

/// The migration of this stage's tables: stage 8's, unchanged; and its path
/// (named in errors).
pub const MIGRATION: &str =
    include_str!("../../../solutions/stage8-key-per-client/migrations/0001_clients.sql");
pub const MIGRATION_SOURCE: &str = "solutions/stage8-key-per-client/migrations/0001_clients.sql";

/// The primary's settings (`postgresql.conf` lines), and the file they come from.
pub const PRIMARY_SETTINGS: &str = include_str!("../primary.conf");
pub const PRIMARY_SETTINGS_SOURCE: &str = "exercises/stage13-failover/primary.conf";
