//! A throwaway cluster from the local PostgreSQL binaries.
//!
//! - `initdb` runs once per PostgreSQL version; its data directory is cached under
//!   `target/workbook-pg/`, and every test process starts from a copy (a copy and a
//!   start take about 0.2 s; `initdb` takes 0.5 s).
//! - PostgreSQL refuses to run as root. As root, the harness runs the server as the
//!   `postgres` system user (or `nobody`), on a data directory that user owns.
//! - The server listens on a Unix socket in its own temporary directory only, so
//!   parallel test processes never fight over a port.
//! - A small supervisor shell owns the server and its directory. It waits for its
//!   standard input to close, which happens when the test process exits for any
//!   reason, even `kill -9`; then it stops the server and deletes the directory.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;

use crate::backend::{Backend, BackendChoice, NoServer};
use crate::cleanup::at_exit;

/// The PostgreSQL binaries the harness found, and where.
#[derive(Debug, Clone)]
pub struct Binaries {
    pub bindir: PathBuf,
    pub found_by: &'static str,
}

impl Binaries {
    fn initdb(&self) -> PathBuf {
        self.bindir.join("initdb")
    }
    fn postgres(&self) -> PathBuf {
        self.bindir.join("postgres")
    }
}

/// Looks on PATH, then `pg_config --bindir`, then `/usr/lib/postgresql/*/bin`
/// (newest version first), for a directory holding both `initdb` and `postgres`.
pub fn find_binaries() -> Result<Binaries, String> {
    let complete =
        |dir: &Path| is_executable(&dir.join("initdb")) && is_executable(&dir.join("postgres"));
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if complete(&dir) {
                return Ok(Binaries {
                    bindir: dir,
                    found_by: "PATH",
                });
            }
        }
    }
    if let Ok(out) = Command::new("pg_config")
        .arg("--bindir")
        .stderr(Stdio::null())
        .output()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && complete(&dir) {
            return Ok(Binaries {
                bindir: dir,
                found_by: "pg_config --bindir",
            });
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| complete(dir))
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, bindir)) => Ok(Binaries {
            bindir,
            found_by: "/usr/lib/postgresql/*/bin",
        }),
        None => Err(
            "local binaries: no directory with both initdb and postgres on PATH, \
                     from pg_config --bindir, or under /usr/lib/postgresql/*/bin"
                .to_owned(),
        ),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Which account runs the server: ourselves, unless we are root.
pub fn server_account() -> Result<Option<String>, String> {
    #[allow(unsafe_code)]
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        return Ok(None);
    }
    for user in ["postgres", "nobody"] {
        let known = Command::new("id")
            .arg("-u")
            .arg(user)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if known.map(|s| s.success()).unwrap_or(false) {
            return Ok(Some(user.to_owned()));
        }
    }
    Err(
        "local binaries: running as root, and PostgreSQL refuses root, but neither a `postgres` \
         nor a `nobody` account exists to run it as (create one: useradd --system postgres)"
            .to_owned(),
    )
}

/// Starts a cluster for this process.
pub async fn start() -> Result<Backend, NoServer> {
    let started = Instant::now();
    let binaries = find_binaries().map_err(NoServer::new)?;
    let account = server_account().map_err(NoServer::new)?;
    let version = version(&binaries).map_err(NoServer::new)?;
    let cache = cached_data_dir(&binaries, &version, account.as_deref()).map_err(NoServer::new)?;
    let server = Supervised::spawn(&binaries, &cache, account.as_deref()).map_err(NoServer::new)?;
    let admin = PgConnectOptions::new()
        .socket(&server.run_dir)
        .port(5432)
        .username("postgres")
        .database("postgres");
    let max_connections = wait_until_ready(&admin, &server.run_dir)
        .await
        .map_err(NoServer::new)?;
    let as_whom = match &account {
        Some(user) => format!(", run as user {user} because we are root"),
        None => String::new(),
    };
    Ok(Backend {
        choice: BackendChoice::Local,
        admin,
        description: format!(
            "{version} from local binaries in {} (found by {}){as_whom}, started in {:.2} s",
            binaries.bindir.display(),
            binaries.found_by,
            started.elapsed().as_secs_f64()
        ),
        max_connections,
    })
}

fn version(binaries: &Binaries) -> Result<String, String> {
    let out = Command::new(binaries.postgres())
        .arg("--version")
        .output()
        .map_err(|e| {
            format!(
                "local binaries: could not run {}: {e}",
                binaries.postgres().display()
            )
        })?;
    // "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
    let text = String::from_utf8_lossy(&out.stdout);
    let number = text.split_whitespace().nth(2).unwrap_or("unknown");
    Ok(format!("PostgreSQL {number}"))
}

/// Where initialised data directories are kept between runs.
fn cache_root() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("workbook-pg")
}

/// Options that change what `initdb` writes are part of the cache key.
const INITDB_ARGS: &[&str] = &[
    "--auth=trust",
    "--encoding=UTF8",
    "--locale=C",
    "--username=postgres",
    "--no-sync",
    "--no-instructions",
    // 1 MB WAL segments instead of 16 MB: a smaller directory to copy.
    "--wal-segsize=1",
];

/// An initialised data directory for this PostgreSQL version, made once.
fn cached_data_dir(
    binaries: &Binaries,
    version: &str,
    account: Option<&str>,
) -> Result<PathBuf, String> {
    let key = crate::content_hash(&format!(
        "{version}|{}|{INITDB_ARGS:?}|{account:?}",
        binaries.bindir.display()
    ));
    let root = cache_root();
    let cache = root.join(format!("pgdata-{}", &key[..12]));
    if cache.join("PG_VERSION").is_file() {
        return Ok(cache);
    }
    std::fs::create_dir_all(&root)
        .map_err(|e| format!("local binaries: cannot create {}: {e}", root.display()))?;
    // initdb writes into a fresh directory under /tmp that the server account owns
    // (it may not be able to reach target/), then the result is copied into place.
    let scratch = run_shell(
        r#"d=$(mktemp -d "${TMPDIR:-/tmp}/workbook-initdb.XXXXXX") && { [ -z "$1" ] || chown "$1": "$d"; } && echo "$d""#,
        &[account.unwrap_or("")],
    )?;
    let scratch = PathBuf::from(scratch.trim());
    let data = scratch.join("data");
    let mut initdb = as_account(account, &binaries.initdb());
    initdb.arg("-D").arg(&data).args(INITDB_ARGS);
    let out = initdb.output();
    let result = match out {
        Ok(out) if out.status.success() => {
            let building = root.join(format!("building-{}", std::process::id()));
            run_shell(
                r#"rm -rf "$2" && cp -a "$1" "$2" && { mv -T "$2" "$3" 2>/dev/null || rm -rf "$2"; }"#,
                &[&data.to_string_lossy(), &building.to_string_lossy(), &cache.to_string_lossy()],
            )
            .map(|_| cache.clone())
        }
        Ok(out) => Err(format!(
            "local binaries: initdb failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("local binaries: could not run initdb: {e}")),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn as_account(account: Option<&str>, program: &Path) -> Command {
    match account {
        Some(user) => {
            let mut command = Command::new("setpriv");
            command
                .arg(format!("--reuid={user}"))
                .arg(format!("--regid={user}"))
                .arg("--init-groups")
                .arg("--")
                .arg(program);
            command
        }
        None => Command::new(program),
    }
}

fn run_shell(script: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(args)
        .output()
        .map_err(|e| format!("local binaries: could not run sh: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "local binaries: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The supervisor: copies the cached data directory, starts the server, and
/// cleans up once its standard input closes. INT and TERM are ignored so that a
/// Ctrl-C in the terminal cannot stop it before it has cleaned up; the server is
/// in its own session for the same reason.
const SUPERVISOR: &str = r#"
trap '' INT TERM HUP
cache=$1 postgres=$2 user=$3
run=$(mktemp -d "${TMPDIR:-/tmp}/workbook-pg.XXXXXX") || exit 1
if err=$(cp -a "$cache" "$run/data" 2>&1 && chmod 700 "$run/data" && { [ -z "$user" ] || chown "$user": "$run"; }); then
  if [ -n "$user" ]; then
    set -- setsid setpriv "--reuid=$user" "--regid=$user" --init-groups -- "$postgres"
  else
    set -- setsid "$postgres"
  fi
  "$@" -D "$run/data" -k "$run" -p 5432 \
    -c listen_addresses= -c fsync=off -c full_page_writes=off -c max_connections=300 \
    -c log_min_messages=fatal -c shared_buffers=64MB >"$run/postgres.log" 2>&1 </dev/null &
  pid=$!
  echo "started $run"
  cat >/dev/null
  kill -QUIT "$pid" 2>/dev/null
  wait "$pid"
else
  echo "failed $run $err"
  cat >/dev/null
fi
rm -rf "$run"
"#;

struct Supervised {
    run_dir: PathBuf,
}

static SUPERVISOR_CHILD: Mutex<Option<Child>> = Mutex::new(None);

impl Supervised {
    fn spawn(binaries: &Binaries, cache: &Path, account: Option<&str>) -> Result<Self, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(SUPERVISOR)
            .arg("sh")
            .arg(cache)
            .arg(binaries.postgres())
            .arg(account.unwrap_or(""))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("local binaries: could not start the supervisor shell: {e}"))?;
        let mut first = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = BufReader::new(stdout).read_line(&mut first);
        }
        if let Ok(mut slot) = SUPERVISOR_CHILD.lock() {
            *slot = Some(child);
        }
        at_exit(stop_supervisor);
        let mut words = first.trim().splitn(3, ' ');
        match (words.next(), words.next()) {
            (Some("started"), Some(run)) => Ok(Self {
                run_dir: PathBuf::from(run),
            }),
            (Some("failed"), Some(_)) => Err(format!(
                "local binaries: could not copy the cached data directory: {}",
                words.next().unwrap_or("")
            )),
            _ => Err(format!("local binaries: the supervisor said {first:?}")),
        }
    }
}

/// Closes the supervisor's stdin and waits (bounded) until it has stopped the
/// server and removed its directory, so that nothing is left when `cargo test`
/// returns.
fn stop_supervisor() {
    let Some(mut child) = SUPERVISOR_CHILD
        .lock()
        .ok()
        .and_then(|mut slot| slot.take())
    else {
        return;
    };
    drop(child.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// Polls the socket every 5 ms until the server answers (bounded at 15 s).
async fn wait_until_ready(admin: &PgConnectOptions, run_dir: &Path) -> Result<u32, String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match crate::db::probe(admin).await {
            Ok(max) => return Ok(max),
            Err(e) => {
                let log = std::fs::read_to_string(run_dir.join("postgres.log")).unwrap_or_default();
                // Our own early connection attempts log "the database system is
                // starting up"; any other FATAL means the server will not come up.
                let failed = log.lines().any(|line| {
                    (line.contains("FATAL") || line.contains("PANIC"))
                        && !line.contains("starting up")
                });
                if failed || Instant::now() > deadline {
                    return Err(format!(
                        "local binaries: the server did not start ({e}); its log says:\n{}",
                        log.trim()
                    ));
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
}
