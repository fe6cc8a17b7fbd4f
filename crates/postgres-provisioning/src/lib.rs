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
//! place (the route benchmark's production-like server), with the same clean-up.
//!
//! What the tests do with the server (a database per test, bursts, gates) is the
//! harness's (`tests/harness`).

mod backend;
mod cleanup;
#[cfg(feature = "containers")]
mod container;
mod databases;
mod engine;
mod error;
mod local;

use std::sync::OnceLock;

pub use backend::{Backend, BackendChoice, HANDOVER_VAR, NoServer, backend, redact, url_backend};
pub use cleanup::at_exit;
#[cfg(feature = "containers")]
pub use container::{
    DEFAULT_IMAGE, KEPT_CONTAINER, image as pg_image, keep_container, kept_container,
    remove_kept_container,
};
pub use databases::{drop_database, owner, without_createdb};
pub use engine::{Endpoint, Engine, Places, engine, find_engine};
#[cfg(feature = "containers")]
pub use error::ContainerError;
pub use error::{Attempt, CreateDbError, EngineError, LocalError, UrlError};
pub use local::{
    Binaries, ClusterSettings, LocalCluster, file_system_of, find_binaries, server_account,
};

// Everything this crate says (its notes, its errors), in both languages.
l10n::catalogue!(pub(crate) static MESSAGES = "../locales", "provisioning");

/// Seconds as the messages show them, with the language's decimal separator.
pub(crate) fn seconds(seconds: f64) -> String {
    MESSAGES.current().decimal(seconds, 2)
}

/// A bound as the messages show it: whole seconds, or tenths below a second.
pub(crate) fn bound(bound: std::time::Duration) -> String {
    if bound.subsec_millis() == 0 {
        bound.as_secs().to_string()
    } else {
        MESSAGES.current().decimal(bound.as_secs_f64(), 1)
    }
}

/// What the search for a server says besides printing it: the harness passes it
/// on to the runner (its `Condition`s), which shows it beside the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice<'a> {
    /// A line printed for the learner ("harness: ...").
    Said(&'a str),
    /// No server could be had.
    NoServer,
}

static LISTENER: OnceLock<fn(Notice<'_>)> = OnceLock::new();

/// Who hears the [`Notice`]s of this process instead of its standard error (the
/// listener prints them, or not); the first caller wins.
pub fn listen(listener: fn(Notice<'_>)) {
    let _ = LISTENER.set(listener);
}

/// Tells the listener; false when there is none.
pub(crate) fn tell(notice: Notice<'_>) -> bool {
    match LISTENER.get() {
        Some(listener) => {
            listener(notice);
            true
        }
        None => false,
    }
}

/// SHA-256 of some text, in hex: names derived from content (a cache directory,
/// a machine's tag).
pub(crate) fn content_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
