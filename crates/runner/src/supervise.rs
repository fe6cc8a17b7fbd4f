//! The process supervisor: runs a test executable the way `cargo test` would
//! (same working directory and `CARGO_MANIFEST_DIR`), reads libtest's plain
//! output as it comes, stops a run at its bound or when cancelled, and waits
//! until every process the run started is gone.

use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use crate::cargo::Executable;
use crate::cargo_env::is_set_by_cargo_for_its_child;
use crate::error::Error;
use crate::libtest;
use crate::lines::{Line, read_lines};

/// How a test run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Exited(ExitStatus),
    /// Still running at the bound, and stopped.
    TimedOut(Duration),
    /// Stopped because its results were no longer wanted.
    Cancelled,
}

#[derive(Debug, Clone)]
pub struct TestRun {
    /// The tests the executable holds (`--list`).
    pub listed: Vec<String>,
    pub stdout: String,
    pub stderr: String,
    pub end: End,
    pub elapsed: Duration,
}

impl TestRun {
    pub fn report(&self) -> libtest::Report {
        libtest::parse(&self.stdout)
    }
}

/// The environment a test run gets, besides what cargo would set.
#[derive(Debug, Clone, Default)]
pub struct RunEnv {
    pub observations: Option<PathBuf>,
}

/// Runs one test executable as `cargo test` would, stopping it after `bound`,
/// or as soon as `cancel` is set (then the run ends as [`End::Cancelled`]).
/// `progress` hears (tests finished, tests listed) as results come in.
pub fn run_tests(
    exe: &Executable,
    env: &RunEnv,
    bound: Duration,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<TestRun, Error> {
    let started = Instant::now();
    // Listing needs no server: it runs while the server may still be starting.
    let list = run_bounded(
        test_command(
            exe,
            env,
            &["--list", "--format", "terse"],
            Server::NotNeeded,
        ),
        Duration::from_secs(60),
        cancel,
        &mut |_| {},
    )?;
    let listed = libtest::parse_list(&list.0);
    let total = listed.len();
    progress(0, total);
    let mut done = 0;
    // The stages' tests mostly wait (on a pool's bounded acquire, a lock, a
    // server), and some wait seconds on purpose: more of them at once than there
    // are cores finishes sooner, e.g. stage 5's three tests in 3 s, not 5.
    let threads = std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(2)
        .max(4)
        .to_string();
    let run = test_command(exe, env, &["--test-threads", &threads], Server::HandedOver);
    let (stdout, stderr, end) = run_bounded(run, bound, cancel, &mut |line| {
        if line.starts_with("test ") && line.contains(" ... ") {
            done += 1;
            progress(done, total);
        }
    })?;
    Ok(TestRun {
        listed,
        stdout,
        stderr,
        end,
        elapsed: started.elapsed(),
    })
}

/// Whether a test process is given the runner's server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Server {
    /// Waits until the server is ready, and hands it over.
    HandedOver,
    /// Neither: `--list` runs no test.
    NotNeeded,
}

fn test_command(exe: &Executable, env: &RunEnv, args: &[&str], server: Server) -> Command {
    let mut command = Command::new(&exe.path);
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && is_set_by_cargo_for_its_child(name)
        {
            command.env_remove(name);
        }
    }
    command
        .args(args)
        .current_dir(&exe.manifest_dir)
        .env("CARGO_MANIFEST_DIR", &exe.manifest_dir)
        .env("CARGO_PKG_NAME", &exe.package)
        .env("RUST_BACKTRACE", "0")
        // The tests' messages, the harness's and the server's notes in the
        // runner's language (`--lang` included, which the environment lacks).
        .env(l10n::LANG_VARIABLE, l10n::Lang::current().tag())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The learner's loop keeps one PostgreSQL container between runs (when the
    // tests use Docker); CI starts a throwaway one each time.
    if crate::environment::container_is_kept() {
        command.env("WORKBOOK_KEEP_CONTAINER", "1");
    }
    let handed = match server {
        Server::HandedOver => crate::server::handover(),
        Server::NotNeeded => None,
    };
    match handed {
        Some(server) => command.env(postgres_provisioning::HANDOVER_VAR, server),
        None => command.env_remove(postgres_provisioning::HANDOVER_VAR),
    };
    match &env.observations {
        Some(path) => command.env("WORKBOOK_OBSERVATIONS", path),
        None => command.env_remove("WORKBOOK_OBSERVATIONS"),
    };
    command
}

/// Runs `command`, collecting its output, and kills it at `bound`.
///
/// Every process the run starts carries `WORKBOOK_RUN=<tag>` in its environment.
/// After a kill, the runner waits (bounded) until none is left: the harness's
/// server supervisor notices that its test process is gone, stops PostgreSQL and
/// removes its directory, and that takes a moment.
fn run_bounded(
    mut command: Command,
    bound: Duration,
    cancel: &AtomicBool,
    on_line: &mut dyn FnMut(&str),
) -> Result<(String, String, End), Error> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let tag = format!(
        "{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    );
    command.env("WORKBOOK_RUN", &tag);
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    let lines = read_lines(&mut child);
    let deadline = Instant::now() + bound;
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let mut take = |line: Line, on_line: &mut dyn FnMut(&str)| match line {
        Line::Out(l) => {
            on_line(&l);
            stdout.push_str(&l);
            stdout.push('\n');
        }
        Line::Err(l) => {
            stderr.push_str(&l);
            stderr.push('\n');
        }
    };
    let wait_error = |source| Error::Spawn {
        program: program.clone(),
        source,
    };
    let mut exited: Option<ExitStatus> = None;
    let mut exited_at = None;
    loop {
        let now = Instant::now();
        let cancelled = cancel.load(Ordering::Relaxed);
        if exited.is_none() && (now >= deadline || cancelled) {
            let _ = child.kill();
            let _ = child.wait();
            wait_until_gone(&tag, Duration::from_secs(10));
            if cancelled {
                return Ok((stdout, stderr, End::Cancelled));
            }
            // Whatever is still in the pipes, briefly.
            let drain_until = Instant::now() + Duration::from_millis(300);
            while let Ok(line) =
                lines.recv_timeout(drain_until.saturating_duration_since(Instant::now()))
            {
                take(line, on_line);
            }
            return Ok((stdout, stderr, End::TimedOut(bound)));
        }
        match lines.recv_timeout(Duration::from_millis(50)) {
            Ok(line) => take(line, on_line),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if exited.is_none() {
            exited = child.try_wait().map_err(wait_error)?;
            if exited.is_some() {
                exited_at = Some(Instant::now());
            }
        }
        // A process it started may keep the pipes open after it exited.
        if exited_at.is_some_and(|at| at.elapsed() > Duration::from_secs(1)) {
            break;
        }
    }
    let status = match exited {
        Some(status) => status,
        None => child.wait().map_err(wait_error)?,
    };
    Ok((stdout, stderr, End::Exited(status)))
}

/// Waits until no process carries `WORKBOOK_RUN=<tag>` (where `/proc` tells).
fn wait_until_gone(tag: &str, bound: Duration) {
    let needle = format!("WORKBOOK_RUN={tag}");
    let tagged = || {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return false;
        };
        entries.flatten().any(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == needle.as_bytes()))
        })
    };
    let deadline = Instant::now() + bound;
    while tagged() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs a command to its end, with its output shown to nobody; for the lints.
pub fn output(mut command: Command) -> Result<(bool, String), Error> {
    let program = command.get_program().to_string_lossy().into_owned();
    let out = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| Error::Spawn { program, source })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok((out.status.success(), text))
}
