//! The test harness: a real PostgreSQL for every stage's tests, never a mock.
//!
//! [`TestDb::create`] gives each test its own freshly migrated database on one
//! server per test process: the server comes from `postgres-provisioning`
//! (`DATABASE_URL`, a container, or a throwaway cluster from local binaries;
//! see that crate), and test databases are dropped when their [`TestDb`] is
//! dropped (also while a test panics).
//!
//! Beside it, the tests' vocabulary: bursts of concurrent calls
//! ([`fire_concurrently`]), gates that hold a request where a test wants it
//! ([`PaymentGate`]), [`WireRelay`], which sits between a pool and the server and
//! reads the protocol (what was sent, and whether a transaction block was open),
//! scenarios more than one stage runs ([`later_retry`], [`failed_payment_retried`]),
//! a fake payment [`provider`], and a primary with its streaming standby that a
//! test cuts, crashes and promotes ([`Pair`], in [`replication`]).

mod admin;
mod burst;
mod condition;
mod db;
mod gate;
mod http;
mod messages;
mod pool;
pub mod provider;
pub mod replication;
mod scenario;
mod server;
mod trace;
mod wire;

/// The workbook's one localisation mechanism: the tests' messages are said
/// through it too (`l10n::Catalogue`, `t!`).
pub use l10n::{self, catalogue, t};

/// The fault-injecting proxy, a crate of its own since `workbook probe` uses it too.
pub use fault_proxy as proxy;

pub use burst::{
    Outcome, ReplyKind, Shown, fire_concurrently, observe, observed_in_words, second_request,
    within,
};
pub use condition::{Condition, report};
pub use db::{Schema, Target, TestDb, TestDbError, WARM_UP_BOUND};
pub use gate::{
    PaymentGate, SLOW_ORDER, SlowRequest, fire_while_first_is_held, slow_first_request,
    wait_for_lock_waiters, wait_for_table_lock_waiters,
};
pub use http::{Answer, Call, CallError, StalledBody, post_a_body_that_stops, serve};
pub use pool::PoolSize;
pub use replication::{Pair, Server, ServerSettings};
pub use scenario::{
    FailedPayment, FailedPaymentReturned, LaterRetry, TwoKeys, failed_payment_as_it_returns,
    failed_payment_retried, later_retry, refuse_keys, refuse_order_13, refused_payments, two_keys,
};
pub use server::backend;
pub use trace::{last_trace, record_traces, traced};
pub use wire::{WireLog, WireRelay};

/// Finding and starting the server, a crate of its own since the runner's
/// `doctor` and the route benchmark use it too.
pub use postgres_provisioning as provisioning;
/// The server a test's database lives on ([`backend`]); the rest of finding and
/// starting it is in [`provisioning`].
pub use postgres_provisioning::{Backend, BackendChoice, NoServer};

/// The schema of stage 1's solution: the tables every later stage works on.
pub fn reference_schema() -> Schema {
    Schema::new(
        "solutions/stage1-tables/migrations/0001_tables.sql",
        include_str!("../../../solutions/stage1-tables/migrations/0001_tables.sql"),
    )
}
