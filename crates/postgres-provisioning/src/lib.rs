//! A real PostgreSQL server for the tests, found or started, never a mock.
//!
//! [`backend`] gives the process its server: the one a parent process (the
//! runner) handed over in `WORKBOOK_SERVER` ([`Backend::handover`]), or else
//! one found in this order (and the choice is printed once per process):
//!
//! 1. `DATABASE_URL`, when set;
//! 2. a testcontainers Postgres, when a container engine answers (Docker, Podman,
//!    Colima, ...: see `engine.rs`; `container.rs` for the image and clean-up);
//! 3. a throwaway cluster started from local PostgreSQL binaries (`initdb`, `postgres`).
//!
//! Starting a container needs the feature `containers` (testcontainers and its
//! engine client, about a hundred crates): the tests' own executables leave it
//! out and are handed the runner's server. `WORKBOOK_DB=url|container|local`
//! forces one of the three. Nothing is left behind:
//! the server goes away with the process, even after `kill -9` (`cleanup.rs`).
//! [`LocalCluster`] starts a cluster of its own with other settings or in another
//! place (the route benchmark's production-like server), with the same clean-up;
//! [`StandbyPair`], a primary and its streaming standby (stage 13's failovers).
//!
//! What the tests do with the server (a database per test, bursts, gates) is the
//! harness's (`tests/harness`).

mod backend;
mod cleanup;
#[cfg(feature = "containers")]
mod container;
mod databases;
mod endpoint;
mod engine;
mod error;
mod find;
mod hash;
mod local;
mod messages;
mod notice;
mod replication;

pub use backend::{Backend, BackendChoice, HANDOVER_VAR};
pub use cleanup::at_exit;
#[cfg(feature = "containers")]
pub use container::{
    DEFAULT_IMAGE, KEPT_CONTAINER, image as pg_image, keep_container, kept_container,
    remove_kept_container,
};
pub use databases::{drop_database, owner};
pub use endpoint::{Endpoint, Engine};
pub use engine::{Places, engine, find_engine};
#[cfg(feature = "containers")]
pub use error::ContainerError;
pub use error::{
    Attempt, CreateDbError, EngineError, LocalError, NoServer, UrlError, without_createdb,
};
pub use find::{backend, redact, url_backend};
pub use local::{
    Binaries, ClusterSettings, LocalCluster, file_system_of, find_binaries, server_account,
};
pub use notice::{Notice, listen};
pub use replication::{
    Lsn, OPERATION_BOUND, PrimaryState, ReplicationError, STANDBY_NAME, Server, StandbyPair,
    StandbyState, WalSender,
};
