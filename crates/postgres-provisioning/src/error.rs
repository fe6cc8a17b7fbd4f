//! Why a server could not be had, as types: callers decide on the kind, and the
//! words (each naming the way out) are written once, in the catalogue
//! (`locales/*/provisioning.ftl`), said by the `Display` impls at the end.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use l10n::t;

use crate::backend::HANDOVER_VAR;
use crate::endpoint::{Endpoint, Engine};

/// A container engine that cannot be found, or a call of its API that failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    UnknownScheme {
        host: String,
    },
    NoSocket {
        looked: Vec<String>,
    },
    /// Every socket found was silent; one error per socket.
    NoneAnswers(Vec<EngineError>),
    Silent {
        endpoint: Endpoint,
        source: std::io::Error,
    },
    PingRefused {
        engine: Engine,
        status: u16,
    },
    PingNotHttp {
        engine: Engine,
    },
    Call {
        engine: Engine,
        call: String,
        source: std::io::Error,
    },
    NotHttp {
        engine: Engine,
        call: String,
        start: String,
    },
    /// The engine answered with an error status, in its own words.
    Refused {
        engine: Engine,
        doing: String,
        status: u16,
        message: String,
    },
    PullNotSent {
        engine: Engine,
        image: String,
        source: std::io::Error,
    },
    NoRegistry {
        bound: Duration,
        source: std::io::Error,
    },
    PullStalled {
        /// Seconds of progress before it stalled, once a registry had answered.
        after: Option<f64>,
        source: std::io::Error,
    },
    /// The registry's or engine's words for a failed pull.
    PullFailed(String),
    PullStatus {
        status: String,
        last: String,
    },
}

/// A container that could not be started or reached.
#[cfg(feature = "containers")]
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    #[error(transparent)]
    Engine(Box<EngineError>),
    NoImage {
        engine: Engine,
        image: String,
        why: Box<EngineError>,
    },
    Start {
        engine: Engine,
        image: String,
        /// The container's name, when it is the kept one.
        name: Option<String>,
        source: Box<testcontainers_modules::testcontainers::TestcontainersError>,
    },
    NoPort {
        engine: Engine,
        container: String,
        source: Box<testcontainers_modules::testcontainers::TestcontainersError>,
    },
    NotAnswering {
        engine: Engine,
        container: String,
        source: sqlx::Error,
    },
    Supervisor(std::io::Error),
    RemovedMeanwhile {
        engine: Engine,
        container: String,
    },
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
    NoBinaries,
    NoAccountButRoot,
    NoSuchAccount(String),
    NulInAccount(String),
    NotADirectory {
        var: &'static str,
        dir: PathBuf,
    },
    Unreachable {
        user: String,
        dir: PathBuf,
        mode: u32,
    },
    /// A file operation on the way (`read`, `create`, `list`, `remove`).
    File {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    Run {
        program: String,
        source: std::io::Error,
    },
    Initdb(String),
    /// A server setting's name that is not a name (`ClusterSettings::server_settings`).
    BadSetting(String),
    Prepare(String),
    /// A shell step (make, copy or move a directory) failed; its own words.
    Shell(String),
    Copy {
        cache: PathBuf,
        run: PathBuf,
        source: std::io::Error,
    },
    Supervisor(String),
    NotStarted {
        source: sqlx::Error,
        log: String,
    },
}

/// A `DATABASE_URL` the harness cannot use.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    NotSet,
    NotPostgres { shown: String, source: sqlx::Error },
    Unreachable { shown: String, source: sqlx::Error },
    MayNotCreate { shown: String, why: CreateDbError },
}

/// Why the role cannot be shown to create databases.
#[derive(Debug, thiserror::Error)]
pub enum CreateDbError {
    Connect(sqlx::Error),
    ReadRole(sqlx::Error),
    NotAllowed { role: String },
}

/// One way to a server that was tried and failed: a line of [`crate::NoServer`].
#[derive(Debug, thiserror::Error)]
pub enum Attempt {
    UnknownChoice(String),
    NoUrl,
    #[error(transparent)]
    Url(#[from] UrlError),
    /// No engine was found while looking for one.
    NoEngine(EngineError),
    /// `WORKBOOK_DB=container` and no engine.
    ContainerForced(EngineError),
    #[cfg(feature = "containers")]
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// This executable was built without the container client (the feature
    /// `containers`), and no server was handed over.
    NoContainerClient {
        engine: Engine,
    },
    BadHandover(String),
    #[error(transparent)]
    Local(#[from] LocalError),
    Runtime(std::io::Error),
    Panicked,
}

// What each error says, in this process's language: the catalogue's words, the
// facts (paths, variables, an engine's or a server's own words) as arguments.

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &crate::messages::MESSAGES;
        let said = match self {
            Self::UnknownScheme { host } => t!(m, "engine-unknown-scheme", host = host),
            Self::NoSocket { looked } => t!(m, "engine-no-socket", looked = looked.join(", ")),
            Self::NoneAnswers(errors) => {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                all.join("; ")
            }
            Self::Silent { endpoint, source } => t!(
                m,
                "engine-silent",
                endpoint = endpoint.to_string(),
                source = source.to_string()
            ),
            Self::PingRefused { engine, status } => t!(
                m,
                "engine-ping-refused",
                engine = engine.to_string(),
                status = status.to_string()
            ),
            Self::PingNotHttp { engine } => {
                t!(m, "engine-ping-not-http", engine = engine.to_string())
            }
            Self::Call {
                engine,
                call,
                source,
            } => t!(
                m,
                "engine-call",
                engine = engine.to_string(),
                call = call,
                source = source.to_string()
            ),
            Self::NotHttp {
                engine,
                call,
                start,
            } => t!(
                m,
                "engine-not-http",
                engine = engine.to_string(),
                call = call,
                start = format!("{start:?}")
            ),
            Self::Refused {
                engine,
                doing,
                status,
                message,
            } => t!(
                m,
                "engine-refused",
                engine = engine.to_string(),
                doing = doing,
                status = status.to_string(),
                message = message
            ),
            Self::PullNotSent {
                engine,
                image,
                source,
            } => t!(
                m,
                "engine-pull-not-sent",
                engine = engine.to_string(),
                image = image,
                source = source.to_string()
            ),
            Self::NoRegistry { bound, source } => t!(
                m,
                "engine-no-registry",
                seconds = crate::messages::bound(*bound),
                source = source.to_string()
            ),
            Self::PullStalled {
                after: None,
                source,
            } => t!(m, "engine-pull-stalled", source = source.to_string()),
            Self::PullStalled {
                after: Some(after),
                source,
            } => t!(
                m,
                "engine-pull-stalled-after",
                seconds = format!("{after:.0}"),
                source = source.to_string()
            ),
            Self::PullFailed(said) => t!(m, "engine-pull-failed", said = said),
            Self::PullStatus { status, last } => {
                t!(m, "engine-pull-status", status = status, last = last)
            }
        };
        f.write_str(&said)
    }
}

#[cfg(feature = "containers")]
impl fmt::Display for ContainerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &crate::messages::MESSAGES;
        let said = match self {
            Self::Engine(e) => e.to_string(),
            Self::NoImage { engine, image, why } => t!(
                m,
                "container-no-image",
                engine = engine.to_string(),
                image = image,
                why = why.to_string()
            ),
            Self::Start {
                engine,
                image,
                name: None,
                source,
            } => t!(
                m,
                "container-start",
                engine = engine.to_string(),
                image = image,
                source = source.to_string()
            ),
            Self::Start {
                engine,
                image,
                name: Some(name),
                source,
            } => t!(
                m,
                "container-start-named",
                engine = engine.to_string(),
                image = image,
                name = name,
                source = source.to_string()
            ),
            Self::NoPort {
                engine,
                container,
                source,
            } => t!(
                m,
                "container-no-port",
                engine = engine.to_string(),
                container = container,
                source = source.to_string()
            ),
            Self::NotAnswering {
                engine,
                container,
                source,
            } => t!(
                m,
                "container-not-answering",
                engine = engine.to_string(),
                container = container,
                source = source.to_string()
            ),
            Self::Supervisor(source) => {
                t!(m, "container-supervisor", source = source.to_string())
            }
            Self::RemovedMeanwhile { engine, container } => t!(
                m,
                "container-removed-meanwhile",
                engine = engine.to_string(),
                container = container
            ),
        };
        f.write_str(&said)
    }
}

impl fmt::Display for LocalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &crate::messages::MESSAGES;
        let shown = |path: &PathBuf| path.display().to_string();
        let said = match self {
            Self::NoBinaries => t!(m, "local-no-binaries"),
            Self::NoAccountButRoot => t!(m, "local-no-account-but-root"),
            Self::NoSuchAccount(account) => t!(m, "local-no-such-account", account = account),
            Self::NulInAccount(account) => {
                t!(m, "local-nul-in-account", account = format!("{account:?}"))
            }
            Self::NotADirectory { var, dir } => t!(
                m,
                "local-not-a-directory",
                variable = *var,
                dir = shown(dir)
            ),
            Self::Unreachable { user, dir, mode } => t!(
                m,
                "local-unreachable",
                user = user,
                dir = shown(dir),
                mode = format!("{mode:o}")
            ),
            Self::File {
                action,
                path,
                source,
            } => {
                let (path, source) = (shown(path), source.to_string());
                match *action {
                    "create" => t!(m, "local-cannot-create", path = path, source = source),
                    "list" => t!(m, "local-cannot-list", path = path, source = source),
                    "remove" => t!(m, "local-cannot-remove", path = path, source = source),
                    _ => t!(m, "local-cannot-read", path = path, source = source),
                }
            }
            Self::Run { program, source } => t!(
                m,
                "local-run",
                program = program,
                source = source.to_string()
            ),
            Self::Initdb(said) => t!(m, "local-initdb", said = said),
            Self::BadSetting(name) => t!(m, "local-bad-setting", name = format!("{name:?}")),
            Self::Prepare(said) => t!(m, "local-prepare", said = said),
            Self::Shell(said) => t!(m, "local-shell", said = said),
            Self::Copy { cache, run, source } => t!(
                m,
                "local-copy",
                cache = shown(cache),
                run = shown(run),
                source = source.to_string()
            ),
            Self::Supervisor(said) => t!(m, "local-supervisor", said = format!("{said:?}")),
            Self::NotStarted { source, log } => t!(
                m,
                "local-not-started",
                source = source.to_string(),
                log = log
            ),
        };
        f.write_str(&said)
    }
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &crate::messages::MESSAGES;
        let said = match self {
            Self::NotSet => t!(m, "url-not-set"),
            Self::NotPostgres { shown, source } => t!(
                m,
                "url-not-postgres",
                url = shown,
                source = source.to_string()
            ),
            Self::Unreachable { shown, source } => t!(
                m,
                "url-unreachable",
                url = shown,
                source = source.to_string()
            ),
            Self::MayNotCreate { shown, why } => {
                t!(m, "url-may-not-create", url = shown, why = why.to_string())
            }
        };
        f.write_str(&said)
    }
}

impl fmt::Display for CreateDbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &crate::messages::MESSAGES;
        let said = match self {
            Self::Connect(source) => t!(m, "createdb-connect", source = source.to_string()),
            Self::ReadRole(source) => t!(m, "createdb-read-role", source = source.to_string()),
            Self::NotAllowed { role } => without_createdb(role),
        };
        f.write_str(&said)
    }
}

impl fmt::Display for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &crate::messages::MESSAGES;
        let said = match self {
            Self::UnknownChoice(value) => {
                t!(m, "attempt-unknown-choice", value = format!("{value:?}"))
            }
            Self::NoUrl => t!(m, "attempt-no-url"),
            Self::Url(e) => e.to_string(),
            Self::NoEngine(why) => t!(m, "attempt-no-engine", why = why.to_string()),
            Self::ContainerForced(why) => {
                t!(m, "attempt-container-forced", why = why.to_string())
            }
            #[cfg(feature = "containers")]
            Self::Container(e) => e.to_string(),
            Self::NoContainerClient { engine } => t!(
                m,
                "attempt-no-container-client",
                engine = engine.to_string()
            ),
            Self::BadHandover(why) => t!(
                m,
                "attempt-bad-handover",
                variable = HANDOVER_VAR,
                why = why
            ),
            Self::Local(e) => e.to_string(),
            Self::Runtime(source) => t!(m, "attempt-runtime", source = source.to_string()),
            Self::Panicked => t!(m, "attempt-panicked"),
        };
        f.write_str(&said)
    }
}

/// The message for a role without CREATEDB.
pub fn without_createdb(role: &str) -> String {
    t!(crate::messages::MESSAGES, "without-createdb", role = role)
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
        writeln!(f, "{}", t!(crate::messages::MESSAGES, "no-server-tried"))?;
        for line in &self.tried {
            writeln!(f, "  - {line}")?;
        }
        write!(f, "{}", t!(crate::messages::MESSAGES, "no-server-ways-out"))
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
