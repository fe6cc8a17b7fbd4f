//! Stage 13: the key on two machines.
//!
//! Stage 8's route runs on a primary that streams its WAL to a hot standby, and
//! keeps its promise across a failover: a client is told 201 once the payment is
//! on the standby too, so a promoted standby has every payment a client was told
//! of, and the retry replays it. Only the paying transaction waits for the
//! standby (`primary.conf` names the standby and leaves every other write local;
//! the transaction asks with `SET LOCAL`), and never longer than the route's
//! bound: past it, the wait is cancelled and the client is told 503, retry with
//! the same key. Keys and answers are read on the primary only.

mod commit;
mod payment;
mod retry;
mod route;

pub use commit::Commit;
pub use payment::{commit_within, wait_for_standby_on_commit};
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
pub const PRIMARY_SETTINGS_SOURCE: &str = "solutions/stage13-failover/primary.conf";
