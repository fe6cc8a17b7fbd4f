//! A PostgreSQL container through testcontainers, when a container engine answers.
//!
//! - The image is `postgres:15-alpine`, or `WORKBOOK_PG_IMAGE`. One that is not
//!   here is pulled, but a registry that does not answer within seconds ends the
//!   attempt (the harness then falls back to local binaries).
//! - The data directory is a tmpfs and `fsync` is off: a throwaway server gains
//!   nothing from a disk, and creating a database on one costs ten times more.
//! - Throwaway containers (plain `cargo test`, CI) carry the labels below, are
//!   removed when their test process exits, and after a `kill -9` by a small
//!   supervisor process, as the local backend's server is (see `local.rs`). One
//!   whose owner died anyway (killed while it was being created) is swept away by
//!   the next test process that starts a container.
//! - With `WORKBOOK_KEEP_CONTAINER=1` (the runner sets it for `cargo workbook stage N` outside
//!   CI) the harness uses ONE named container, `idempotency-workbook-pg`, and leaves
//!   it running for the next run: a few milliseconds instead of a container start.
//!   `cargo workbook db-stop` removes it.
//!
//! testcontainers' own clean-up (the `Drop` of `ContainerAsync`) needs the async
//! runtime that started the container, which is gone long before the process
//! exits. The harness removes its containers itself, with plain calls of the
//! engine's API (`engine.rs`).

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};
use testcontainers_modules::postgres::Postgres;
use testcontainers_modules::testcontainers::core::Mount;
use testcontainers_modules::testcontainers::runners::AsyncRunner;
use testcontainers_modules::testcontainers::{ContainerRequest, ImageExt};

use crate::backend::{Backend, BackendChoice, NoServer, announce};
use crate::cleanup::at_exit;
use crate::engine::{Engine, split_image};

/// The image learners get: the official one, small, pulled once.
pub const DEFAULT_IMAGE: &str = "postgres:15-alpine";

/// The one container kept between the learner's runs.
pub const KEPT_CONTAINER: &str = "idempotency-workbook-pg";

/// Labels on every container the harness starts, so that it can be found.
const KIND: &str = "idempotency-workbook.kind";
const OWNER_PID: &str = "idempotency-workbook.owner-pid";
const OWNER_HOST: &str = "idempotency-workbook.owner-host";

/// How long a registry has to start answering a pull.
const REGISTRY_BOUND: Duration = Duration::from_secs(5);

/// The image the tests run: `WORKBOOK_PG_IMAGE`, or the official one.
pub fn image() -> String {
    std::env::var("WORKBOOK_PG_IMAGE")
        .ok()
        .map(|image| image.trim().to_owned())
        .filter(|image| !image.is_empty())
        .unwrap_or_else(|| DEFAULT_IMAGE.to_owned())
}

static KEEP: AtomicBool = AtomicBool::new(false);

/// Makes this process use the kept container, as `WORKBOOK_KEEP_CONTAINER=1` does
/// for a test process: `cargo workbook doctor` starts the server the way `cargo workbook stage N` will.
pub fn keep_container() {
    KEEP.store(true, Ordering::Relaxed);
}

/// Whether this process should use the kept container (the runner asks for it).
fn keep_requested() -> bool {
    KEEP.load(Ordering::Relaxed)
        || std::env::var("WORKBOOK_KEEP_CONTAINER").is_ok_and(|v| v.trim() == "1")
}

/// A container that answers, before it becomes a [`Backend`].
struct Running {
    name: String,
    port: u16,
    how: &'static str,
}

pub async fn start(engine: &Engine) -> Result<Backend, NoServer> {
    let started = Instant::now();
    let image = image();
    ensure_image(engine, &image)?;
    let running = if keep_requested() {
        start_kept(engine, &image).await?
    } else {
        start_throwaway(engine, &image).await?
    };
    let host = engine.endpoint.published_host();
    let admin = PgConnectOptions::new()
        .host(&host)
        .port(running.port)
        .username("postgres")
        .password("postgres")
        .database("postgres");
    let max_connections = wait_until_ready(&admin, Duration::from_secs(30))
        .await
        .map_err(|e| {
            NoServer::new(format!(
                "{engine}: the server in container {} does not answer: {e}",
                running.name
            ))
        })?;
    if running.how != "throwaway" {
        drop_databases_of_dead_runs(&admin).await;
    }
    Ok(Backend {
        choice: BackendChoice::Container,
        admin,
        description: format!(
            "{image} in {} container {} on {host}:{} ({engine}), ready in {:.2} s",
            running.how,
            running.name,
            running.port,
            started.elapsed().as_secs_f64()
        ),
        max_connections,
    })
}

/// Makes sure the engine has the image: pulls it when a registry answers in time.
fn ensure_image(engine: &Engine, image: &str) -> Result<(), NoServer> {
    if engine.has_image(image).map_err(NoServer::new)? {
        return Ok(());
    }
    announce(&format!(
        "harness: pulling {image} (once; the engine keeps it)"
    ));
    engine.pull(image, REGISTRY_BOUND).map_err(|why| {
        NoServer::new(format!(
            "{engine} answers, but it has no image {image} and cannot pull it ({why}). Without a \
             registry, `just docker-image` builds workbook-postgres:15 from Debian packages and \
             WORKBOOK_PG_IMAGE=workbook-postgres:15 uses it"
        ))
    })
}

/// What every container of the harness runs: the image, the server's settings,
/// the data directory in memory.
fn request(image: &str) -> ContainerRequest<Postgres> {
    let (name, tag) = split_image(image);
    Postgres::default()
        .with_name(name)
        .with_tag(tag)
        .with_cmd([
            "postgres",
            "-c",
            "fsync=off",
            "-c",
            "full_page_writes=off",
            "-c",
            "max_connections=300",
        ])
        .with_mount(Mount::tmpfs_mount("/var/lib/postgresql/data"))
        .with_startup_timeout(Duration::from_secs(60))
}

/// Starts testcontainers' request and returns the host port of 5432. The handle is
/// forgotten on purpose: the harness removes the container itself (module docs).
async fn create(engine: &Engine, request: ContainerRequest<Postgres>) -> Result<u16, String> {
    let container = request.start().await.map_err(|e| e.to_string())?;
    let port = container.get_host_port_ipv4(5432).await;
    let id = container.id().to_owned();
    std::mem::forget(container);
    port.map_err(|e| {
        let _ = engine.remove(&id);
        format!("no port published for 5432: {e}")
    })
}

async fn start_throwaway(engine: &Engine, image: &str) -> Result<Running, NoServer> {
    sweep_dead_owners(engine);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = format!("idempotency-workbook-{}-{nanos:09}", std::process::id());
    // The supervisor first: a kill between here and the container's start is
    // covered by it or, failing that, by the next sweep.
    Supervisor::spawn(engine, &name).map_err(NoServer::new)?;
    let request = request(image)
        .with_container_name(&name)
        .with_label(KIND, "throwaway")
        .with_label(OWNER_PID, std::process::id().to_string())
        .with_label(OWNER_HOST, host_name());
    let port = create(engine, request)
        .await
        .map_err(|e| NoServer::new(format!("{engine}: could not start {image}: {e}")))?;
    Ok(Running {
        name,
        port,
        how: "throwaway",
    })
}

async fn start_kept(engine: &Engine, image: &str) -> Result<Running, NoServer> {
    // Two runs may race to create it: the loser finds the winner's on its second look.
    for look in 0..2 {
        if let Some(info) = engine.inspect(KEPT_CONTAINER).map_err(NoServer::new)? {
            let running = info["State"]["Running"].as_bool() == Some(true);
            let same_image = info["Config"]["Image"].as_str() == Some(image);
            match published_port(&info) {
                Some(port) if running && same_image => {
                    return Ok(Running {
                        name: KEPT_CONTAINER.to_owned(),
                        port,
                        how: "kept",
                    });
                }
                // Stopped (its tmpfs is empty now) or of another image: start afresh.
                _ => engine.remove(KEPT_CONTAINER).map_err(NoServer::new)?,
            }
        }
        let request = request(image)
            .with_container_name(KEPT_CONTAINER)
            .with_label(KIND, "kept");
        match create(engine, request).await {
            Ok(port) => {
                announce(&format!(
                    "harness: started container {KEPT_CONTAINER}; it stays for the next runs \
                     (`cargo workbook db-stop` removes it)"
                ));
                return Ok(Running {
                    name: KEPT_CONTAINER.to_owned(),
                    port,
                    how: "kept (new)",
                });
            }
            Err(e) if look == 0 && e.contains("409") => continue,
            Err(e) => {
                return Err(NoServer::new(format!(
                    "{engine}: could not start {image} as {KEPT_CONTAINER}: {e}"
                )));
            }
        }
    }
    Err(NoServer::new(format!(
        "{engine}: {KEPT_CONTAINER} was removed while this run started it; run again"
    )))
}

fn published_port(info: &serde_json::Value) -> Option<u16> {
    info["NetworkSettings"]["Ports"]["5432/tcp"]
        .as_array()?
        .iter()
        .find_map(|binding| binding["HostPort"].as_str()?.parse().ok())
}

/// The kept container, as `cargo workbook doctor` shows it: `None` when there is none.
pub fn kept_container(engine: &Engine) -> Result<Option<String>, String> {
    let Some(info) = engine.inspect(KEPT_CONTAINER)? else {
        return Ok(None);
    };
    let image = info["Config"]["Image"].as_str().unwrap_or("?");
    let state = info["State"]["Status"].as_str().unwrap_or("?");
    Ok(Some(match published_port(&info) {
        Some(port) => format!(
            "{KEPT_CONTAINER} ({image}) is {state} on {}:{port}",
            engine.endpoint.published_host()
        ),
        None => format!("{KEPT_CONTAINER} ({image}) is {state}"),
    }))
}

/// Removes the kept container (`cargo workbook db-stop`); false when there was none.
pub fn remove_kept_container(engine: &Engine) -> Result<bool, String> {
    let existed = engine.inspect(KEPT_CONTAINER)?.is_some();
    engine.remove(KEPT_CONTAINER)?;
    Ok(existed)
}

/// Throwaway containers of this machine whose test process is gone: killed before
/// its supervisor could act, or while its container was being created.
fn sweep_dead_owners(engine: &Engine) {
    let Ok(containers) = engine.containers_labelled(&format!("{KIND}=throwaway")) else {
        return;
    };
    let here = host_name();
    for container in containers {
        let labels = &container["Labels"];
        let pid = labels[OWNER_PID]
            .as_str()
            .and_then(|p| p.parse::<i32>().ok());
        let host = labels[OWNER_HOST].as_str();
        if let (Some(pid), Some(id)) = (pid, container["Id"].as_str())
            && host == Some(here.as_str())
            && !alive(pid)
        {
            let _ = engine.remove(id);
        }
    }
}

/// In the kept container, databases of test processes that were killed (their
/// name carries the process id) would pile up: drop them.
async fn drop_databases_of_dead_runs(admin: &PgConnectOptions) {
    let Ok(mut conn) = PgConnection::connect_with(admin).await else {
        return;
    };
    let names: Vec<String> = sqlx::query_scalar(
        r"SELECT datname::text FROM pg_database WHERE datname ~ '^wb_(test|tmpl)_[0-9]+_'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap_or_default();
    for name in names {
        let pid = name.split('_').nth(2).and_then(|p| p.parse::<i32>().ok());
        if pid.is_some_and(|pid| !alive(pid)) {
            let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
            let _ = conn.execute(AssertSqlSafe(drop)).await;
        }
    }
    let _ = conn.close().await;
}

fn alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    #[allow(unsafe_code)]
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Names this machine in the owner label: several machines may share one engine.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| {
            let out = Command::new("uname").arg("-n").output().ok()?;
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        })
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}

/// Polls until the server answers (bounded): a kept container found by another
/// run may still be initialising.
async fn wait_until_ready(admin: &PgConnectOptions, bound: Duration) -> Result<u32, sqlx::Error> {
    let deadline = Instant::now() + bound;
    loop {
        match crate::db::probe(admin).await {
            Ok(max) => return Ok(max),
            Err(e) if Instant::now() > deadline => return Err(e),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// Removes the throwaway container when its test process is gone, however it went.
///
/// At a normal exit the harness removes the container itself and tells the
/// supervisor "done". When the test process is killed, its end of the pipe closes
/// without a word: the supervisor then removes the container with the docker CLI,
/// or with curl on the engine's socket. INT and TERM are ignored, so that a Ctrl-C
/// in the terminal cannot stop it before it has cleaned up.
const SUPERVISOR: &str = r#"
trap '' INT TERM HUP
read -r word || word=
[ "$word" = done ] && exit 0
docker rm -f -v "$1" >/dev/null 2>&1 && exit 0
case $DOCKER_HOST in
unix://*) curl -fsS -X DELETE --unix-socket "${DOCKER_HOST#unix://}" "http://engine/containers/$1?force=1&v=1" ;;
tcp://*) curl -fsS -X DELETE "http://${DOCKER_HOST#tcp://}/containers/$1?force=1&v=1" ;;
esac >/dev/null 2>&1
"#;

struct Supervisor;

static SUPERVISED: Mutex<Option<(Engine, String, Child)>> = Mutex::new(None);

impl Supervisor {
    fn spawn(engine: &Engine, name: &str) -> Result<(), String> {
        let child = Command::new("sh")
            .arg("-c")
            .arg(SUPERVISOR)
            .arg("sh")
            .arg(name)
            .env("DOCKER_HOST", engine.endpoint.docker_host())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not start the container's supervisor shell: {e}"))?;
        if let Ok(mut slot) = SUPERVISED.lock() {
            *slot = Some((engine.clone(), name.to_owned(), child));
        }
        at_exit(remove_at_exit);
        Ok(())
    }
}

/// At exit: remove the container, then release the supervisor (bounded waits, so
/// that nothing is left when `cargo test` returns).
fn remove_at_exit() {
    let Some((engine, name, mut child)) = SUPERVISED.lock().ok().and_then(|mut slot| slot.take())
    else {
        return;
    };
    let removed = engine.remove(&name).is_ok();
    if let Some(mut stdin) = child.stdin.take()
        && removed
    {
        let _ = stdin.write_all(b"done\n");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}
