//! The servers of servers/, in other languages: started by `servers/start.sh NAME
//! PORT DATABASE_URL`, probed through the article's API (in Portuguese), and
//! stopped with their whole process group when dropped. A watchdog stops them too
//! when the process that started them dies without dropping them (kill -9, Ctrl-C,
//! a panic that aborts): nothing is left running.
//!
//! Included by path from three packages, all two directories below the repository's
//! root: crates/probe (the book's table), tests/probe-servers (the tests) and
//! crates/route-bench (the cost table, where the servers are measured beside ours).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use harness::Schema;
use probe::Options;

/// How long a server may take to listen (Node, Python and Java start in about a second).
const READY_BOUND: Duration = Duration::from_secs(30);

/// How long a stopped server may take to exit before it is killed.
const STOP_BOUND: Duration = Duration::from_secs(5);

/// The card authorisation every server pauses for, in milliseconds, when these tests
/// start it (its own default is 20). A burst shows a wrong server's deadlock only if
/// most of its requests hold or wait for a connection before the first one commits; on
/// a loaded machine Node took over 300 ms to answer the 20 requests of a burst, and with
/// 20 ms the first payment committed before the others queued (typescript-wrong missed
/// its deadlock in 2 of 10 runs; go-wrong once in 20 runs with 100 ms). Below the
/// probe's 300 ms patience for a late answer, which a payment must answer within.
const AUTORIZACAO_MS: &str = "150";

/// How many of a server's last stderr lines are kept, for the messages.
const LOG_LINES: usize = 20;

/// The folder of the servers: the repository's `servers/`.
pub fn servers_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../servers");
    dir.canonicalize().unwrap_or(dir)
}

/// What is missing for the servers to run, as one line naming the fix; `None` when
/// `servers/setup.sh` has installed everything.
pub fn missing_setup(servers: &Path) -> Option<String> {
    let needed = [
        "python/.venv/bin/python",
        "typescript/node_modules",
        "typescript/dist/server.js",
        "go/pagamentos",
        "java/classes/Servidor.class",
    ];
    let missing: Vec<String> = needed
        .iter()
        .filter(|path| !servers.join(path).exists())
        .map(|path| format!("servers/{path}"))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "the servers of servers/ are not installed (no {}): run servers/setup.sh \
             (it needs Python 3.10+ with venv and Node.js 20+ with npm, and installs Go and \
             Java from Debian's packages when run as root)",
            missing.join(", no ")
        )
    })
}

/// The article's two tables, with its Portuguese names: what every server of
/// servers/ creates when it starts, here already in the test database.
pub fn article_schema() -> Schema {
    Schema::new(
        "servers/schema.sql",
        include_str!("../../../../servers/schema.sql"),
    )
}

/// The article's API as every server of servers/ serves it: `POST /pagamentos` with
/// `{"pedidoId": N, "valor": M}`, its payments counted in `database_url`.
pub fn article_api(url: String, database_url: String) -> Options {
    let mut options = Options::new(url).counting(database_url, "select count(*) from pagamentos");
    options.path = "/pagamentos".to_owned();
    options.body = r#"{"pedidoId": {n}, "valor": 100}"#.to_owned();
    options.other_body = r#"{"pedidoId": {n}, "valor": 999}"#.to_owned();
    options
}

/// Stops the process group named by its first argument once its standard input
/// closes: when the process that holds the other end exits, however it exits.
/// (dash's `kill` takes a negative pid for a group, without `--`.)
/// INT, TERM and HUP are ignored and it has a group of its own, so that a Ctrl-C in
/// the terminal, which stops the tests, does not stop it before it has done its job.
const WATCHDOG: &str = r#"
trap '' INT TERM HUP
while read -r _; do :; done
kill -TERM "-$1" 2>/dev/null || exit 0
for _ in 1 2 3 4 5 6 7 8 9 10; do
  kill -0 "-$1" 2>/dev/null || exit 0
  sleep 0.5
done
kill -KILL "-$1" 2>/dev/null
"#;

/// A server of servers/ that could not be started, in words naming what failed.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("no free port on 127.0.0.1: {0}")]
    NoPort(#[source] std::io::Error),
    #[error("cannot run {}: {source}", .script.display())]
    Run {
        script: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the servers' watchdog (sh): {0}")]
    Watchdog(#[source] std::io::Error),
    /// `log` is the server's last lines, after a colon (or nothing).
    #[error("servers/start.sh {name} exited before listening ({status}){log}")]
    Exited {
        name: String,
        status: ExitStatus,
        log: String,
    },
    #[error("servers/start.sh {name} did not answer a payment on {port} within {bound:?}{log}")]
    NotListening {
        name: String,
        port: u16,
        bound: Duration,
        log: String,
    },
}

pub struct ExternalServer {
    name: String,
    child: Child,
    watchdog: Child,
    /// The server's last stderr lines (its log).
    log: Arc<Mutex<VecDeque<String>>>,
    pub port: u16,
}

impl ExternalServer {
    /// Runs `servers/start.sh NAME PORT DATABASE_URL` on a free port of 127.0.0.1
    /// and waits until it accepts connections.
    pub fn start(servers: &Path, name: &str, database_url: &str) -> Result<Self, ServerError> {
        Self::start_authorising_in(servers, name, database_url, AUTORIZACAO_MS)
    }

    /// [`ExternalServer::start`], with the simulated card authorisation taking
    /// `autorizacao_ms` milliseconds ("0": none, as in the article's code).
    pub fn start_authorising_in(
        servers: &Path,
        name: &str,
        database_url: &str,
        autorizacao_ms: &str,
    ) -> Result<Self, ServerError> {
        let script = servers.join("start.sh");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(ServerError::NoPort)?
            .port();
        let mut command = Command::new(&script);
        command
            .args([name, &port.to_string(), database_url])
            .env("AUTORIZACAO_MS", autorizacao_ms)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // A group of its own: stopping it stops the interpreter under the script,
            // and a Ctrl-C meant for the tests does not reach it (the watchdog stops it).
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|source| ServerError::Run {
            script: script.clone(),
            source,
        })?;
        let watchdog = match watchdog(child.id()) {
            Ok(watchdog) => watchdog,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        let log = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(stderr) = child.stderr.take() {
            let log = Arc::clone(&log);
            // Drained so the server never blocks on a full pipe; it ends with the server.
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if let Ok(mut log) = log.lock() {
                        if log.len() == LOG_LINES {
                            log.pop_front();
                        }
                        log.push_back(line);
                    }
                }
            });
        }
        let mut server = Self {
            name: name.to_owned(),
            child,
            watchdog,
            log,
            port,
        };
        let started = Instant::now();
        // Listening is not serving: a JVM accepts connections a while before its
        // first answer, and answers its first payments slowly (on a busy machine a
        // just-started Java server once answered none of a correct burst within the
        // probe's 3 s). Ready is one payment answered, on a key of its own: the
        // probe counts effects per check, so it counts none of it.
        let mut attempt = 0;
        while warm_up(port, attempt).is_none() {
            attempt += 1;
            if let Ok(Some(status)) = server.child.try_wait() {
                // The reader may not have read its last words yet.
                std::thread::sleep(Duration::from_millis(50));
                return Err(ServerError::Exited {
                    name: name.to_owned(),
                    status,
                    log: server.log_tail(),
                });
            }
            if started.elapsed() > READY_BOUND {
                return Err(ServerError::NotListening {
                    name: name.to_owned(),
                    port,
                    bound: READY_BOUND,
                    log: server.log_tail(),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// The server's process id (`start.sh` execs the server: its pid is the server's).
    /// Read by route-bench (each peer's CPU time), not by the tests.
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's last lines on stderr, after a colon, or nothing if it wrote none.
    pub fn log_tail(&self) -> String {
        let lines: Vec<String> = self
            .log
            .lock()
            .map(|log| log.iter().cloned().collect())
            .unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            format!(
                "; the last lines {} wrote:\n{}",
                self.name,
                lines.join("\n")
            )
        }
    }
}

/// One payment through the article's API on `port`, answered with a status
/// (whichever), within two seconds: `None` while nothing answers. Each attempt has
/// a key of its own: a duplicate is what the wrong servers deadlock on.
fn warm_up(port: u16, attempt: u32) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let body = r#"{"pedidoId": 1, "valor": 1}"#;
    let request = format!(
        "POST /pagamentos HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n\
         idempotency-key: warm-up-{port}-{attempt}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut head = [0u8; 12]; // "HTTP/1.1 201"
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// The watchdog of the process group `group` (see [`WATCHDOG`]).
fn watchdog(group: u32) -> Result<Child, ServerError> {
    let mut command = Command::new("sh");
    command
        .args(["-c", WATCHDOG, "sh", &group.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command.spawn().map_err(ServerError::Watchdog)
}

impl Drop for ExternalServer {
    fn drop(&mut self) {
        // The watchdog first: once the server is gone its group id may be reused.
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        if !matches!(self.child.try_wait(), Ok(None)) {
            return; // already exited and reaped
        }
        let group = format!("-{}", self.child.id());
        // The negative pid names the process group (kill(1)).
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = Instant::now() + STOP_BOUND;
        while matches!(self.child.try_wait(), Ok(None)) {
            if Instant::now() > deadline {
                let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
                let _ = self.child.wait();
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
