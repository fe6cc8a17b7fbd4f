//! Known wrong: the model answer's route on PostgreSQL's default replication. The
//! primary names no standby in `synchronous_standby_names`, so the paying
//! transaction's `SET LOCAL synchronous_commit = on` waits for nothing: its COMMIT
//! returns once the primary alone has the payment. The client is told 201, the
//! primary dies before the standby received the payment, and after the failover
//! the retry pays again.

pub use stage13_answer::*;

/// The bug: the primary's settings name no synchronous standby.
pub const PRIMARY_SETTINGS: &str = "# PostgreSQL's defaults: replication is asynchronous.\n";
pub const PRIMARY_SETTINGS_SOURCE: &str = "solutions/known-wrong/stage13-asynchronous/src/lib.rs";
