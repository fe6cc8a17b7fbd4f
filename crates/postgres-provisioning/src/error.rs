//! Why a server could not be had, as types: callers decide on the kind, and the
//! words (each naming the way out) are written once, here.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::backend::HANDOVER_VAR;
use crate::endpoint::{Endpoint, Engine};

/// A container engine that cannot be found, or a call of its API that failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(
        "DOCKER_HOST={host} is neither unix:// nor tcp://; the harness speaks to those two \
         (fix DOCKER_HOST, or unset it to let the harness look for the engine's socket)"
    )]
    UnknownScheme { host: String },
    #[error("no engine: DOCKER_HOST is not set and none of these sockets exists: {}", .looked.join(", "))]
    NoSocket { looked: Vec<String> },
    /// Every socket found was silent; one error per socket.
    #[error("{}", join(.0))]
    NoneAnswers(Vec<EngineError>),
    #[error("no engine answers at {endpoint} ({source})")]
    Silent {
        endpoint: Endpoint,
        source: std::io::Error,
    },
    #[error("{engine} answered its ping with HTTP {status}")]
    PingRefused { engine: Engine, status: u16 },
    #[error("{engine} did not answer its ping in HTTP")]
    PingNotHttp { engine: Engine },
    #[error("{engine}: {call}: {source}")]
    Call {
        engine: Engine,
        call: String,
        source: std::io::Error,
    },
    #[error("{engine}: {call}: not an HTTP answer: {start:?}")]
    NotHttp {
        engine: Engine,
        call: String,
        start: String,
    },
    /// The engine answered with an error status, in its own words.
    #[error("{engine}: {doing}: HTTP {status}: {message}")]
    Refused {
        engine: Engine,
        doing: String,
        status: u16,
        message: String,
    },
    #[error("{engine}: pulling {image}: {source}")]
    PullNotSent {
        engine: Engine,
        image: String,
        source: std::io::Error,
    },
    #[error("no registry answered within {bound:?} ({source})")]
    NoRegistry {
        bound: Duration,
        source: std::io::Error,
    },
    #[error("the pull stalled{} ({source})", .after.map(|s| format!(" after {s:.0} s")).unwrap_or_default())]
    PullStalled {
        /// Seconds of progress before it stalled, once a registry had answered.
        after: Option<f64>,
        source: std::io::Error,
    },
    /// The registry's or engine's words for a failed pull.
    #[error("{0}")]
    PullFailed(String),
    #[error("HTTP {status}: {last}")]
    PullStatus { status: String, last: String },
}

fn join(errors: &[EngineError]) -> String {
    let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
    all.join("; ")
}

/// A container that could not be started or reached.
#[cfg(feature = "containers")]
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    #[error(transparent)]
    Engine(Box<EngineError>),
    #[error(
        "{engine} answers, but it has no image {image} and cannot pull it ({why}). Without a \
         registry, `just docker-image` builds workbook-postgres:15 from Debian packages and \
         WORKBOOK_PG_IMAGE=workbook-postgres:15 uses it"
    )]
    NoImage {
        engine: Engine,
        image: String,
        why: Box<EngineError>,
    },
    #[error("{engine}: could not start {image}{}: {source}", .name.as_deref().map(|n| format!(" as {n}")).unwrap_or_default())]
    Start {
        engine: Engine,
        image: String,
        /// The container's name, when it is the kept one.
        name: Option<String>,
        source: Box<testcontainers_modules::testcontainers::TestcontainersError>,
    },
    #[error("{engine}: no port published for 5432 of container {container}: {source}")]
    NoPort {
        engine: Engine,
        container: String,
        source: Box<testcontainers_modules::testcontainers::TestcontainersError>,
    },
    #[error("{engine}: the server in container {container} does not answer: {source}")]
    NotAnswering {
        engine: Engine,
        container: String,
        source: sqlx::Error,
    },
    #[error("could not start the container's supervisor shell: {0}")]
    Supervisor(std::io::Error),
    #[error("{engine}: {container} was removed while this run started it; run again")]
    RemovedMeanwhile { engine: Engine, container: String },
}

#[cfg(feature = "containers")]
impl From<EngineError> for ContainerError {
    fn from(error: EngineError) -> Self {
        Self::Engine(Box::new(error))
    }
}

/// A throwaway cluster from local binaries that could not be started.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error(
        "local binaries: no directory with both initdb and postgres on PATH, from \
         pg_config --bindir, or under /usr/lib/postgresql/*/bin"
    )]
    NoBinaries,
    #[error(
        "local binaries: running as root, and PostgreSQL refuses root, but neither a `postgres` \
         nor a `nobody` account exists to run it as (create one: useradd --system postgres)"
    )]
    NoAccountButRoot,
    #[error("local binaries: no account named {0}")]
    NoSuchAccount(String),
    #[error("local binaries: the account name {0:?} has a NUL byte")]
    NulInAccount(String),
    #[error(
        "local binaries: {var}={} is not a directory (create it, or unset {var} to let the \
         harness choose)", .dir.display()
    )]
    NotADirectory { var: &'static str, dir: PathBuf },
    #[error(
        "local binaries: the server runs as user {user}, who cannot enter {} (mode {mode:o}); \
         make it world-searchable like /tmp: chmod 1777 {}", .dir.display(), .dir.display()
    )]
    Unreachable {
        user: String,
        dir: PathBuf,
        mode: u32,
    },
    /// A file operation on the way (`read`, `create`, `list`, `remove`).
    #[error("local binaries: cannot {action} {}: {source}", .path.display())]
    File {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("local binaries: could not run {program}: {source}")]
    Run {
        program: String,
        source: std::io::Error,
    },
    #[error("local binaries: initdb failed: {0}")]
    Initdb(String),
    #[error("local binaries: preparing the data directory failed: {0}")]
    Prepare(String),
    /// A shell step (make, copy or move a directory) failed; its own words.
    #[error("local binaries: {0}")]
    Shell(String),
    #[error(
        "local binaries: could not copy the cached data directory {} into {}: {source}",
        .cache.display(), .run.display()
    )]
    Copy {
        cache: PathBuf,
        run: PathBuf,
        source: std::io::Error,
    },
    #[error("local binaries: the supervisor said {0:?}")]
    Supervisor(String),
    #[error("local binaries: the server did not start ({source}); its log says:\n{log}")]
    NotStarted { source: sqlx::Error, log: String },
}

/// A `DATABASE_URL` the harness cannot use.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    #[error("WORKBOOK_DB=url, but DATABASE_URL is not set")]
    NotSet,
    #[error("DATABASE_URL={shown} is not a PostgreSQL URL: {source}")]
    NotPostgres { shown: String, source: sqlx::Error },
    #[error("DATABASE_URL={shown}: could not connect: {source}")]
    Unreachable { shown: String, source: sqlx::Error },
    #[error("DATABASE_URL={shown}: {why}")]
    MayNotCreate { shown: String, why: CreateDbError },
}

/// Why the role cannot be shown to create databases.
#[derive(Debug, thiserror::Error)]
pub enum CreateDbError {
    #[error("could not connect: {0}")]
    Connect(sqlx::Error),
    #[error("could not read the role's attributes: {0}")]
    ReadRole(sqlx::Error),
    #[error("{}", without_createdb(.role))]
    NotAllowed { role: String },
}

/// One way to a server that was tried and failed: a line of [`crate::NoServer`].
#[derive(Debug, thiserror::Error)]
pub enum Attempt {
    #[error(
        "WORKBOOK_DB={0:?} is not one of url, container, local (or unset it to let the harness choose)"
    )]
    UnknownChoice(String),
    #[error("DATABASE_URL: not set")]
    NoUrl,
    #[error(transparent)]
    Url(#[from] UrlError),
    /// No engine was found while looking for one.
    #[error("Docker: {0}")]
    NoEngine(EngineError),
    /// `WORKBOOK_DB=container` and no engine.
    #[error("WORKBOOK_DB=container, but {0}")]
    ContainerForced(EngineError),
    #[cfg(feature = "containers")]
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// This executable was built without the container client (the feature
    /// `containers`), and no server was handed over.
    #[error(
        "{engine} answers, but this test executable was built without the container client \
         (`cargo test -p PACKAGE` builds it so; `cargo workbook stage N` starts the container \
         for its tests, and `cargo test` at the workspace root builds the client in)"
    )]
    NoContainerClient { engine: Engine },
    #[error("{HANDOVER_VAR} does not describe a server ({0}); unset it")]
    BadHandover(String),
    #[error(transparent)]
    Local(#[from] LocalError),
    #[error("could not start a tokio runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the harness panicked while starting PostgreSQL")]
    Panicked,
}

/// The message for a role without CREATEDB.
pub fn without_createdb(role: &str) -> String {
    format!(
        "the role {role} may not create databases (it lacks CREATEDB), and the harness gives \
         every test a database of its own. Either grant it, as a superuser: \
         ALTER ROLE \"{role}\" CREATEDB; or point DATABASE_URL at a role that has it, or unset \
         DATABASE_URL to let the harness start a server of its own"
    )
}

/// No server could be had; the message says what was tried and the ways out.
#[derive(Debug)]
pub struct NoServer {
    tried: Vec<Attempt>,
}

impl NoServer {
    pub(crate) fn new(tried: impl Into<Attempt>) -> Self {
        Self {
            tried: vec![tried.into()],
        }
    }

    /// What was tried, in order, and why each failed.
    pub fn tried(&self) -> &[Attempt] {
        &self.tried
    }

    pub(crate) fn and(mut self, other: NoServer) -> Self {
        self.tried.extend(other.tried);
        self
    }
}

impl fmt::Display for NoServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "No PostgreSQL server for the tests. What was tried:")?;
        for line in &self.tried {
            writeln!(f, "  - {line}")?;
        }
        write!(
            f,
            "Three ways out (any one is enough):\n  \
             1. DATABASE_URL: point it at a server you may create databases on,\n     \
                e.g. export DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres\n  \
             2. Docker (or Podman, Colima, ...): start the engine (`docker info` must answer); the\n     \
                harness runs postgres:15-alpine (or WORKBOOK_PG_IMAGE) through testcontainers.\n  \
             3. Local binaries: install PostgreSQL's server (Debian/Ubuntu: apt-get install postgresql;\n     \
                macOS: brew install postgresql@15) so that initdb and postgres are on PATH,\n     \
                found by pg_config --bindir, or under /usr/lib/postgresql/*/bin.\n\
             Run `cargo workbook doctor` to see what this machine has."
        )
    }
}

impl std::error::Error for NoServer {}

/// One way tried, and why it failed.
macro_rules! no_server_from {
    ($($error:ty),*) => {$(
        impl From<$error> for NoServer {
            fn from(error: $error) -> Self {
                Self::new(error)
            }
        }
    )*};
}

no_server_from!(UrlError, LocalError);
#[cfg(feature = "containers")]
no_server_from!(ContainerError);
