//! A throwaway cluster from the local PostgreSQL binaries.
//!
//! - `initdb` runs once per PostgreSQL version; its data directory is cached under
//!   `target/workbook-pg/`, and every test process starts from a copy (in memory, a
//!   copy and a start take about 0.1 s; `initdb` takes 0.5 s).
//! - PostgreSQL refuses to run as root. As root, the harness runs the server as the
//!   `postgres` system user (or `nobody`), on a data directory that user owns.
//! - The cluster lives in memory when it can: on `/dev/shm` when that is a writable
//!   tmpfs with room, else in `TMPDIR`; `WORKBOOK_PG_TMPDIR` names another place. On
//!   disk every file PostgreSQL creates can cost a journal write (0.3 ms on one of
//!   our machines, where the copy took 1167 ms instead of 61, the start 1.07 to
//!   1.48 s instead of 77 ms), and a throwaway cluster with `fsync=off` gains
//!   nothing from being durable.
//! - The server listens on a Unix socket in its own temporary directory only, so
//!   parallel test processes never fight over a port.
//! - A small supervisor shell owns the server and its directory. It waits for its
//!   standard input to close, which happens when the test process exits for any
//!   reason, even `kill -9`; then it stops the server and deletes the directory.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use l10n::t;
use sqlx::postgres::PgConnectOptions;

use crate::backend::{Backend, BackendChoice};
use crate::cleanup::at_exit;
use crate::error::LocalError;

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
pub fn find_binaries() -> Result<Binaries, LocalError> {
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
        None => Err(LocalError::NoBinaries),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Which account runs the server: ourselves, unless we are root.
pub fn server_account() -> Result<Option<String>, LocalError> {
    #[allow(unsafe_code)]
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        return Ok(None);
    }
    for user in ["postgres", "nobody"] {
        if account_exists(user) {
            return Ok(Some(user.to_owned()));
        }
    }
    Err(LocalError::NoAccountButRoot)
}

/// Asks the user database directly (`id -u` would cost a process start).
fn account_exists(user: &str) -> bool {
    let Ok(name) = std::ffi::CString::new(user) else {
        return false;
    };
    // SAFETY: `name` is NUL-terminated; the returned record is only tested for
    // NULL, never read, so the static buffer getpwnam reuses does not matter.
    #[allow(unsafe_code)]
    let found = unsafe { !libc::getpwnam(name.as_ptr()).is_null() };
    found
}

/// Where throwaway clusters are made, and why there.
#[derive(Debug, Clone)]
pub struct ScratchDir {
    pub dir: PathBuf,
    pub why: String,
}

/// The variable that names where throwaway clusters go, instead of `/dev/shm`.
pub const SCRATCH_VAR: &str = "WORKBOOK_PG_TMPDIR";

/// In-memory room a cluster needs: its copy (about 30 MB), a template and a dozen
/// test databases at once (about 8 MB each), and its WAL.
const ROOM_NEEDED: u64 = 512 << 20;

/// `WORKBOOK_PG_TMPDIR` when set; else `/dev/shm` when it is a writable tmpfs with
/// room; else `TMPDIR` (or `/tmp`).
pub fn scratch_dir() -> Result<ScratchDir, LocalError> {
    if let Some(dir) = std::env::var_os(SCRATCH_VAR).filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if !dir.is_dir() {
            return Err(LocalError::NotADirectory {
                var: SCRATCH_VAR,
                dir,
            });
        }
        return Ok(ScratchDir {
            why: t!(
                crate::messages::MESSAGES,
                "scratch-from-variable",
                variable = SCRATCH_VAR
            ),
            dir,
        });
    }
    let shm = Path::new("/dev/shm");
    match in_memory_with_room(shm) {
        Ok(()) => Ok(ScratchDir {
            dir: shm.to_owned(),
            why: t!(crate::messages::MESSAGES, "scratch-in-memory"),
        }),
        Err(why_not) => {
            let dir = std::env::temp_dir();
            Ok(ScratchDir {
                why: t!(
                    crate::messages::MESSAGES,
                    "scratch-on-disk",
                    why = why_not.to_string()
                ),
                dir,
            })
        }
    }
}

/// The server account must be able to reach its directory inside `dir`.
fn reachable_by(dir: &Path, account: Option<&str>) -> Result<(), LocalError> {
    use std::os::unix::fs::PermissionsExt;
    let Some(user) = account else {
        return Ok(());
    };
    let mode = dir
        .metadata()
        .map_err(|source| LocalError::File {
            action: "read",
            path: dir.to_owned(),
            source,
        })?
        .permissions()
        .mode();
    if mode & 0o001 == 0 {
        return Err(LocalError::Unreachable {
            user: user.to_owned(),
            dir: dir.to_owned(),
            mode: mode & 0o7777,
        });
    }
    Ok(())
}

/// Whether `dir` is a tmpfs this process may write to, with [`ROOM_NEEDED`] free.
fn in_memory_with_room(dir: &Path) -> Result<(), NotInMemory> {
    let shown = dir.to_owned();
    let mounts = std::fs::read_to_string("/proc/self/mounts")
        .map_err(|_| NotInMemory::NoMounts(shown.clone()))?;
    // "tmpfs /dev/shm tmpfs rw,nosuid,nodev,size=... 0 0"; the last entry wins.
    let fs_type = mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_, point, fs_type) = (fields.next()?, fields.next()?, fields.next()?);
            (Path::new(point) == dir).then(|| fs_type.to_owned())
        })
        .next_back()
        .ok_or_else(|| NotInMemory::NotMounted(shown.clone()))?;
    if fs_type != "tmpfs" {
        return Err(NotInMemory::NotTmpfs {
            dir: shown,
            fs_type,
        });
    }
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| NotInMemory::NulByte(shown.clone()))?;
    // SAFETY: `path` is NUL-terminated and `stat` is a plain struct that statvfs fills.
    #[allow(unsafe_code)]
    let (writable, stat) = unsafe {
        let writable = libc::access(path.as_ptr(), libc::W_OK | libc::X_OK) == 0;
        let mut stat: libc::statvfs = std::mem::zeroed();
        let ok = libc::statvfs(path.as_ptr(), &mut stat) == 0;
        (writable, ok.then_some(stat))
    };
    if !writable {
        return Err(NotInMemory::NotWritable(shown));
    }
    let stat = stat.ok_or_else(|| NotInMemory::NoStatvfs(shown.clone()))?;
    #[allow(clippy::useless_conversion)] // the field types differ between platforms
    let free = u64::from(stat.f_bavail).saturating_mul(u64::from(stat.f_frsize));
    if free < ROOM_NEEDED {
        return Err(NotInMemory::TooSmall {
            dir: shown,
            free_mb: free >> 20,
        });
    }
    Ok(())
}

/// Why the harness's clusters do not go to a place in memory: said in the
/// server's description ("on disk: ..."), not an error.
#[derive(Debug, thiserror::Error)]
enum NotInMemory {
    NoMounts(PathBuf),
    NotMounted(PathBuf),
    NotTmpfs { dir: PathBuf, fs_type: String },
    NulByte(PathBuf),
    NotWritable(PathBuf),
    NoStatvfs(PathBuf),
    TooSmall { dir: PathBuf, free_mb: u64 },
}

impl std::fmt::Display for NotInMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &crate::messages::MESSAGES;
        let shown = |dir: &PathBuf| dir.display().to_string();
        let said = match self {
            Self::NoMounts(dir) => t!(m, "not-in-memory-no-mounts", dir = shown(dir)),
            Self::NotMounted(dir) => t!(m, "not-in-memory-not-mounted", dir = shown(dir)),
            Self::NotTmpfs { dir, fs_type } => t!(
                m,
                "not-in-memory-not-tmpfs",
                dir = shown(dir),
                fs_type = fs_type
            ),
            Self::NulByte(dir) => t!(m, "not-in-memory-nul-byte", dir = shown(dir)),
            Self::NotWritable(dir) => t!(m, "not-in-memory-not-writable", dir = shown(dir)),
            Self::NoStatvfs(dir) => t!(m, "not-in-memory-no-statvfs", dir = shown(dir)),
            Self::TooSmall { dir, free_mb } => t!(
                m,
                "not-in-memory-too-small",
                dir = shown(dir),
                free = free_mb.to_string(),
                needed = (ROOM_NEEDED >> 20).to_string()
            ),
        };
        f.write_str(&said)
    }
}

/// Starts a cluster for this process.
pub async fn start() -> Result<Backend, LocalError> {
    let scratch = scratch_dir()?;
    start_in(scratch, &[], &|_, _| Ok(())).await.map(|cluster| {
        // The tests' cluster lives as long as the process: its supervisor is
        // stopped at exit, not by a drop.
        let backend = cluster.backend.clone();
        std::mem::forget(cluster);
        backend
    })
}

/// How a cluster a benchmark or a test starts differs from the tests' throwaway one.
#[derive(Debug, Clone, Default)]
pub struct ClusterSettings {
    /// Where its directory goes; `None`: where the tests' cluster would go.
    pub place: Option<PathBuf>,
    /// `fsync`, `synchronous_commit` and `full_page_writes` on, as in production,
    /// instead of the tests' `fsync=off`.
    pub durable: bool,
    /// Server settings, `name = value` as in `postgresql.conf`, e.g.
    /// `("synchronous_standby_names", "FIRST 1 (standby1)")` or
    /// `("log_lock_waits", "on")`. Each is passed as `-c name=value` after the
    /// throwaway defaults and `durable`'s, so it wins over them; like anything set
    /// on the command line, `ALTER SYSTEM` cannot change it while the server runs.
    /// The value is taken as it is: no quotes around it.
    pub server_settings: Vec<(String, String)>,
}

impl ClusterSettings {
    /// The `-c name=value` arguments of `durable` and `server_settings`, in that
    /// order (a later `-c` wins).
    fn arguments(&self) -> Result<Vec<String>, LocalError> {
        let durable = [
            ("fsync", "on"),
            ("synchronous_commit", "on"),
            ("full_page_writes", "on"),
        ];
        let durable = durable
            .iter()
            .filter(|_| self.durable)
            .map(|(name, value)| (name.to_string(), value.to_string()));
        let mut arguments = Vec::new();
        for (name, value) in durable.chain(self.server_settings.iter().cloned()) {
            // A name is letters, digits, `_` and `.` (a custom setting's prefix): one
            // with `=` or a blank in it would pass another setting than it says.
            let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
            if name.is_empty() || !name.chars().all(word) {
                return Err(LocalError::BadSetting(name));
            }
            arguments.push("-c".to_owned());
            arguments.push(format!("{name}={value}"));
        }
        Ok(arguments)
    }
}

/// What is done to a cluster's copied data directory before its server starts
/// (the directory, and the user and group ids that must own what is added there):
/// a standby's `standby.signal`, for one.
pub(crate) type Prepare<'a> = &'a (dyn Fn(&Path, Option<(u32, u32)>) -> std::io::Result<()> + Sync);

/// A cluster of its own, beside the tests' one, stopped and deleted when dropped
/// (also while a panic unwinds; at exit; and by its supervisor if the process is
/// killed).
pub struct LocalCluster {
    pub backend: Backend,
    /// Its directory: the data directory is `data` inside, the socket is here.
    pub run_dir: PathBuf,
    pub binaries: Binaries,
    supervisor: u64,
}

impl LocalCluster {
    pub async fn start(settings: ClusterSettings) -> Result<LocalCluster, LocalError> {
        Self::start_prepared(settings, &|_, _| Ok(())).await
    }

    /// [`LocalCluster::start`], with `prepare` run on the copied data directory
    /// before the server starts.
    pub(crate) async fn start_prepared(
        settings: ClusterSettings,
        prepare: Prepare<'_>,
    ) -> Result<LocalCluster, LocalError> {
        let arguments = settings.arguments()?;
        let scratch = match settings.place {
            Some(dir) => ScratchDir {
                why: t!(crate::messages::MESSAGES, "scratch-chosen"),
                dir,
            },
            None => scratch_dir()?,
        };
        start_in(scratch, &arguments, prepare).await
    }

    /// Its data directory.
    pub fn data_dir(&self) -> PathBuf {
        self.run_dir.join("data")
    }

    /// libpq's connection string for a database of this cluster (for `psql`, `pgbench`).
    pub fn conninfo(&self, database: &str) -> String {
        format!(
            "host={} port=5432 user=postgres dbname={database}",
            self.run_dir.display()
        )
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        stop_supervisor(self.supervisor);
    }
}

async fn start_in(
    scratch: ScratchDir,
    settings: &[String],
    prepare: Prepare<'_>,
) -> Result<LocalCluster, LocalError> {
    let started = Instant::now();
    let binaries = find_binaries()?;
    let account = server_account()?;
    // `postgres --version` takes a process start; it runs while the cluster starts.
    let version = Version::ask(&binaries)?;
    reachable_by(&scratch.dir, account.as_deref())?;
    let cache = cached_data_dir(&binaries, account.as_deref(), &scratch.dir)?;
    let server = Supervised::spawn(
        &binaries,
        &cache,
        account.as_deref(),
        &scratch.dir,
        settings,
        prepare,
    )?;
    let admin = PgConnectOptions::new()
        .socket(&server.run_dir)
        .port(5432)
        .username("postgres")
        .database("postgres");
    let max_connections = match wait_until_ready(&admin, &server.run_dir).await {
        Ok(max) => max,
        Err(e) => {
            stop_supervisor(server.id);
            return Err(e);
        }
    };
    let version = version.answer();
    let (bindir, dir) = (binaries.bindir.display(), scratch.dir.display());
    let seconds = crate::messages::seconds(started.elapsed().as_secs_f64());
    let description = match &account {
        Some(user) => t!(
            crate::messages::MESSAGES,
            "described-local-as-root",
            version = &version,
            bindir = bindir.to_string(),
            found_by = binaries.found_by,
            user = user,
            dir = dir.to_string(),
            why = &scratch.why,
            seconds = seconds
        ),
        None => t!(
            crate::messages::MESSAGES,
            "described-local",
            version = &version,
            bindir = bindir.to_string(),
            found_by = binaries.found_by,
            dir = dir.to_string(),
            why = &scratch.why,
            seconds = seconds
        ),
    };
    Ok(LocalCluster {
        backend: Backend {
            choice: BackendChoice::Local,
            admin,
            description,
            max_connections,
            handed_over: false,
        },
        run_dir: server.run_dir,
        binaries,
        supervisor: server.id,
    })
}

/// The file system `path` is on ("tmpfs", "ext4", ...), from the longest mount
/// point above it in `/proc/self/mounts`.
pub fn file_system_of(path: &Path) -> Option<String> {
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    let path = path.canonicalize().ok()?;
    mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_, point, fs_type) = (fields.next()?, fields.next()?, fields.next()?);
            path.starts_with(point)
                .then(|| (point.len(), fs_type.to_owned()))
        })
        // The last of the longest: a later mount on the same point hides earlier ones.
        .fold(None, |best: Option<(usize, String)>, each| match best {
            Some(b) if b.0 > each.0 => Some(b),
            _ => Some(each),
        })
        .map(|(_, fs_type)| fs_type)
}

/// `postgres --version`, asked in the background.
struct Version(Child);

impl Version {
    fn ask(binaries: &Binaries) -> Result<Self, LocalError> {
        Command::new(binaries.postgres())
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map(Self)
            .map_err(|source| LocalError::Run {
                program: binaries.postgres().display().to_string(),
                source,
            })
    }

    /// "PostgreSQL 15.18", from "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
    fn answer(self) -> String {
        let text = self
            .0
            .wait_with_output()
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
            .unwrap_or_default();
        let number = text
            .split_whitespace()
            .nth(2)
            .unwrap_or("(version unknown)");
        format!("PostgreSQL {number}")
    }
}

/// Where initialised data directories are kept between runs.
fn cache_root() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("workbook-pg")
}

/// What the cached data directory is made with; all of it is part of the cache key.
///
/// template0 is dropped: nothing here creates a database from it, and it is a
/// third of the files every test process copies.
const PREPARE: &str = "UPDATE pg_database SET datistemplate = false WHERE datname = 'template0';
DROP DATABASE template0;
";

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
    account: Option<&str>,
    scratch: &Path,
) -> Result<PathBuf, LocalError> {
    // The binary's size and time stand for its version: an upgrade changes them.
    let identity = binaries
        .postgres()
        .metadata()
        .map(|m| format!("{}@{:?}", m.len(), m.modified().ok()))
        .map_err(|source| LocalError::File {
            action: "read",
            path: binaries.postgres(),
            source,
        })?;
    let key = crate::hash::content_hash(&format!(
        "{identity}|{}|{INITDB_ARGS:?}|{PREPARE}|{account:?}|without spare WAL",
        binaries.bindir.display()
    ));
    let root = cache_root();
    let cache = root.join(format!("pgdata-{}", &key[..12]));
    if cache.join("PG_VERSION").is_file() {
        return Ok(cache);
    }
    std::fs::create_dir_all(&root).map_err(|source| LocalError::File {
        action: "create",
        path: root.clone(),
        source,
    })?;
    // initdb writes into a fresh scratch directory that the server account owns (it
    // may not be able to reach target/), then the result is copied into place.
    let scratch = run_shell(
        r#"d=$(mktemp -d "$2/workbook-initdb.XXXXXX") && { [ -z "$1" ] || chown "$1": "$d"; } && echo "$d""#,
        &[account.unwrap_or(""), &scratch.to_string_lossy()],
    )?;
    let scratch = PathBuf::from(scratch.trim());
    let data = scratch.join("data");
    let mut initdb = as_account(account, &binaries.initdb());
    initdb.arg("-D").arg(&data).args(INITDB_ARGS);
    let out = initdb.output();
    let result = match out {
        Ok(out) if out.status.success() => prepare(binaries, account, &data).and_then(|()| {
            let building = root.join(format!("building-{}", std::process::id()));
            run_shell(
                r#"rm -rf "$2" && cp -a "$1" "$2" && { mv -T "$2" "$3" 2>/dev/null || rm -rf "$2"; }"#,
                &[&data.to_string_lossy(), &building.to_string_lossy(), &cache.to_string_lossy()],
            )
            .map(|_| cache.clone())
        }),
        Ok(out) => Err(LocalError::Initdb(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        )),
        Err(source) => Err(LocalError::Run {
            program: "initdb".to_owned(),
            source,
        }),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Runs [`PREPARE`] on a fresh data directory, in single-user mode (no server,
/// no socket).
fn prepare(binaries: &Binaries, account: Option<&str>, data: &Path) -> Result<(), LocalError> {
    let mut single = as_account(account, &binaries.postgres());
    let mut child = single
        .arg("--single")
        .arg("-D")
        .arg(data)
        .args(["-c", "log_min_messages=fatal", "template1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| single_failed("run", source))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(PREPARE.as_bytes())
            .map_err(|source| single_failed("talk to", source))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|source| single_failed("wait for", source))?;
    let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    if out.status.success() && !said.contains("ERROR") {
        drop_recycled_wal(data)
    } else {
        Err(LocalError::Prepare(said.trim().to_owned()))
    }
}

fn single_failed(doing: &str, source: std::io::Error) -> LocalError {
    LocalError::Run {
        program: format!("postgres --single (could not {doing} it)"),
        source,
    }
}

/// Removes the WAL segments past the one the last checkpoint starts from.
///
/// At a checkpoint PostgreSQL renames the segments it no longer needs to future
/// names, ready for reuse: after `initdb` and [`PREPARE`], four of the five 1 MB
/// files in `pg_wal` are such spares, a fifth of what every test process copies,
/// never read (a server creates the segments it writes next). The checkpoint of a
/// clean shutdown, with no replication slot nor `wal_keep_size`, keeps no segment
/// older than its own, so the lowest-numbered one is where the server starts.
fn drop_recycled_wal(data: &Path) -> Result<(), LocalError> {
    let wal = data.join("pg_wal");
    let listed = std::fs::read_dir(&wal).map_err(|source| LocalError::File {
        action: "list",
        path: wal.clone(),
        source,
    })?;
    let mut segments: Vec<PathBuf> = listed
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.len() == 24 && name.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .collect();
    segments.sort();
    for spare in segments.iter().skip(1) {
        std::fs::remove_file(spare).map_err(|source| LocalError::File {
            action: "remove",
            path: spare.clone(),
            source,
        })?;
    }
    Ok(())
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

fn run_shell(script: &str, args: &[&str]) -> Result<String, LocalError> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(args)
        .output()
        .map_err(|source| LocalError::Run {
            program: "sh".to_owned(),
            source,
        })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(LocalError::Shell(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        ))
    }
}

/// The supervisor: starts the server once told to, and cleans up once its
/// standard input closes. It is started before its directory exists, so that from
/// the first byte written there, someone is sure to remove it: when the test
/// process exits for any reason, even `kill -9`, its end of the pipe closes.
/// INT, TERM and HUP are ignored, and it runs in a process group of its own (so
/// does the server it starts), so that a Ctrl-C in the terminal cannot stop it
/// before it has cleaned up. Every step costs no process start but the server's
/// (and, at the clean-up, a watcher's that sends the server's SIGQUIT again if the
/// first was lost).
const SUPERVISOR: &str = r#"
trap '' INT TERM HUP
run=$1 postgres=$2 user=$3
shift 3
if read -r go && [ "$go" = go ]; then
  # Account names hold no blanks: an empty $as expands to no word at all.
  as=
  [ -z "$user" ] || as="setpriv --reuid=$user --regid=$user --init-groups --"
  # The arguments left are settings that override these (a later -c wins).
  $as "$postgres" -D "$run/data" -k "$run" -p 5432 \
    -c listen_addresses= -c fsync=off -c full_page_writes=off -c max_connections=300 \
    -c autovacuum=off -c log_min_messages=fatal -c shared_buffers=64MB "$@" \
    >"$run/postgres.log" 2>&1 </dev/null &
  pid=$!
  echo "started"
  while read -r _; do :; done
  kill -QUIT "$pid" 2>/dev/null
  # A background job starts with SIGQUIT ignored, until the server sets its own
  # handler: a QUIT sent in that moment (the test process killed as its server
  # started) is lost. Send it again while waiting, then SIGKILL; the watcher goes
  # once the server has (it ignores TERM, as this shell does), and takes the sleep
  # it is in with it: killed from outside, that sleep would outlive the run.
  ( trap 'kill -KILL "$!" 2>/dev/null; exit 0' USR1
    sleep 1 & wait "$!"; kill -QUIT "$pid"
    sleep 2 & wait "$!"; kill -QUIT "$pid"
    sleep 5 & wait "$!"; kill -KILL "$pid" ) 2>/dev/null &
  again=$!
  wait "$pid"
  kill -USR1 "$again" 2>/dev/null
  wait "$again"
fi
rm -rf "$run"
"#;

struct Supervised {
    run_dir: PathBuf,
    /// Which entry of [`SUPERVISORS`] is this cluster's.
    id: u64,
}

/// Every supervisor this process started, by id: the tests' cluster, and any
/// [`LocalCluster`] a benchmark starts beside it.
static SUPERVISORS: Mutex<Vec<(u64, Child)>> = Mutex::new(Vec::new());

/// Held while a cluster's directory is being made, until its supervisor is told
/// to start the server. The process may end meanwhile on another thread (a
/// runner that starts its server early and exits at once): at exit, the
/// supervisors are stopped only once the copy is done, or the copy would go on
/// writing into the directory after its supervisor had removed it.
static MAKING_A_DIRECTORY: Mutex<()> = Mutex::new(());
static NEXT_SUPERVISOR: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Supervised {
    /// Starts the supervisor, copies the cached data directory into a directory
    /// of this process, runs `prepare` on it, and has the server started on it
    /// with `settings` (each a `-c name=value` pair that overrides the throwaway
    /// defaults).
    fn spawn(
        binaries: &Binaries,
        cache: &Path,
        account: Option<&str>,
        scratch: &Path,
        settings: &[String],
        prepare: Prepare<'_>,
    ) -> Result<Self, LocalError> {
        use std::os::unix::process::CommandExt;
        let making = MAKING_A_DIRECTORY
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let run_dir = scratch.join(format!("workbook-pg.{}.{nanos}", std::process::id()));
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(SUPERVISOR)
            .arg("sh")
            .arg(&run_dir)
            .arg(binaries.postgres())
            .arg(account.unwrap_or(""))
            .args(settings)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|source| LocalError::Run {
                program: "the supervisor shell".to_owned(),
                source,
            })?;
        let stdout = child.stdout.take();
        let id = NEXT_SUPERVISOR.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut all) = SUPERVISORS.lock() {
            all.push((id, child));
        }
        static HOOKED: std::sync::Once = std::sync::Once::new();
        HOOKED.call_once(|| at_exit(stop_every_supervisor));
        let owner = account.map(owner_ids).transpose()?;
        if let Err(source) = copy_data_dir(cache, &run_dir, owner) {
            stop_supervisor(id);
            return Err(LocalError::Copy {
                cache: cache.to_owned(),
                run: run_dir,
                source,
            });
        }
        if let Err(e) = prepare(&run_dir.join("data"), owner) {
            stop_supervisor(id);
            return Err(LocalError::Prepare(format!("{}: {e}", run_dir.display())));
        }
        let told = SUPERVISORS.lock().ok().and_then(|mut all| {
            let (_, child) = all.iter_mut().find(|(each, _)| *each == id)?;
            child.stdin.as_mut()?.write_all(b"go\n").ok()
        });
        drop(making);
        let mut first = String::new();
        if let (Some(()), Some(stdout)) = (told, stdout) {
            let _ = BufReader::new(stdout).read_line(&mut first);
        }
        if first.trim() == "started" {
            Ok(Self { run_dir, id })
        } else {
            stop_supervisor(id);
            Err(LocalError::Supervisor(first))
        }
    }
}

/// The user and group ids of `user`.
fn owner_ids(user: &str) -> Result<(u32, u32), LocalError> {
    let name =
        std::ffi::CString::new(user).map_err(|_| LocalError::NulInAccount(user.to_owned()))?;
    // SAFETY: `name` is NUL-terminated; the record getpwnam returns is read at once,
    // before anything else could call it again.
    #[allow(unsafe_code)]
    let ids = unsafe {
        let entry = libc::getpwnam(name.as_ptr());
        (!entry.is_null()).then(|| ((*entry).pw_uid, (*entry).pw_gid))
    };
    ids.ok_or_else(|| LocalError::NoSuchAccount(user.to_owned()))
}

/// Copies the cached data directory to `run/data`, in this process (a `cp -a`
/// would cost a process start), owned by `owner` when the server runs as another
/// user. `run` is made here and must not exist yet.
fn copy_data_dir(cache: &Path, run: &Path, owner: Option<(u32, u32)>) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(run)?;
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(run, Some(uid), Some(gid))?;
    }
    copy_tree(cache, &run.join("data"), owner)
}

fn copy_tree(from: &Path, to: &Path, owner: Option<(u32, u32)>) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    std::fs::set_permissions(to, from.metadata()?.permissions())?;
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(to, Some(uid), Some(gid))?;
    }
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&source, &target, owner)?;
            continue;
        }
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else {
            // Copies the permissions too.
            std::fs::copy(&source, &target)?;
        }
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::lchown(&target, Some(uid), Some(gid))?;
        }
    }
    Ok(())
}

/// Closes supervisor `id`'s stdin and waits (bounded) until it has stopped the
/// server and removed its directory, so that nothing is left when `cargo test`
/// returns.
fn stop_supervisor(id: u64) {
    let Some(child) = SUPERVISORS.lock().ok().and_then(|mut all| {
        let at = all.iter().position(|(each, _)| *each == id)?;
        Some(all.remove(at).1)
    }) else {
        return;
    };
    wait_for_clean_up(child);
}

/// At exit: every supervisor still running, each given its bounded wait.
fn stop_every_supervisor() {
    let _made = MAKING_A_DIRECTORY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let all = SUPERVISORS
        .lock()
        .map(|mut all| std::mem::take(&mut *all))
        .unwrap_or_default();
    for (_, child) in all {
        wait_for_clean_up(child);
    }
}

fn wait_for_clean_up(mut child: Child) {
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
async fn wait_until_ready(admin: &PgConnectOptions, run_dir: &Path) -> Result<u32, LocalError> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match crate::databases::probe(admin).await {
            Ok(max) => return Ok(max),
            Err(source) => {
                let log = std::fs::read_to_string(run_dir.join("postgres.log")).unwrap_or_default();
                // Our own early connection attempts log "the database system is
                // starting up" (and, on a standby that has not reached a consistent
                // state yet, "... not yet accepting connections"); any other FATAL
                // means the server will not come up.
                let failed = log.lines().any(|line| {
                    (line.contains("FATAL") || line.contains("PANIC"))
                        && !line.contains("starting up")
                        && !line.contains("not yet accepting connections")
                });
                if failed || Instant::now() > deadline {
                    return Err(LocalError::NotStarted {
                        source,
                        log: log.trim().to_owned(),
                    });
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_settings_come_after_durable_ones_and_a_bad_name_is_refused() {
        let settings = ClusterSettings {
            durable: true,
            server_settings: vec![
                ("fsync".to_owned(), "off".to_owned()),
                (
                    "synchronous_standby_names".to_owned(),
                    "FIRST 1 (standby1)".to_owned(),
                ),
            ],
            ..ClusterSettings::default()
        };
        let arguments = settings.arguments().expect("good names");
        assert_eq!(
            arguments[arguments.len() - 4..],
            [
                "-c",
                "fsync=off",
                "-c",
                "synchronous_standby_names=FIRST 1 (standby1)"
            ],
            "the caller's settings come last, so they win: {arguments:?}"
        );
        assert_eq!(arguments[..2], ["-c", "fsync=on"]);
        for bad in ["", "fsync=on -c x", "a b"] {
            let settings = ClusterSettings {
                server_settings: vec![(bad.to_owned(), "1".to_owned())],
                ..ClusterSettings::default()
            };
            assert!(
                matches!(settings.arguments(), Err(LocalError::BadSetting(name)) if name == bad),
                "{bad:?} is not a setting's name"
            );
        }
    }
}
