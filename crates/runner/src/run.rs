//! One package's tests, built and run, and what came of each test.

use std::path::Path;
use std::time::Duration;

use crate::cargo::{Build, Cargo, End, Executable, RunEnv, Targets, run_tests};
use crate::error::Error;
use crate::libtest::{self, Failure, Status};
use crate::observations::Observations;
use crate::ui::Spinner;

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
    pub observations: Observations,
    /// What the harness said about its server (`harness: ...` lines).
    pub harness: Vec<String>,
    /// Time spent running tests (not building).
    pub run_time: Duration,
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
pub fn build_and_run(
    cargo: &Cargo,
    targets: Targets<'_>,
    observations: &Path,
    bound: Duration,
    spinner: &mut Spinner,
    what: &str,
) -> Result<PackageRun, Error> {
    spinner.phase(&format!("Building: {} --no-run", targets.command()));
    let build = cargo.build(targets, &mut |status| spinner.detail(status))?;
    let command = targets.command();
    let not_built = |build: Build, why: String| PackageRun {
        command: command.clone(),
        build,
        state: RunState::NotBuilt(why),
        tests: Vec::new(),
        observations: Observations::default(),
        harness: Vec::new(),
        run_time: Duration::ZERO,
    };
    if !build.errors.is_empty() {
        return Ok(PackageRun {
            state: RunState::CompileError,
            ..not_built(build, String::new())
        });
    }
    if !build.success {
        let why = build.cargo_errors().join("\n");
        return Ok(not_built(build, why));
    }
    let executables: Vec<Executable> = match targets {
        Targets::Test { package, target } => build
            .executable(package, target)
            .cloned()
            .into_iter()
            .collect(),
        Targets::Package(package) => build
            .executables
            .iter()
            .filter(|e| e.package == package)
            .cloned()
            .collect(),
        Targets::Workspace => build.executables.clone(),
    };
    if executables.is_empty() {
        return Ok(not_built(
            build,
            format!("`{command}` built no test executable"),
        ));
    }
    run_built(
        build,
        command,
        &executables,
        observations,
        bound,
        spinner,
        what,
    )
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
    spinner.phase(&format!("Running {what}"));
    let env = RunEnv {
        observations: Some(observations.to_owned()),
    };
    let several = executables.len() > 1;
    let mut tests = Vec::new();
    let mut harness = Vec::new();
    let mut state = RunState::Passed;
    let mut run_time = Duration::ZERO;
    for exe in executables {
        let run = run_tests(
            exe,
            &env,
            bound.saturating_sub(run_time),
            &mut |done, total| {
                if total > 0 {
                    spinner.detail(&format!("{done}/{total} tests"));
                }
            },
        )?;
        run_time += run.elapsed;
        harness.extend(
            run.stderr
                .lines()
                .filter(|l| l.starts_with("harness:"))
                .map(str::to_owned),
        );
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
            End::Exited(status) if report.summary.is_none() => {
                RunState::Crashed(crash(status, &run.stderr))
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
    Ok(PackageRun {
        command,
        build,
        state,
        tests,
        observations: Observations::read(observations),
        harness,
        run_time,
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

fn crash(status: std::process::ExitStatus, stderr: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (_, Some(signal)) => format!("was killed by signal {signal}"),
        (Some(code), None) => format!("exited with code {code}"),
        (None, None) => "ended".to_owned(),
    };
    let last: Vec<&str> = stderr.lines().rev().take(5).collect();
    let tail: Vec<&str> = last.into_iter().rev().collect();
    if tail.is_empty() {
        format!("the test process {how} before it reported its results")
    } else {
        format!(
            "the test process {how} before it reported its results; it said:\n{}",
            tail.join("\n")
        )
    }
}
