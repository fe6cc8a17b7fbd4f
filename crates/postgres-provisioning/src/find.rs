//! Which PostgreSQL the tests use, and why: the server a parent process handed
//! over, or else the first of `DATABASE_URL`, a container, local binaries (or the
//! one `WORKBOOK_DB` forces), found once per process.

use std::sync::OnceLock;
use std::time::Instant;

use sqlx::postgres::PgConnectOptions;

use crate::backend::{Backend, BackendChoice, HANDOVER_VAR};
#[cfg(feature = "containers")]
use crate::container;
use crate::databases;
#[cfg(feature = "containers")]
use crate::endpoint::Endpoint;
use crate::endpoint::Engine;
use crate::engine;
use crate::error::{Attempt, NoServer, UrlError};
use crate::local;
use crate::notice::{Notice, announce, tell};

/// The server handed over to this process, if any.
fn handed_over() -> Result<Option<Backend>, Attempt> {
    match std::env::var_os(HANDOVER_VAR).filter(|v| !v.is_empty()) {
        Some(text) => from_handover(&text.to_string_lossy()).map(Some),
        None => Ok(None),
    }
}

/// The server a [`Backend::handover`] describes.
fn from_handover(text: &str) -> Result<Backend, Attempt> {
    let bad = |why: &str| Attempt::BadHandover(why.to_owned());
    let handover: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
    let choice = match handover["choice"].as_str() {
        Some("container") => BackendChoice::Container,
        Some("local") => BackendChoice::Local,
        _ => return Err(bad("no choice of container or local")),
    };
    let admin = handover["url"]
        .as_str()
        .ok_or_else(|| bad("no url"))?
        .parse::<PgConnectOptions>()
        .map_err(|e| bad(&e.to_string()))?;
    let max_connections = handover["max_connections"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| bad("no max_connections"))?;
    Ok(Backend {
        choice,
        admin,
        description: handover["description"].as_str().map_or_else(
            || l10n::t!(crate::messages::MESSAGES, "described-handed-over"),
            str::to_owned,
        ),
        max_connections,
        handed_over: true,
    })
}

/// The server `WORKBOOK_DB` forces, if any.
fn forced_choice() -> Result<Option<BackendChoice>, NoServer> {
    match std::env::var("WORKBOOK_DB") {
        Err(_) => Ok(None),
        Ok(value) => match value.trim() {
            "" => Ok(None),
            "url" => Ok(Some(BackendChoice::Url)),
            "container" => Ok(Some(BackendChoice::Container)),
            "local" => Ok(Some(BackendChoice::Local)),
            other => Err(NoServer::new(Attempt::UnknownChoice(other.to_owned()))),
        },
    }
}

static BACKEND: OnceLock<Result<Backend, NoServer>> = OnceLock::new();

/// The server of this test process, started on first use.
///
/// The first caller prints which server was chosen; when none can be had, every
/// caller gets the same error.
pub fn backend() -> Result<&'static Backend, &'static NoServer> {
    BACKEND
        .get_or_init(|| {
            // Starting a server awaits connections; do it on a runtime of its own so
            // that it works from any test, async or not.
            let found = std::thread::spawn(find)
                .join()
                .unwrap_or_else(|_| Err(NoServer::new(Attempt::Panicked)));
            match &found {
                Ok(backend) => announce(&l10n::t!(
                    crate::messages::MESSAGES,
                    "harness-note",
                    description = &backend.description
                )),
                Err(_) => {
                    tell(Notice::NoServer);
                }
            }
            found
        })
        .as_ref()
}

fn find() -> Result<Backend, NoServer> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| NoServer::new(Attempt::Runtime(e)))?;
    // The runner started the server already (and chose it as below).
    if let Some(backend) = handed_over().map_err(NoServer::new)? {
        return Ok(backend);
    }
    runtime.block_on(async {
        match forced_choice()? {
            Some(BackendChoice::Url) => from_url().await,
            Some(BackendChoice::Container) => {
                let engine =
                    engine::engine().map_err(|why| NoServer::new(Attempt::ContainerForced(why)))?;
                container_on(&engine).await.map_err(NoServer::new)
            }
            Some(BackendChoice::Local) => Ok(local::start().await?),
            None => {
                if std::env::var_os("DATABASE_URL").is_some() {
                    return from_url().await;
                }
                let docker = match engine::engine() {
                    Ok(engine) => match container_on(&engine).await {
                        Ok(backend) => return Ok(backend),
                        Err(e) => {
                            // One line, then the next way: a learner without a
                            // registry still gets a verdict, in seconds.
                            announce(&l10n::t!(
                                crate::messages::MESSAGES,
                                "harness-trying-local",
                                why = e.to_string()
                            ));
                            NoServer::new(e)
                        }
                    },
                    Err(why) => NoServer::new(Attempt::NoEngine(why)),
                };
                local::start().await.map_err(|e| {
                    NoServer::new(Attempt::NoUrl)
                        .and(docker)
                        .and(NoServer::new(e))
                })
            }
        }
    })
}

/// Starts the container on `engine`, making sure testcontainers talks to the same one.
#[cfg(feature = "containers")]
async fn container_on(engine: &Engine) -> Result<Backend, Attempt> {
    let default = Endpoint::Unix("/var/run/docker.sock".into());
    if std::env::var_os("DOCKER_HOST").is_none() && engine.endpoint != default {
        // testcontainers reads DOCKER_HOST only from the environment. Set once, on
        // the thread that starts the server, before testcontainers reads it.
        // SAFETY: the other test threads wait in `backend()` for this server; no
        // code of ours reads the environment concurrently (std's own readers are
        // serialised with this write by std's environment lock).
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var("DOCKER_HOST", engine.endpoint.docker_host());
        }
    }
    Ok(container::start(engine).await?)
}

/// Without the container client, a container is what the runner hands over.
#[cfg(not(feature = "containers"))]
async fn container_on(engine: &Engine) -> Result<Backend, Attempt> {
    Err(Attempt::NoContainerClient {
        engine: engine.clone(),
    })
}

async fn from_url() -> Result<Backend, NoServer> {
    let url = std::env::var("DATABASE_URL").map_err(|_| UrlError::NotSet)?;
    Ok(url_backend(&url).await?)
}

/// The server at `url`, if the harness may create databases there. Databases that
/// killed runs of this machine left on it are dropped first.
pub async fn url_backend(url: &str) -> Result<Backend, UrlError> {
    let started = Instant::now();
    let shown = redact(url);
    let admin: PgConnectOptions = url.parse().map_err(|source| UrlError::NotPostgres {
        shown: shown.clone(),
        source,
    })?;
    let max_connections =
        databases::probe(&admin)
            .await
            .map_err(|source| UrlError::Unreachable {
                shown: shown.clone(),
                source,
            })?;
    databases::may_create_databases(&admin)
        .await
        .map_err(|why| UrlError::MayNotCreate {
            shown: shown.clone(),
            why,
        })?;
    databases::drop_databases_of_dead_runs(&admin).await;
    Ok(Backend {
        choice: BackendChoice::Url,
        admin,
        description: l10n::t!(
            crate::messages::MESSAGES,
            "described-url",
            url = &shown,
            seconds = crate::messages::seconds(started.elapsed().as_secs_f64())
        ),
        max_connections,
        handed_over: false,
    })
}

/// Hides the password of a URL before it is printed.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{from_handover, redact};
    use crate::backend::{Backend, BackendChoice};
    use sqlx::postgres::PgConnectOptions;

    fn backend(choice: BackendChoice, admin: PgConnectOptions) -> Backend {
        Backend {
            choice,
            admin,
            description: "PostgreSQL 15.18 from local binaries, started in 0.12 s".to_owned(),
            max_connections: 300,
            handed_over: false,
        }
    }

    #[test]
    fn a_handed_over_server_is_the_same_server_and_is_known_as_handed_over() {
        let cluster = PgConnectOptions::new()
            .socket("/dev/shm/workbook-pg.123.456")
            .port(5432)
            .username("postgres")
            .database("postgres");
        let handover = backend(BackendChoice::Local, cluster)
            .handover()
            .expect("a local cluster is handed over");
        let got = from_handover(&handover).expect("the handover reads back");
        assert_eq!(
            got.choice,
            BackendChoice::Local,
            "the choice changed on the way"
        );
        assert_eq!(
            got.admin.get_socket().map(|s| s.display().to_string()),
            Some("/dev/shm/workbook-pg.123.456".to_owned()),
            "the cluster's socket directory changed on the way"
        );
        assert_eq!(got.admin.get_port(), 5432, "the port changed on the way");
        assert_eq!(
            got.admin.get_username(),
            "postgres",
            "the user changed on the way"
        );
        assert_eq!(
            got.max_connections, 300,
            "max_connections changed on the way"
        );
        assert!(
            got.description
                .starts_with("PostgreSQL 15.18 from local binaries"),
            "the description changed on the way: {}",
            got.description
        );
        assert!(
            got.handed_over,
            "a handed-over server was not marked as such"
        );

        let container = PgConnectOptions::new()
            .host("127.0.0.1")
            .port(32768)
            .username("postgres")
            .password("postgres")
            .database("postgres");
        let handover = backend(BackendChoice::Container, container)
            .handover()
            .expect("a container is handed over");
        let got = from_handover(&handover).expect("the handover reads back");
        assert_eq!(
            got.choice,
            BackendChoice::Container,
            "the choice changed on the way"
        );
        assert_eq!(
            got.admin.get_host(),
            "127.0.0.1",
            "the host changed on the way"
        );
        assert_eq!(got.admin.get_port(), 32768, "the port changed on the way");
    }

    #[test]
    fn database_url_is_not_handed_over_and_a_bad_handover_names_its_variable() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let url = PgConnectOptions::new().host("db").database("postgres");
        assert!(
            backend(BackendChoice::Url, url).handover().is_none(),
            "DATABASE_URL was handed over: the test process reads it itself"
        );
        let why = from_handover("{\"choice\":\"local\"}")
            .expect_err("a handover without a URL was accepted")
            .to_string();
        assert!(
            why.starts_with("WORKBOOK_SERVER does not describe a server (no url)"),
            "{why}"
        );
    }

    #[test]
    fn a_url_password_is_not_printed() {
        assert_eq!(
            redact("postgres://app:secret@db:5432/postgres"),
            "postgres://app:***@db:5432/postgres"
        );
        assert_eq!(redact("postgres://db/postgres"), "postgres://db/postgres");
    }
}
