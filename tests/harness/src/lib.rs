//! The test harness: a real PostgreSQL for every stage's tests, never a mock.
//!
//! [`TestDb::create`] gives each test its own freshly migrated database on one
//! server per test process. The server is found in this order (and the choice is
//! printed once per process):
//!
//! 1. `DATABASE_URL`, when set;
//! 2. a testcontainers Postgres, when a container engine answers (Docker, Podman,
//!    Colima, ...: see `engine.rs`; `container.rs` for the image and clean-up);
//! 3. a throwaway cluster started from local PostgreSQL binaries (`initdb`, `postgres`).
//!
//! `WORKBOOK_DB=url|container|local` forces one of them. Nothing is left behind:
//! test databases are dropped when their [`TestDb`] is dropped (also while a test
//! panics), and the server goes away with the test process.
//!
//! Beside it: [`WireRelay`] sits between a pool and the server and reads the
//! protocol (what was sent, and whether a transaction block was open), and
//! [`LocalCluster`] starts a cluster of its own with other settings or in another
//! place (the route benchmark's production-like server), with the same clean-up.

mod backend;
mod burst;
mod cleanup;
mod condition;
mod container;
mod db;
mod engine;
mod gate;
mod http;
mod local;
pub mod provider;
mod wire;

/// The fault-injecting proxy, a crate of its own since `workbook probe` uses it too.
pub use fault_proxy as proxy;

pub use backend::{Backend, BackendChoice, NoServer, backend, redact, url_backend};
pub use burst::{Outcome, ReplyKind, fire_concurrently, observe, second_request, within};
pub use condition::{Condition, report};
pub use container::{
    DEFAULT_IMAGE, KEPT_CONTAINER, image as pg_image, keep_container, kept_container,
    remove_kept_container,
};
pub use db::{PoolSize, Schema, TestDb, WARM_UP_BOUND};
pub use engine::{Endpoint, Engine, Places, engine, find_engine};
pub use gate::{
    PaymentGate, SLOW_ORDER, SlowRequest, fire_while_first_is_held, slow_first_request,
    wait_for_lock_waiters,
};
pub use http::{Answer, Call, serve};
pub use local::{
    Binaries, ClusterSettings, LocalCluster, file_system_of, find_binaries, server_account,
};
pub use wire::{WireLog, WireRelay};

/// The schema of stage 1's solution: the tables every later stage works on.
pub fn reference_schema() -> Schema {
    Schema::new(
        "solutions/stage1-tables/migrations/0001_tables.sql",
        include_str!("../../../solutions/stage1-tables/migrations/0001_tables.sql"),
    )
}

/// SHA-256 of some text, in hex: names derived from content (a cache directory,
/// a template database).
pub(crate) fn content_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    payment_model::hex(&Sha256::digest(text.as_bytes()))
}
