//! A PostgreSQL container through testcontainers, when a container engine answers.
//!
//! - The image is `postgres:15-alpine`, or `WORKBOOK_PG_IMAGE`. One that is not
//!   here is pulled, but a registry that does not answer within seconds ends the
//!   attempt (the harness then falls back to local binaries).
//! - The data directory is a tmpfs and `fsync` is off: a throwaway server gains
//!   nothing from a disk, and creating a database on one costs ten times more.
//! - On this machine's engine, the server's port is published on 127.0.0.1 only,
//!   and the server trusts every login, as the local cluster does on its Unix
//!   socket (see [`Access`]); a remote engine's container asks for a password.
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

use std::collections::HashMap;
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use l10n::t;
use sqlx::postgres::PgConnectOptions;
use testcontainers_modules::postgres::Postgres;
use testcontainers_modules::testcontainers::TestcontainersError;
use testcontainers_modules::testcontainers::bollard::errors::Error as BollardError;
use testcontainers_modules::testcontainers::bollard::models::{HostConfig, PortBinding};
use testcontainers_modules::testcontainers::core::Mount;
use testcontainers_modules::testcontainers::core::error::ClientError;
use testcontainers_modules::testcontainers::runners::AsyncRunner;
use testcontainers_modules::testcontainers::{ContainerRequest, ImageExt};

use crate::backend::{Backend, BackendChoice};
use crate::cleanup::{alive, at_exit, host_name};
use crate::databases::drop_databases_of_dead_runs;
use crate::endpoint::Engine;
use crate::engine::split_image;
use crate::error::{ContainerError, EngineError};
use crate::notice::announce;

/// The image learners get: the official one, small, pulled once.
pub const DEFAULT_IMAGE: &str = "postgres:15-alpine";

/// The one container kept between the learner's runs.
pub const KEPT_CONTAINER: &str = "idempotency-workbook-pg";

/// Labels on every container the harness starts, so that it can be found.
const KIND: &str = "idempotency-workbook.kind";
const OWNER_PID: &str = "idempotency-workbook.owner-pid";
const OWNER_HOST: &str = "idempotency-workbook.owner-host";
/// What the container was made with ([`settings`]): a kept container made with
/// other settings is replaced.
const SETTINGS: &str = "idempotency-workbook.settings";

/// Changes whenever [`request`] changes what a container is.
const SETTINGS_REVISION: u32 = 2;

fn settings(access: Access) -> String {
    format!("{} r{SETTINGS_REVISION}", access.label())
}

/// How the harness logs in to the server in its container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The port is published on 127.0.0.1 only, and the server trusts every login
    /// (`POSTGRES_HOST_AUTH_METHOD=trust`): what the local cluster does on its Unix
    /// socket. A scram-sha-256 login costs the client 4096 rounds of HMAC-SHA-256:
    /// about 40 ms of CPU in the tests' unoptimised build of sqlx (6 ms optimised),
    /// so the 20 connections a burst opens at once took 0.8 s on a loaded 2-core
    /// machine, and more than the pool's 2 s acquire timeout beside a build. A
    /// trusted login takes 3 to 5 ms.
    TrustOnLoopback,
    /// A remote engine publishes the port on its own host, where others may reach
    /// it: the server asks for the password (scram-sha-256).
    Password,
}

impl Access {
    /// Loopback when the engine publishes ports on this machine.
    pub fn of(engine: &Engine) -> Self {
        match engine.endpoint.published_host().as_str() {
            "127.0.0.1" | "localhost" | "::1" => Self::TrustOnLoopback,
            _ => Self::Password,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::TrustOnLoopback => "trust-on-127.0.0.1",
            Self::Password => "scram-sha-256",
        }
    }
}

/// How long a registry has to start answering a pull.
const REGISTRY_BOUND: Duration = Duration::from_secs(5);

/// After this long without a word from a registry, the harness says it waits.
const REGISTRY_PATIENCE: Duration = Duration::from_secs(1);

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

impl Running {
    /// How it came to be, as its description says.
    fn said_how(&self) -> String {
        match self.how {
            "throwaway" => t!(crate::messages::MESSAGES, "container-how-throwaway"),
            "kept" => t!(crate::messages::MESSAGES, "container-how-kept"),
            _ => t!(crate::messages::MESSAGES, "container-how-kept-new"),
        }
    }
}

pub async fn start(engine: &Engine) -> Result<Backend, ContainerError> {
    let started = Instant::now();
    let image = image();
    ensure_image(engine, &image)?;
    let access = Access::of(engine);
    let running = if keep_requested() {
        start_kept(engine, &image, access).await?
    } else {
        start_throwaway(engine, &image, access).await?
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
        .map_err(|source| ContainerError::NotAnswering {
            engine: engine.clone(),
            container: running.name.clone(),
            source,
        })?;
    if running.how != "throwaway" {
        drop_databases_of_dead_runs(&admin).await;
    }
    Ok(Backend {
        choice: BackendChoice::Container,
        admin,
        description: t!(
            crate::messages::MESSAGES,
            "described-container",
            image = image,
            how = running.said_how(),
            name = &running.name,
            host = &host,
            port = running.port.to_string(),
            engine = engine.to_string(),
            seconds = crate::messages::seconds(started.elapsed().as_secs_f64())
        ),
        max_connections,
        handed_over: false,
    })
}

/// Makes sure the engine has the image: pulls it when a registry answers in time.
fn ensure_image(engine: &Engine, image: &str) -> Result<(), ContainerError> {
    if engine.has_image(image)? {
        return Ok(());
    }
    announce(&t!(
        crate::messages::MESSAGES,
        "harness-pulling",
        image = image
    ));
    let still_waiting = || {
        announce(&t!(
            crate::messages::MESSAGES,
            "harness-waiting-for-registry",
            seconds = REGISTRY_BOUND.as_secs().to_string()
        ))
    };
    engine
        .pull(image, REGISTRY_BOUND, REGISTRY_PATIENCE, still_waiting)
        .map_err(|why| ContainerError::NoImage {
            engine: engine.clone(),
            image: image.to_owned(),
            why: Box::new(why),
        })
}

/// What every container of the harness runs: the image, the server's settings,
/// the data directory in memory, how the harness logs in, where its processes
/// compete for CPU.
fn request(image: &str, access: Access, cpu: CpuPlace) -> ContainerRequest<Postgres> {
    let (name, tag) = split_image(image);
    let postgres = match access {
        Access::TrustOnLoopback => Postgres::default().with_host_auth(),
        Access::Password => Postgres::default(),
    };
    postgres
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
        .with_label(SETTINGS, settings(access))
        .with_host_config_modifier(move |config| {
            if access == Access::TrustOnLoopback {
                publish_on_loopback(config);
            }
            if cpu == CpuPlace::BesideTheTests {
                config.cgroup_parent = Some("/".to_owned());
                config.cpu_shares = Some(BURST_CPU_SHARES);
            }
        })
}

/// Publishes 5432 on 127.0.0.1 only, on a port the engine picks (testcontainers
/// publishes every exposed port on all interfaces).
fn publish_on_loopback(config: &mut HostConfig) {
    config.publish_all_ports = Some(false);
    config.port_bindings = Some(HashMap::from([(
        "5432/tcp".to_owned(),
        Some(vec![PortBinding {
            host_ip: Some("127.0.0.1".to_owned()),
            host_port: None,
        }]),
    )]));
}

/// Where the server's processes compete for CPU with the tests and the rest of
/// the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CpuPlace {
    /// The engine's own choice.
    EnginesChoice,
    /// Beside the test process, in a cgroup of its own under the root, weighted
    /// as the backends of a burst would be if they ran outside a container.
    ///
    /// With the cgroupfs driver, every container lives under the engine's
    /// `/docker` cgroup, which weighs as ONE process against every process
    /// outside it: on a loaded machine (a build beside the tests) all of the
    /// server's backends shared one process's slice of the CPU. Stage 3's tests,
    /// same binary, same server settings, ten interleaved runs at load 8 to 12
    /// on 2 cores: median 846 ms in `/docker`, 544 ms with a local cluster,
    /// 356 ms here. (The systemd driver puts containers in `system.slice`, a
    /// peer of the user's session, and allows no other kind of parent.)
    BesideTheTests,
}

/// `cpu.shares` of a plain process is 1024; a burst runs 20 backends at once.
const BURST_CPU_SHARES: i64 = 20 * 1024;

impl CpuPlace {
    fn of(engine: &Engine) -> Self {
        match engine.cgroup_driver().as_deref() {
            Ok("cgroupfs") => Self::BesideTheTests,
            _ => Self::EnginesChoice,
        }
    }
}

/// Starts testcontainers' request and returns the host port of 5432. The handle is
/// forgotten on purpose: the harness removes the container itself (module docs).
async fn create(
    engine: &Engine,
    image: &str,
    kept: bool,
    request: ContainerRequest<Postgres>,
) -> Result<u16, ContainerError> {
    let container = request
        .start()
        .await
        .map_err(|source| ContainerError::Start {
            engine: engine.clone(),
            image: image.to_owned(),
            name: kept.then(|| KEPT_CONTAINER.to_owned()),
            source: Box::new(source),
        })?;
    let port = container.get_host_port_ipv4(5432).await;
    let id = container.id().to_owned();
    std::mem::forget(container);
    port.map_err(|source| {
        let _ = engine.remove(&id);
        ContainerError::NoPort {
            engine: engine.clone(),
            container: id,
            source: Box::new(source),
        }
    })
}

/// Whether the engine refused to create a container because one of that name
/// exists (HTTP 409): another run created the kept container first.
fn name_taken(error: &ContainerError) -> bool {
    matches!(
        error,
        ContainerError::Start { source, .. } if matches!(
            source.as_ref(),
            TestcontainersError::Client(ClientError::CreateContainer(
                BollardError::DockerResponseServerError { status_code: 409, .. }
            ))
        )
    )
}

async fn start_throwaway(
    engine: &Engine,
    image: &str,
    access: Access,
) -> Result<Running, ContainerError> {
    sweep_dead_owners(engine);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = format!("idempotency-workbook-{}-{nanos:09}", std::process::id());
    // The supervisor first: a kill between here and the container's start is
    // covered by it or, failing that, by the next sweep.
    Supervisor::spawn(engine, &name)?;
    let request = request(image, access, CpuPlace::of(engine))
        .with_container_name(&name)
        .with_label(KIND, "throwaway")
        .with_label(OWNER_PID, std::process::id().to_string())
        .with_label(OWNER_HOST, host_name());
    let port = create(engine, image, false, request).await?;
    Ok(Running {
        name,
        port,
        how: "throwaway",
    })
}

async fn start_kept(
    engine: &Engine,
    image: &str,
    access: Access,
) -> Result<Running, ContainerError> {
    // Two runs may race to create it: the loser finds the winner's on its second look.
    for look in 0..2 {
        if let Some(info) = engine.inspect(KEPT_CONTAINER)? {
            let running = info["State"]["Running"].as_bool() == Some(true);
            let same_image = info["Config"]["Image"].as_str() == Some(image);
            let same_settings =
                info["Config"]["Labels"][SETTINGS].as_str() == Some(settings(access).as_str());
            match published_port(&info) {
                Some(port) if running && same_image && same_settings => {
                    return Ok(Running {
                        name: KEPT_CONTAINER.to_owned(),
                        port,
                        how: "kept",
                    });
                }
                // Stopped (its tmpfs is empty now), of another image or made with
                // other settings: start afresh.
                _ => engine.remove(KEPT_CONTAINER)?,
            }
        }
        let request = request(image, access, CpuPlace::of(engine))
            .with_container_name(KEPT_CONTAINER)
            .with_label(KIND, "kept");
        match create(engine, image, true, request).await {
            Ok(port) => {
                announce(&t!(
                    crate::messages::MESSAGES,
                    "harness-started-kept",
                    container = KEPT_CONTAINER
                ));
                return Ok(Running {
                    name: KEPT_CONTAINER.to_owned(),
                    port,
                    how: "kept (new)",
                });
            }
            Err(e) if look == 0 && name_taken(&e) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(ContainerError::RemovedMeanwhile {
        engine: engine.clone(),
        container: KEPT_CONTAINER.to_owned(),
    })
}

fn published_port(info: &serde_json::Value) -> Option<u16> {
    info["NetworkSettings"]["Ports"]["5432/tcp"]
        .as_array()?
        .iter()
        .find_map(|binding| binding["HostPort"].as_str()?.parse().ok())
}

/// The kept container, as `cargo workbook doctor` shows it: `None` when there is none.
pub fn kept_container(engine: &Engine) -> Result<Option<String>, EngineError> {
    let Some(info) = engine.inspect(KEPT_CONTAINER)? else {
        return Ok(None);
    };
    let image = info["Config"]["Image"].as_str().unwrap_or("?");
    let state = info["State"]["Status"].as_str().unwrap_or("?");
    Ok(Some(match published_port(&info) {
        Some(port) => t!(
            crate::messages::MESSAGES,
            "kept-container",
            container = KEPT_CONTAINER,
            image = image,
            state = state,
            host = engine.endpoint.published_host(),
            port = port.to_string()
        ),
        None => t!(
            crate::messages::MESSAGES,
            "kept-container-no-port",
            container = KEPT_CONTAINER,
            image = image,
            state = state
        ),
    }))
}

/// Removes the kept container (`cargo workbook db-stop`); false when there was none.
pub fn remove_kept_container(engine: &Engine) -> Result<bool, EngineError> {
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

/// Polls until the server answers (bounded): a kept container found by another
/// run may still be initialising.
async fn wait_until_ready(admin: &PgConnectOptions, bound: Duration) -> Result<u32, sqlx::Error> {
    let deadline = Instant::now() + bound;
    loop {
        match crate::databases::probe(admin).await {
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
    fn spawn(engine: &Engine, name: &str) -> Result<(), ContainerError> {
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
            .map_err(ContainerError::Supervisor)?;
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
