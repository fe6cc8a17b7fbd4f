//! One package's tests, built and run, and what came of each test.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use crate::cargo::{Build, Cargo, Executable, Targets};
use crate::error::Error;
use crate::libtest::{self, Failure, Status};
use crate::observations::{Condition, Observations};
use crate::state::State;
use crate::supervise::{End, RunEnv, TestRun, run_tests};
use crate::ui::Spinner;
use l10n::Localiser;
use l10n::t;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestStatus {
    Passed,
    Failed,
    Ignored,
    /// Still running when the run was stopped.
    Unfinished,
    /// Listed, but the run ended without a word about it.
    NotRun,
}

#[derive(Debug, Clone)]
pub struct TestVerdict {
    pub name: String,
    pub status: TestStatus,
    pub failure: Option<Failure>,
}

impl TestVerdict {
    /// The first line of the failure message ("" when it passed).
    pub fn first_line(&self) -> &str {
        self.failure
            .as_ref()
            .and_then(|f| f.message.lines().next())
            .unwrap_or("")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunState {
    /// The compiler rejected the code.
    CompileError,
    /// Cargo failed for another reason, or built no such test target.
    NotBuilt(String),
    Passed,
    Failed,
    /// Stopped at the bound.
    TimedOut(Duration),
    /// The test process died without libtest's closing line.
    Crashed(String),
    /// The target holds no test.
    NoTests,
}

#[derive(Debug, Clone)]
pub struct PackageRun {
    /// What a learner would type to run the same tests.
    pub command: String,
    pub build: Build,
    pub state: RunState,
    pub tests: Vec<TestVerdict>,
    /// What the tests recorded, and the conditions the harness reported.
    pub observations: Observations,
    /// Time spent running tests (not building).
    pub run_time: Duration,
    /// Everything the test executables printed, each under a line naming it:
    /// what a rare failure is read from after the fact.
    pub output: String,
}

impl PackageRun {
    pub fn failed(&self) -> impl Iterator<Item = &TestVerdict> {
        self.tests.iter().filter(|t| t.status == TestStatus::Failed)
    }

    pub fn count(&self, status: TestStatus) -> usize {
        self.tests.iter().filter(|t| t.status == status).count()
    }

    /// Whether `name` (a test, or an rstest function with cases `name::case_*`,
    /// or a test's last path segment) failed.
    pub fn caught_by(&self, name: &str) -> bool {
        self.failed().any(|t| {
            t.name == name
                || t.name.starts_with(&format!("{name}::"))
                || t.name.rsplit("::").next() == Some(name)
                || t.name.ends_with(&format!("::{name}"))
        })
    }

    /// Failed the way an untouched exercise should: it compiled, ran to its end
    /// and a test failed, with a real server behind it.
    pub fn fails_as_intended(&self) -> bool {
        self.state == RunState::Failed
            && !self.observations.met(|c| matches!(c, Condition::NoServer))
    }

    /// Whether the name of a test exists at all.
    pub fn has_test(&self, name: &str) -> bool {
        self.tests.iter().any(|t| {
            t.name == name
                || t.name.starts_with(&format!("{name}::"))
                || t.name.rsplit("::").next() == Some(name)
                || t.name.ends_with(&format!("::{name}"))
        })
    }
}

/// Builds `targets` and runs their test executables, bounded by `bound`, with
/// the observations going to `observations`.
///
/// `remembered` (the learner's state) names the executable the last build of a
/// single test target produced. While cargo checks whether anything needs
/// building (a fraction of a second even when nothing does), that executable
/// already runs; its results count only if cargo then reports that very file as
/// fresh. When a source file is newer than it, it is not even started.
pub fn build_and_run(
    cargo: &Cargo,
    targets: Targets<'_>,
    observations: &Path,
    bound: Duration,
    spinner: &mut Spinner,
    what: &str,
    remembered: Option<&State>,
) -> Result<PackageRun, Error> {
    // The server starts while cargo builds; on a server earlier runs used, the
    // databases of their killed test processes go meanwhile.
    crate::server::start_early();
    let sweep = crate::server::sweep_in_background();
    let env = RunEnv {
        observations: Some(observations.to_owned()),
    };
    let mut early = match (targets, remembered) {
        (Targets::Test { package, target }, Some(state)) => state
            .remembered_executable(package, target)
            .filter(looks_current)
            .map(|exe| EarlyRun::start(exe, env.clone(), bound)),
        _ => None,
    };
    let phase = t!(
        spinner.l10n(),
        "phase-building",
        command = format!("{} --no-run", targets.command())
    );
    spinner.phase(&phase);
    let build = cargo.build(targets, &mut |status| {
        spinner.detail(&status.said(spinner.l10n()));
    });
    let build = match build {
        Ok(build) => build,
        Err(e) => {
            if let Some(early) = early.take() {
                early.cancel();
            }
            return Err(e);
        }
    };
    let executables = build.executables_of(targets);
    // The early run counts only for the very executable cargo reports as fresh.
    let early = early.and_then(|early| match executables.as_slice() {
        [exe] if early.is_still(exe) => Some(early),
        _ => {
            early.cancel();
            // Whatever it recorded is not this build's.
            let _ = std::fs::write(observations, "");
            None
        }
    });
    let (build, executables) = match runnable(build, targets) {
        Ok(built) => built,
        Err(not_built) => return Ok(*not_built),
    };
    if let (Some(state), [exe]) = (remembered, executables.as_slice()) {
        state.remember_executable(exe);
    }
    let runs = run_all(&executables, &env, bound, spinner, what, early)?;
    if let Some(sweep) = sweep {
        let _ = sweep.join();
    }
    Ok(runs.into_package_run(targets.command(), build, observations))
}

/// The test executables `build` made for `targets`, or, when it made none
/// (compile errors, cargo's own failure, no such target), the run that says why.
pub fn runnable(
    build: Build,
    targets: Targets<'_>,
) -> Result<(Build, Vec<Executable>), Box<PackageRun>> {
    let command = targets.command();
    let not_built = |build: Build, state: RunState| {
        Box::new(PackageRun {
            command: command.clone(),
            build,
            state,
            tests: Vec::new(),
            observations: Observations::default(),
            run_time: Duration::ZERO,
            output: String::new(),
        })
    };
    if !build.errors.is_empty() {
        return Err(not_built(build, RunState::CompileError));
    }
    if !build.success {
        let why = build.cargo_errors().join("\n");
        return Err(not_built(build, RunState::NotBuilt(why)));
    }
    let executables = build.executables_of(targets);
    if executables.is_empty() {
        let why = format!("`{command}` built no test executable");
        return Err(not_built(build, RunState::NotBuilt(why)));
    }
    Ok((build, executables))
}

/// Runs test executables `build` made (for `command`), bounded by `bound` in all.
pub fn run_built(
    build: Build,
    command: String,
    executables: &[Executable],
    observations: &Path,
    bound: Duration,
    spinner: &mut Spinner,
    what: &str,
) -> Result<PackageRun, Error> {
    let env = RunEnv {
        observations: Some(observations.to_owned()),
    };
    let sweep = crate::server::sweep_in_background();
    let runs = run_all(executables, &env, bound, spinner, what, None)?;
    if let Some(sweep) = sweep {
        let _ = sweep.join();
    }
    Ok(runs.into_package_run(command, build, observations))
}

/// What running a package's test executables came to.
struct Runs {
    state: RunState,
    tests: Vec<TestVerdict>,
    run_time: Duration,
    output: String,
}

impl Runs {
    fn into_package_run(self, command: String, build: Build, observations: &Path) -> PackageRun {
        PackageRun {
            command,
            build,
            state: self.state,
            tests: self.tests,
            observations: Observations::read(observations),
            run_time: self.run_time,
            output: self.output,
        }
    }
}

fn run_all(
    executables: &[Executable],
    env: &RunEnv,
    bound: Duration,
    spinner: &mut Spinner,
    what: &str,
    mut early: Option<EarlyRun>,
) -> Result<Runs, Error> {
    let phase = t!(spinner.l10n(), "phase-running", what = what);
    spinner.phase(&phase);
    let several = executables.len() > 1;
    let mut tests = Vec::new();
    let mut state = RunState::Passed;
    let mut run_time = Duration::ZERO;
    let mut output = String::new();
    for exe in executables {
        let mut progress = |done: usize, total: usize| {
            if total > 0 {
                let detail = t!(
                    spinner.l10n(),
                    "phase-tests-done",
                    done = done,
                    count = total
                );
                spinner.detail(&detail);
            }
        };
        let run = match early.take() {
            Some(early) => early.wait(&mut progress)?,
            None => run_tests(
                exe,
                env,
                bound.saturating_sub(run_time),
                &AtomicBool::new(false),
                &mut progress,
            )?,
        };
        run_time += run.elapsed;
        output.push_str(&transcript(exe, &run));
        let report = run.report();
        let prefix = if several {
            format!("{}: ", exe.target)
        } else {
            String::new()
        };
        let names: Vec<String> = if run.listed.is_empty() {
            report.results.iter().map(|(n, _)| n.clone()).collect()
        } else {
            run.listed.clone()
        };
        let timed_out = matches!(run.end, End::TimedOut(_));
        for name in names {
            let status = match report.status(&name) {
                Some(Status::Passed) => TestStatus::Passed,
                Some(Status::Failed) => TestStatus::Failed,
                Some(Status::Ignored) => TestStatus::Ignored,
                None if timed_out => TestStatus::Unfinished,
                None => TestStatus::NotRun,
            };
            let failure = report.sections.get(&name).map(|s| libtest::failure(s));
            tests.push(TestVerdict {
                name: format!("{prefix}{name}"),
                status,
                failure,
            });
        }
        let this = match run.end {
            End::TimedOut(bound) => RunState::TimedOut(bound),
            End::Cancelled => RunState::Crashed(t!(spinner.l10n(), "run-stopped")),
            End::Exited(status) if report.summary.is_none() => {
                RunState::Crashed(crash(spinner.l10n(), status, &run.stderr))
            }
            End::Exited(status) if status.success() => RunState::Passed,
            End::Exited(_) => RunState::Failed,
        };
        state = worse(state, this);
        if matches!(state, RunState::TimedOut(_)) {
            break;
        }
    }
    if state == RunState::Passed && tests.is_empty() {
        state = RunState::NoTests;
    }
    if state == RunState::Passed && tests.iter().any(|t| t.status == TestStatus::Failed) {
        state = RunState::Failed;
    }
    Ok(Runs {
        state,
        tests,
        run_time,
        output,
    })
}

/// One executable's run as it happened: how it ended, then its stdout and stderr whole.
fn transcript(exe: &Executable, run: &TestRun) -> String {
    let end = match run.end {
        End::Exited(status) => status.to_string(),
        End::TimedOut(bound) => format!("stopped at the bound of {} s", bound.as_secs()),
        End::Cancelled => "cancelled".to_owned(),
    };
    format!(
        "── {} ({}): {end} after {:.2} s\n── stdout\n{}── stderr\n{}",
        exe.target,
        exe.path.display(),
        run.elapsed.as_secs_f64(),
        run.stdout,
        run.stderr
    )
}

/// A test executable started before cargo said whether it is current.
struct EarlyRun {
    exe: Executable,
    modified: Option<SystemTime>,
    cancel: Arc<AtomicBool>,
    progress: Receiver<(usize, usize)>,
    thread: JoinHandle<Result<TestRun, Error>>,
}

impl EarlyRun {
    fn start(exe: Executable, env: RunEnv, bound: Duration) -> Self {
        let modified = modified(&exe.path);
        let cancel = Arc::new(AtomicBool::new(false));
        let (tell, progress) = mpsc::channel();
        let thread = {
            let (exe, cancel) = (exe.clone(), cancel.clone());
            std::thread::spawn(move || {
                run_tests(&exe, &env, bound, &cancel, &mut |done, total| {
                    let _ = tell.send((done, total));
                })
            })
        };
        Self {
            exe,
            modified,
            cancel,
            progress,
            thread,
        }
    }

    /// Whether cargo's `exe` is the file this run started, untouched since.
    fn is_still(&self, exe: &Executable) -> bool {
        exe.fresh && exe.path == self.exe.path && modified(&exe.path) == self.modified
    }

    /// Stops the run and waits until its processes are gone.
    fn cancel(self) {
        self.cancel.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }

    /// The run's results, with its progress told as it goes.
    fn wait(self, progress: &mut dyn FnMut(usize, usize)) -> Result<TestRun, Error> {
        // The channel closes when the run's thread ends.
        for (done, total) in self.progress.iter() {
            progress(done, total);
        }
        self.thread.join().unwrap_or_else(|_| {
            Err(Error::Command {
                command: self.exe.path.display().to_string(),
                detail: "the thread running the tests panicked".to_owned(),
            })
        })
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// No file of the package, nor the test's source, is newer than the executable:
/// the edit a learner just saved will be rebuilt, and running the old build first
/// would only slow that down.
fn looks_current(exe: &Executable) -> bool {
    let Some(built) = modified(&exe.path) else {
        return false;
    };
    let newer = |path: &Path| modified(path).is_some_and(|m| m > built);
    !newer(&exe.src_path) && !any_newer(&exe.manifest_dir, &newer)
}

fn any_newer(dir: &Path, newer: &dyn Fn(&Path) -> bool) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                let name = entry.file_name();
                name != "target"
                    && !name.to_string_lossy().starts_with('.')
                    && any_newer(&path, newer)
            }
            Ok(_) => newer(&path),
            Err(_) => false,
        }
    })
}

fn worse(a: RunState, b: RunState) -> RunState {
    let rank = |s: &RunState| match s {
        RunState::Passed | RunState::NoTests => 0,
        RunState::Failed => 1,
        RunState::Crashed(_) => 2,
        RunState::TimedOut(_) => 3,
        RunState::CompileError | RunState::NotBuilt(_) => 4,
    };
    if rank(&b) > rank(&a) { b } else { a }
}

fn crash(l: &Localiser, status: std::process::ExitStatus, stderr: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (_, Some(signal)) => t!(l, "crash-killed", signal = signal.to_string()),
        (Some(code), None) => t!(l, "crash-exited", code = code.to_string()),
        (None, None) => t!(l, "crash-ended"),
    };
    let last: Vec<&str> = stderr.lines().rev().take(5).collect();
    let tail: Vec<&str> = last.into_iter().rev().collect();
    if tail.is_empty() {
        t!(l, "crash", how = how)
    } else {
        format!("{}\n{}", t!(l, "crash-it-said", how = how), tail.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    use super::looks_current;
    use crate::cargo::Executable;

    fn file_at(path: &Path, age: Duration) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the directory");
        let file = std::fs::File::create(path).expect("the file");
        file.set_modified(SystemTime::now() - age)
            .expect("the file's time is set");
    }

    #[test]
    fn an_executable_older_than_a_file_of_its_package_is_not_run_before_the_build() {
        let dir = std::env::temp_dir().join(format!("runner-looks-current-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let exe = Executable {
            package: "stage3".into(),
            target: "stage3".into(),
            integration: true,
            path: dir.join("target/debug/deps/stage3-0123"),
            manifest_dir: dir.join("exercise"),
            src_path: dir.join("tests/stage3.rs"),
            fresh: false,
        };
        file_at(&exe.path, Duration::from_secs(60));
        file_at(&exe.src_path, Duration::from_secs(120));
        file_at(&dir.join("exercise/src/lib.rs"), Duration::from_secs(120));
        // The package's own target directory does not count.
        file_at(&dir.join("exercise/target/debug/x"), Duration::ZERO);
        assert!(looks_current(&exe), "nothing is newer than the executable");

        file_at(&dir.join("exercise/src/lib.rs"), Duration::ZERO);
        assert!(!looks_current(&exe), "the learner just saved lib.rs");

        file_at(&dir.join("exercise/src/lib.rs"), Duration::from_secs(120));
        file_at(&exe.src_path, Duration::ZERO);
        assert!(!looks_current(&exe), "the test file changed");

        std::fs::remove_file(&exe.path).expect("the executable is removed");
        assert!(!looks_current(&exe), "no executable, nothing to run early");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
