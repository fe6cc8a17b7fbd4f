//! `cargo workbook api --stage N`: an HTTP stage's API served for real, on
//! 127.0.0.1, over a database of its own on the harness's PostgreSQL, until
//! Ctrl-C. Each HTTP stage's `api` example (tests/stageN_api.rs, shared by its
//! exercise and its model answer) is this, given its tables, its router and what
//! its service runs beside the route (stage 9: the reaper).
//!
//! `--instances K` serves K copies on consecutive ports over the one database,
//! each a process of its own (this program again, told the database's URL), as
//! a deployment behind a load balancer runs: whatever one keeps in memory, the
//! others do not see. `--port 0` takes free ports and prints them.
//!
//! Ctrl-C stops the copies, drops the database and stops whatever server the
//! harness started; a copy whose first process is gone (even by kill -9) sees
//! its stdin close and exits.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use harness::{PoolSize, Schema, TestDb, catalogue, t};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use tokio::net::TcpListener;

// What `cargo workbook api` says, in the learner's language
// (tests/locales/*/api_server.ftl).
catalogue!(pub(crate) static MESSAGES = "locales", "api_server");

/// What an HTTP stage serves.
pub struct Api {
    pub stage: u32,
    /// The stage's tables.
    pub schema: Schema,
    /// The table the stage keeps its keys in (its schema makes it): the printed
    /// `psql` shows it beside `payments`.
    pub keys_table: &'static str,
    /// The bearer token of the one client the database holds, for the stages
    /// whose keys belong to a client (8 on); `None` before.
    pub token: Option<&'static str>,
    pub router: fn(PgPool) -> Router,
    /// What the stage's service runs beside its route (stage 9's reaper), on
    /// each instance; `None` for nothing.
    pub background: Option<Background>,
}

/// A task a stage's service runs beside its route, as the book describes it.
pub struct Background {
    /// Starts it on the instance's pool; it stops when what this returns is
    /// dropped.
    pub start: fn(PgPool) -> Box<dyn Running>,
    /// What it is and how often it runs, for the welcome text.
    pub describe: fn() -> String,
}

/// A background task started by [`Background::start`].
pub trait Running: Send {
    /// False once the task ended on its own (it panicked).
    fn is_running(&self) -> bool;
}

/// An instance serving: its route on its listener, and its background task;
/// both stop when this is dropped.
pub struct Serving {
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    background: Option<Box<dyn Running>>,
}

impl Serving {
    /// True once the background task ended on its own; false while it runs, and
    /// when there is none.
    #[allow(dead_code)] // for the tests that include this file
    pub fn background_stopped(&self) -> bool {
        self.background.as_ref().is_some_and(|b| !b.is_running())
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// Serves `api`'s route on `listener` with `pool`, and starts its background task:
/// what every instance runs, the first and each copy.
pub fn start(api: &Api, listener: TcpListener, pool: PgPool) -> Serving {
    let background = api.background.as_ref().map(|b| (b.start)(pool.clone()));
    Serving {
        server: tokio::spawn(payment_model::serve(listener, (api.router)(pool))),
        background,
    }
}

/// The token of the client `api` creates for the stages with clients.
#[allow(dead_code)] // stage 6 has no clients
pub const TOKEN: &str = "api-token";

/// What each copy's pool may hold: the tests' pool of 10.
const POOL: u32 = 10;
/// How long the first process waits for each other copy to listen.
const COPY_READY_WITHIN: Duration = Duration::from_secs(30);

/// Why the API could not start (or stopped): each names what to do.
#[derive(Debug, thiserror::Error)]
enum ApiError {
    #[error("--port takes a number from 0 (any free port) to 65535")]
    PortArgument,
    #[error("--instances takes a number from 1 to 16")]
    InstancesArgument,
    #[error("--database-url takes a URL")]
    DatabaseUrlArgument,
    #[error("unknown argument {0:?} (only --port N and --instances K)")]
    UnknownArgument(String),
    #[error("{instances} instances from port {port} go past 65535: pick a lower --port")]
    PastLastPort { instances: u16, port: u16 },
    #[error(
        "cannot listen on 127.0.0.1:{port} ({source}): is another server there? \
         `cargo workbook api --port N` picks another (0: any free port)"
    )]
    Listen { port: u16, source: std::io::Error },
    #[error("cannot read the address it listens on: {0}")]
    ListenAddress(std::io::Error),
    #[error("cannot catch Ctrl-C: {0}")]
    CtrlC(#[from] ctrlc::Error),
    #[error(transparent)]
    Database(#[from] harness::TestDbError),
    #[error("cannot find this program to start another instance: {0}")]
    CurrentExe(std::io::Error),
    #[error("cannot start another instance: {0}")]
    StartCopy(std::io::Error),
    #[error("another instance started without a stdout to say where it listens")]
    CopyWithoutStdout,
    #[error("the instance on port {port} did not start within {within:?} (its error is above)")]
    CopyNotReady { port: u16, within: Duration },
    #[error("cannot connect to the first instance's database: {0}")]
    ConnectCopy(sqlx::Error),
}

impl ApiError {
    /// In the learner's language, for the mistakes a learner makes (an argument,
    /// a port in use); what only a broken machine meets keeps its English.
    fn said(&self) -> String {
        match self {
            Self::PortArgument => t!(MESSAGES, "api-port-argument"),
            Self::InstancesArgument => t!(MESSAGES, "api-instances-argument"),
            Self::UnknownArgument(given) => {
                t!(
                    MESSAGES,
                    "api-unknown-argument",
                    given = format!("{given:?}")
                )
            }
            Self::PastLastPort { instances, port } => t!(
                MESSAGES,
                "api-past-last-port",
                instances = *instances,
                port = *port
            ),
            Self::Listen { port, source } => t!(
                MESSAGES,
                "api-listen",
                port = *port,
                error = source.to_string()
            ),
            other => other.to_string(),
        }
    }
}

struct Args {
    port: u16,
    instances: u16,
    /// Set for the copies the first process starts: serve on this database.
    database_url: Option<String>,
}

pub fn main(api: Api) -> ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(why) => {
            eprintln!("api: {}", why.said());
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("api: cannot start a tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = match &args.database_url {
        Some(url) => runtime.block_on(serve_copy(&api, args.port, url)),
        None => runtime.block_on(serve_all(&api, &args)),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("api: {}", why.said());
            ExitCode::FAILURE
        }
    }
}

fn args() -> Result<Args, ApiError> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        port: 8080,
        instances: 1,
        database_url: None,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                parsed.port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .ok_or(ApiError::PortArgument)?;
            }
            "--instances" => {
                parsed.instances = args
                    .next()
                    .and_then(|k| k.parse().ok())
                    .filter(|k| (1..=16).contains(k))
                    .ok_or(ApiError::InstancesArgument)?;
            }
            "--database-url" => {
                parsed.database_url = Some(args.next().ok_or(ApiError::DatabaseUrlArgument)?);
            }
            other => {
                return Err(ApiError::UnknownArgument(other.to_owned()));
            }
        }
    }
    let last = u32::from(parsed.port) + u32::from(parsed.instances) - 1;
    if parsed.port != 0 && last > u32::from(u16::MAX) {
        return Err(ApiError::PastLastPort {
            instances: parsed.instances,
            port: parsed.port,
        });
    }
    Ok(parsed)
}

async fn listen(port: u16) -> Result<TcpListener, ApiError> {
    TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|source| ApiError::Listen { port, source })
}

/// The first process: the database, this copy, the others, and the way in.
async fn serve_all(api: &Api, args: &Args) -> Result<(), ApiError> {
    // The port first: a busy one is the likeliest mistake, and costs no database.
    let listener = listen(args.port).await?;
    let stopped = Arc::new(tokio::sync::Notify::new());
    let on_ctrl_c = stopped.clone();
    ctrlc::set_handler(move || on_ctrl_c.notify_one())?;

    let db = TestDb::try_create(api.schema).await?;
    if api.token.is_some() {
        // The client the printed commands send as (stage 8's clients table).
        db.execute(
            "INSERT INTO clients (name, token_hash) VALUES \
             ('api-client', encode(sha256(convert_to('api-token', 'UTF8')), 'hex'))",
        )
        .await;
    }
    let url = db.url();
    let mut addrs = vec![listener.local_addr().map_err(ApiError::ListenAddress)?];
    let mut copies = Copies(Vec::new());
    for i in 1..args.instances {
        let port = if args.port == 0 { 0 } else { args.port + i };
        let (child, addr) = start_copy(port, &url).await?;
        copies.0.push(child);
        addrs.push(addr);
    }
    let pool = db.pool(PoolSize::of(POOL));
    let serving = start(api, listener, pool.clone());
    println!("{}", welcome(api, &addrs, &db));

    stopped.notified().await;
    drop(serving);
    // The copies go before the database they are connected to.
    drop(copies);
    pool.close().await;
    let name = db.name().to_owned();
    drop(db);
    println!("\n{}", t!(MESSAGES, "api-stopped", name = name));
    Ok(())
}

/// The other copies, stopped when dropped.
struct Copies(Vec<Child>);

impl Drop for Copies {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts this program again as a copy on `port` over `url`; returns once it
/// listens, with the address it got.
async fn start_copy(port: u16, url: &str) -> Result<(Child, std::net::SocketAddr), ApiError> {
    let program = std::env::current_exe().map_err(ApiError::CurrentExe)?;
    let mut child = Command::new(program)
        .args(["--port", &port.to_string(), "--database-url", url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(ApiError::StartCopy)?;
    let stdout = child.stdout.take().ok_or(ApiError::CopyWithoutStdout)?;
    let first_line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).map(|_| line)
    });
    let line = match tokio::time::timeout(COPY_READY_WITHIN, first_line).await {
        Ok(Ok(Ok(line))) => line,
        _ => String::new(),
    };
    match line.trim().strip_prefix("listening ").map(str::parse) {
        Some(Ok(addr)) => Ok((child, addr)),
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            Err(ApiError::CopyNotReady {
                port,
                within: COPY_READY_WITHIN,
            })
        }
    }
}

/// A copy: this API on `port` over the database at `url`, until the first
/// process closes its stdin (it stopped, or was killed) or Ctrl-C.
async fn serve_copy(api: &Api, port: u16, url: &str) -> Result<(), ApiError> {
    let listener = listen(port).await?;
    let stopped = Arc::new(tokio::sync::Notify::new());
    let on_ctrl_c = stopped.clone();
    ctrlc::set_handler(move || on_ctrl_c.notify_one())?;
    let pool = PgPoolOptions::new()
        .max_connections(POOL)
        .connect(url)
        .await
        .map_err(ApiError::ConnectCopy)?;
    let addr = listener.local_addr().map_err(ApiError::ListenAddress)?;
    let serving = start(api, listener, pool.clone());
    println!("listening {addr}");
    let _ = std::io::stdout().flush();
    let orphaned = stopped.clone();
    std::thread::spawn(move || {
        // Nothing is ever written: end of input means the first process is gone.
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        orphaned.notify_one();
    });
    stopped.notified().await;
    drop(serving);
    pool.close().await;
    Ok(())
}

/// What is served, and the commands to try it.
fn welcome(api: &Api, addrs: &[std::net::SocketAddr], db: &TestDb) -> String {
    let which = if env!("CARGO_PKG_NAME").ends_with("-solution") {
        t!(MESSAGES, "api-the-model-answer")
    } else {
        t!(MESSAGES, "api-your-exercise")
    };
    let urls: Vec<String> = addrs.iter().map(|a| format!("http://{a}")).collect();
    let url = db.url();
    let auth = match api.token {
        Some(token) => format!(" -H 'Authorization: Bearer {token}'"),
        None => String::new(),
    };
    let instances = match urls.len() {
        1 => t!(MESSAGES, "api-on-one-instance", url = urls[0].as_str()),
        k => t!(
            MESSAGES,
            "api-on-instances",
            count = k,
            urls = urls.join(" ")
        ),
    };
    let served = t!(
        MESSAGES,
        "api-served",
        stage = api.stage,
        which = which,
        instances = instances,
        name = db.name()
    );
    let beside = match &api.background {
        Some(background) if urls.len() > 1 => format!(
            "\n{}",
            t!(
                MESSAGES,
                "api-beside-each-instance",
                what = (background.describe)()
            )
        ),
        Some(background) => format!(
            "\n{}",
            t!(MESSAGES, "api-beside-it", what = (background.describe)())
        ),
        None => String::new(),
    };
    // The commands are facts: the same in every language.
    let pay = format!(
        "curl -i {first}/payments{auth} -H 'Idempotency-Key: key-1' \
         -H 'content-type: application/json' -d '{{\"orderId\": 1, \"amount\": 100}}'",
        first = urls[0]
    );
    let look = format!(
        "psql '{url}' -c 'table payments' -c 'table {keys_table}'",
        keys_table = api.keys_table
    );
    let probe = format!(
        "cargo workbook probe {all}{auth} --database-url '{url}' \
         --count-sql 'select count(*) from payments'",
        all = urls.join(" ")
    );
    format!(
        "{served}{beside}\n\n{}\n  {pay}\n{}\n  {look}\n{}\n  {probe}\n\n{}",
        t!(MESSAGES, "api-pay"),
        t!(MESSAGES, "api-look-at-the-rows"),
        t!(MESSAGES, "api-probe-it"),
        t!(MESSAGES, "api-ctrl-c"),
    )
}
