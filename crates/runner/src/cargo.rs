//! Building test targets with cargo, and running them with a bound.
//!
//! `cargo test --no-run --message-format json` (cargo's stable JSON messages)
//! builds the targets and names their executables; the runner then starts each
//! test executable itself, the way `cargo test` would (same working directory and
//! `CARGO_MANIFEST_DIR`), so that it can stop a run that hangs and read libtest's
//! plain output as it comes.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::Error;
use crate::libtest;

/// What to build.
#[derive(Debug, Clone, Copy)]
pub enum Targets<'a> {
    /// `cargo test -p PACKAGE --test TARGET`
    Test { package: &'a str, target: &'a str },
    /// `cargo test -p PACKAGE`: every test executable of the package.
    Package(&'a str),
    /// `cargo test --workspace`
    Workspace,
}

impl Targets<'_> {
    fn args(&self) -> Vec<String> {
        match self {
            Self::Test { package, target } => {
                vec![
                    "-p".into(),
                    (*package).into(),
                    "--test".into(),
                    (*target).into(),
                ]
            }
            Self::Package(package) => vec!["-p".into(), (*package).into()],
            Self::Workspace => vec!["--workspace".into()],
        }
    }

    /// The command a learner would type for the same tests.
    pub fn command(&self) -> String {
        format!("cargo test {}", self.args().join(" "))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Executable {
    pub package: String,
    pub target: String,
    /// A `tests/` target (`--test NAME`), not a library's or binary's unit tests,
    /// which may carry the same name.
    pub integration: bool,
    pub path: PathBuf,
    pub manifest_dir: PathBuf,
    /// The target's root source file (`tests/stage3_unique_key.rs`).
    #[serde(default)]
    pub src_path: PathBuf,
    /// Cargo found it up to date: this build did not rewrite it.
    #[serde(skip)]
    pub fresh: bool,
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub package: String,
    pub rendered: String,
}

#[derive(Debug, Clone)]
pub struct Build {
    pub success: bool,
    pub executables: Vec<Executable>,
    /// The compiler's errors, rendered as rustc prints them.
    pub errors: Vec<Diagnostic>,
    pub warnings: usize,
    /// What cargo itself printed (status lines and its own errors).
    pub stderr: String,
    pub elapsed: Duration,
}

impl Build {
    /// Cargo's own error lines, for failures that are not the compiler's.
    pub fn cargo_errors(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("error") || l.starts_with("Caused by") || l.starts_with("  "))
            .collect()
    }

    /// The integration test `target` of `package` (what `--test TARGET` runs).
    pub fn executable(&self, package: &str, target: &str) -> Option<&Executable> {
        self.executables
            .iter()
            .find(|e| e.package == package && e.target == target && e.integration)
    }
}

/// Runs cargo for one workspace.
#[derive(Debug, Clone)]
pub struct Cargo {
    pub program: OsString,
    pub root: PathBuf,
    /// Ask for coloured compiler messages.
    pub color: bool,
}

enum Line {
    Out(String),
    Err(String),
}

impl Cargo {
    pub fn new(root: &Path, color: bool) -> Self {
        Self {
            program: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            root: root.to_owned(),
            color,
        }
    }

    /// A cargo command for the workbook, without what cargo told this process
    /// about itself when it ran it (`cargo run` sets `CARGO_MANIFEST_DIR`,
    /// `CARGO_PKG_*`, ...): build scripts that watch those variables (ring's
    /// does) would otherwise rebuild on every alternation of `cargo run` and
    /// the runner's own cargo, half the dependency tree each time.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(args)
            .current_dir(&self.root)
            .stdin(Stdio::null());
        for (name, _) in std::env::vars_os() {
            if let Some(name) = name.to_str()
                && is_set_by_cargo_for_its_child(name)
            {
                command.env_remove(name);
            }
        }
        command
    }

    /// Builds `targets` (without running them); `status` hears what cargo is doing.
    pub fn build(
        &self,
        targets: Targets<'_>,
        status: &mut dyn FnMut(&str),
    ) -> Result<Build, Error> {
        let started = Instant::now();
        let format = if self.color {
            "json-diagnostic-rendered-ansi"
        } else {
            "json"
        };
        let manifest = self.root.join("Cargo.toml");
        let mut command = self.command(&["test", "--no-run", "--color", "never"]);
        command
            .arg("--message-format")
            .arg(format)
            .arg("--manifest-path")
            .arg(&manifest)
            .args(targets.args())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|source| Error::Spawn {
            program: "cargo".into(),
            source,
        })?;
        let lines = read_lines(&mut child);
        let mut build = Build {
            success: false,
            executables: Vec::new(),
            errors: Vec::new(),
            warnings: 0,
            stderr: String::new(),
            elapsed: Duration::ZERO,
        };
        let mut finished = None;
        let mut compiled = 0;
        for line in lines {
            match line {
                Line::Err(text) => {
                    let t = text.trim_start();
                    if let Some(rest) = t.strip_prefix("Compiling ") {
                        let name = rest.split_whitespace().next().unwrap_or(rest);
                        compiled += 1;
                        // A first build compiles a few hundred crates: say so, so that
                        // two minutes of it do not look like a hang.
                        status(&format!(
                            "compiling {name} ({compiled} crates so far; a first build \
                             compiles a few hundred, once)"
                        ));
                    } else if t.starts_with("Blocking waiting for file lock") {
                        status("waiting for another cargo to finish (build directory lock)");
                    }
                    build.stderr.push_str(&text);
                    build.stderr.push('\n');
                }
                Line::Out(json) => {
                    let Ok(message) = serde_json::from_str::<Value>(&json) else {
                        continue;
                    };
                    match message["reason"].as_str() {
                        Some("compiler-artifact") => {
                            if let Some(exe) = executable(&message) {
                                build.executables.push(exe);
                            }
                        }
                        Some("compiler-message") => {
                            let level = message["message"]["level"].as_str().unwrap_or("");
                            let text = message["message"]["message"].as_str().unwrap_or("");
                            if level == "warning" {
                                build.warnings += 1;
                            } else if level.starts_with("error")
                                && !text.starts_with("aborting due to")
                            {
                                build.errors.push(Diagnostic {
                                    package: package_name(
                                        message["package_id"].as_str().unwrap_or(""),
                                    ),
                                    rendered: message["message"]["rendered"]
                                        .as_str()
                                        .unwrap_or(text)
                                        .trim_end()
                                        .to_owned(),
                                });
                            }
                        }
                        Some("build-finished") => finished = message["success"].as_bool(),
                        _ => {}
                    }
                }
            }
        }
        let exit = child.wait().map_err(|source| Error::Spawn {
            program: "cargo".into(),
            source,
        })?;
        build.success = exit.success() && finished != Some(false);
        build.elapsed = started.elapsed();
        Ok(build)
    }
}

/// The variables cargo sets for the processes it runs (`cargo run`, tests,
/// build scripts), as opposed to those that configure cargo.
fn is_set_by_cargo_for_its_child(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_MANIFEST_LINKS",
        "CARGO_CRATE_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "CARGO_MAKEFLAGS",
        "OUT_DIR",
    ];
    EXACT.contains(&name)
        || name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_BIN_")
        || name.starts_with("CARGO_CFG_")
}

fn read_lines(child: &mut Child) -> Receiver<Line> {
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        let tx = tx.clone();
        std::thread::spawn(move || forward(out, |l| tx.send(Line::Out(l)).is_ok()));
    }
    if let Some(err) = child.stderr.take() {
        std::thread::spawn(move || forward(err, |l| tx.send(Line::Err(l)).is_ok()));
    }
    rx
}

fn forward(stream: impl Read, mut send: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(stream);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if !send(line.trim_end_matches(['\n', '\r']).to_owned()) {
                    return;
                }
            }
        }
    }
}

fn executable(message: &Value) -> Option<Executable> {
    if message["profile"]["test"].as_bool() != Some(true) {
        return None;
    }
    let path = PathBuf::from(message["executable"].as_str()?);
    let manifest_path = PathBuf::from(message["manifest_path"].as_str()?);
    Some(Executable {
        package: package_name(message["package_id"].as_str().unwrap_or("")),
        target: message["target"]["name"].as_str()?.to_owned(),
        integration: message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "test")),
        path,
        manifest_dir: manifest_path.parent()?.to_owned(),
        src_path: PathBuf::from(message["target"]["src_path"].as_str().unwrap_or("")),
        fresh: message["fresh"].as_bool() == Some(true),
    })
}

/// The package's name in a package id: `path+file:///w/crates/x#name@0.1.0`,
/// `path+file:///w/crates/name#0.1.0`, or the old `name 0.1.0 (path+file://...)`.
pub fn package_name(id: &str) -> String {
    if let Some((url, fragment)) = id.rsplit_once('#') {
        return match fragment.split_once('@') {
            Some((name, _)) => name.to_owned(),
            None => url.rsplit('/').next().unwrap_or(url).to_owned(),
        };
    }
    id.split_whitespace().next().unwrap_or(id).to_owned()
}

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
    let list = run_bounded(
        test_command(exe, env, &["--list", "--format", "terse"]),
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
    let run = test_command(exe, env, &["--test-threads", &threads]);
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

fn test_command(exe: &Executable, env: &RunEnv, args: &[&str]) -> Command {
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
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The learner's loop keeps one PostgreSQL container between runs (when the
    // tests use Docker); CI starts a throwaway one each time.
    if crate::environment::container_is_kept() {
        command.env("WORKBOOK_KEEP_CONTAINER", "1");
    }
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

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn only_what_cargo_sets_for_its_children_is_dropped() {
        use super::is_set_by_cargo_for_its_child as dropped;
        assert!(dropped("CARGO_MANIFEST_DIR"));
        assert!(dropped("CARGO_PKG_NAME"));
        assert!(dropped("CARGO_BIN_EXE_workbook"));
        assert!(!dropped("CARGO_TARGET_DIR"));
        assert!(!dropped("CARGO_HOME"));
        assert!(!dropped("CARGO"));
    }

    #[test]
    fn package_names_come_out_of_every_id_format() {
        assert_eq!(
            package_name(
                "path+file:///work/main/exercises/stage1-tables#stage1-tables-exercise@0.1.0"
            ),
            "stage1-tables-exercise"
        );
        assert_eq!(
            package_name("path+file:///work/main/crates/runner#0.1.0"),
            "runner"
        );
        assert_eq!(
            package_name("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.1"),
            "serde"
        );
        assert_eq!(package_name("serde 1.0.1 (registry+https://x)"), "serde");
    }
}
