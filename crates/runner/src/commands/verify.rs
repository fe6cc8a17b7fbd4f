//! `workbook verify`: what CI runs. For every stage: the solution passes; the
//! untouched exercise fails, and for the intended reason (it compiles, does not
//! hang); every known-wrong package fails, caught by the tests it names; every
//! prediction's answer key is what really happens; the metadata is complete.
//! Then `cargo fmt --check` and clippy with `-D warnings`.

use std::collections::HashMap;
use std::process::Command;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::ahead::{Ahead, RunOf};
use crate::cargo::{Build, Cargo, Executable, Targets};
use crate::error::Error;
use crate::exercise_files::{pasted_code, unexpected_files};
use crate::judgement::{Judged, Judgement, Judging, PackageRunner, PackageRuns, judge};
use crate::render;
use crate::review::{self, Evidence, Review, ReviewTwin, disagreements};
use crate::run::{PackageRun, RunState, run_built, runnable};
use crate::stages::{self, Observed, Stage};
use crate::state::State;
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;
use crate::{supervise, twins};
use l10n::{Lang, t};

#[derive(Debug, Clone)]
struct Check {
    stage: Option<u32>,
    what: String,
    ok: bool,
    detail: String,
}

struct Verifier<'a> {
    wb: &'a Workbook,
    cargo: Cargo,
    state: State,
    timeout: Duration,
    spinner: Spinner,
    checks: Vec<Check>,
    /// Whole-package runs for `observed_by`, each package run once.
    package_runs: PackageRuns<'static>,
    /// The one build of every package (plain `cargo test --no-run`, then the other
    /// members), whose executables the checks run.
    workspace: Option<Build>,
    /// The runs of that build's executables, under way in the background.
    ahead: Option<Ahead>,
    /// Each exercise built alone, by package.
    exercises: HashMap<String, Build>,
}

/// How many runs go on at once. Most of a run is waiting (on PostgreSQL, on
/// locks and bounds the tests hold on purpose); three keep two cores busy
/// without slowing any run past its bounds.
const RUNS_AT_ONCE: usize = 3;

/// What the spinner says while verify (or `--build-only`) builds every package.
const BUILD_PHASE: &str =
    "Building every package's tests once (cargo test --no-run, then the other members)";

/// `verify --build-only`: the build verify starts with, alone. A later `verify`
/// finds every package fresh; CI runs this while plain `cargo test` runs its tests
/// (cargo holds `target/`'s lock only while it builds).
pub fn build_only(wb: &Workbook) -> Result<bool, Error> {
    let mut spinner = Spinner::new();
    spinner.phase(BUILD_PHASE);
    let build = Cargo::new(&wb.root, false).build_every_package(&mut |status| {
        spinner.detail(&status.said(spinner.l10n()));
    });
    spinner.finish();
    let build = build?;
    if build.success {
        println!(
            "every package's tests built in {:.0} s",
            build.elapsed.as_secs_f64()
        );
    } else {
        for error in &build.errors {
            eprintln!("{}", error.rendered);
        }
        for line in build.cargo_errors() {
            eprintln!("{line}");
        }
    }
    Ok(build.success)
}

/// `only`: these stages' checks instead of every stage's and the review's (all
/// when empty).
pub fn run(wb: &Workbook, only: &[u32], timeout: Duration) -> Result<bool, Error> {
    for &n in only {
        wb.stage(n)?;
    }
    let started = Instant::now();
    let mut v = Verifier {
        wb,
        cargo: Cargo::new(&wb.root, false),
        state: State::new(&wb.state_dir),
        timeout,
        spinner: Spinner::new(),
        checks: Vec::new(),
        package_runs: PackageRuns::default(),
        workspace: None,
        ahead: None,
        exercises: HashMap::new(),
    };
    let result = v.all(only);
    v.spinner.finish();
    result?;
    summary(&v.checks, started.elapsed());
    Ok(v.checks.iter().all(|c| c.ok))
}

impl Verifier<'_> {
    fn all(&mut self, only: &[u32]) -> Result<(), Error> {
        self.metadata();
        self.exercise_files()?;
        self.spinner.phase(BUILD_PHASE);
        let build = self.cargo.build_every_package(&mut |_| {})?;
        let broken: Vec<String> = {
            let mut names: Vec<String> = build.errors.iter().map(|e| e.package.clone()).collect();
            names.dedup();
            names
        };
        self.check(
            None,
            "the workspace builds",
            build.success,
            if build.success {
                format!("{:.0} s", build.elapsed.as_secs_f64())
            } else if broken.is_empty() {
                build.cargo_errors().join("\n")
            } else {
                format!("compile errors in {}", broken.join(", "))
            },
        );
        let stages: Vec<Stage> = self
            .wb
            .stages
            .iter()
            .filter(|s| only.is_empty() || only.contains(&s.number))
            .cloned()
            .collect();
        // A workbook without a capstone (the runner's own test fixtures) has none to check.
        let review = if only.is_empty() && Review::file(&self.wb.root).exists() {
            Some(Review::load(&self.wb.root)?)
        } else {
            None
        };
        self.ahead = Some(Ahead::start(
            RUNS_AT_ONCE,
            runs_read(&stages, review.as_ref()),
            &build,
            &self.state,
            self.timeout,
        ));
        self.workspace = Some(build);
        // Every build before clippy's: they would wait for each other on cargo's
        // lock, while the runs above need none.
        for stage in &stages {
            self.build_exercise(stage)?;
        }
        let lints = self.start_lints();
        for stage in &stages {
            self.stage(stage)?;
        }
        if let Some(review) = &review {
            self.review(review)?;
        }
        self.ahead = None;
        self.lints(lints)
    }

    fn check(&mut self, stage: Option<u32>, what: &str, ok: bool, detail: String) {
        let mark = render::mark(ok);
        let at = stage.map(|n| format!("stage {n} · ")).unwrap_or_default();
        let first = detail.lines().next().unwrap_or("");
        let line = if first.is_empty() {
            format!("{mark} {at}{what}")
        } else {
            format!("{mark} {at}{what}: {first}")
        };
        self.spinner.println(&line);
        self.checks.push(Check {
            stage,
            what: what.to_owned(),
            ok,
            detail,
        });
    }

    fn metadata(&mut self) {
        let numbers: Vec<u32> = self.wb.stages.iter().map(|s| s.number).collect();
        let expected: Vec<u32> = (1..=u32::try_from(numbers.len()).unwrap_or(0)).collect();
        self.check(
            None,
            "stages are numbered 1, 2, 3, ...",
            numbers == expected && !numbers.is_empty(),
            format!(
                "{} has stages {numbers:?}",
                self.wb.shown(&self.wb.stages_file)
            ),
        );
        self.twins();
        let stages = self.wb.stages.clone();
        for stage in &stages {
            let mut problems = stage.problems();
            for file in &stage.edit {
                if !self.wb.root.join(file).is_file() {
                    problems.push(format!("its edit file {file} does not exist"));
                }
            }
            let ok = problems.is_empty();
            let detail = if ok {
                format!(
                    "{} hints, {} predictions, {} known-wrong packages",
                    stage.hints.len(),
                    stage.predictions.len(),
                    stage.known_wrong.len()
                )
            } else {
                problems.join("; ")
            };
            self.check(
                Some(stage.number),
                "has hints and well-formed predictions",
                ok,
                detail,
            );
        }
    }

    /// Each exercise crate holds its edit files and nothing else of its own: given
    /// code is the solution's file, compiled in with `#[path]`, or an identical copy,
    /// and a crate root the learner does not edit holds only wiring.
    fn exercise_files(&mut self) -> Result<(), Error> {
        let dirs = self.cargo.package_dirs()?;
        let stages = self.wb.stages.clone();
        for stage in &stages {
            let (Some(exercise), Some(solution)) =
                (dirs.get(&stage.exercise), dirs.get(&stage.solution))
            else {
                continue; // the build check names a missing package
            };
            let unexpected = unexpected_files(&self.wb.root, exercise, solution, &stage.edit);
            let pasted = pasted_code(&self.wb.root, exercise, &stage.edit);
            let detail = unexpected
                .iter()
                .map(|u| u.message(stage.number))
                .chain(pasted.iter().map(|p| p.message(stage.number, &stage.edit)))
                .collect::<Vec<_>>()
                .join("\n");
            self.check(
                Some(stage.number),
                "the exercise holds only its edit files and given code",
                unexpected.is_empty() && pasted.is_empty(),
                detail,
            );
            let (ok, detail) = match super::manifests::expected(self.wb, &dirs, stage) {
                Ok((path, want))
                    if std::fs::read_to_string(&path).is_ok_and(|have| have == want) =>
                {
                    (true, String::new())
                }
                Ok((path, _)) => (
                    false,
                    format!(
                        "{} is not what `cargo workbook manifests` writes from {}: run it",
                        self.wb.shown(&path),
                        self.wb.shown(&solution.join("Cargo.toml"))
                    ),
                ),
                Err(e) => (false, e.to_string()),
            };
            self.check(
                Some(stage.number),
                "the exercise's manifest is its solution's, derived",
                ok,
                detail,
            );
        }
        Ok(())
    }

    /// Every learner text of stages.toml has its twin in each other language.
    fn twins(&mut self) {
        let lang = Lang::BrazilianPortuguese;
        let shown = self.wb.shown(&twins::path(&self.wb.stages_file, lang));
        // The English texts, whatever language this run speaks.
        let found = stages::load(&self.wb.stages_file).and_then(|english| {
            let twin = twins::load(&self.wb.stages_file, lang)?;
            Ok(twin.map(|twin| twins::problems(&english, &twin, &shown)))
        });
        self.twin_check(&shown, "stages.toml", found);
        if Review::file(&self.wb.root).exists() {
            let shown = self.wb.shown(&ReviewTwin::file(&self.wb.root, lang));
            let found = Review::load(&self.wb.root).and_then(|review| {
                let twin = ReviewTwin::load(&self.wb.root, lang)?;
                Ok(twin.map(|twin| twin.problems(&review, &shown)))
            });
            self.twin_check(&shown, "review/review.toml", found);
        }
    }

    /// One check: the twin `shown` of `english` exists and mirrors it (`found`:
    /// its problems, `None` when there is no such file).
    fn twin_check(
        &mut self,
        shown: &str,
        english: &str,
        found: Result<Option<Vec<String>>, Error>,
    ) {
        let problems = match found {
            Ok(Some(problems)) => problems,
            Ok(None) => vec![format!(
                "{shown} does not exist: every learner text of {english} needs its twin there"
            )],
            Err(e) => vec![e.to_string()],
        };
        let what = format!("{shown} translates every text of {english}");
        self.check(None, &what, problems.is_empty(), problems.join("; "));
    }

    /// Runs `targets`' executables from the workspace build. A separate
    /// `cargo test -p PACKAGE` would unify the dependencies' features over that
    /// package alone: other builds of tokio, hyper, sqlx, testcontainers... and a
    /// relink of every test executable, for each package (most of verify's time).
    /// A package that did not build there is built alone, for its errors.
    fn run(&mut self, targets: Targets<'_>, what: &str) -> Result<PackageRun, Error> {
        if let Some(run) = self.ahead.as_ref().and_then(|ahead| ahead.take(targets)) {
            return run;
        }
        let Some((build, executables)) = self.built(targets) else {
            return self.build_and_run(targets, what);
        };
        let file = self.state.run_file("verify")?;
        run_built(
            build,
            targets.command(),
            &executables,
            file.path(),
            self.timeout,
            &mut self.spinner,
            what,
        )
    }

    /// Builds `targets` alone, as `cargo workbook stage N` does, then runs them.
    fn build_and_run(&mut self, targets: Targets<'_>, what: &str) -> Result<PackageRun, Error> {
        let build = self.build_alone(targets)?;
        self.run_build(build, targets, what)
    }

    fn build_alone(&mut self, targets: Targets<'_>) -> Result<Build, Error> {
        let spinner = &mut self.spinner;
        let phase = t!(
            spinner.l10n(),
            "phase-building",
            command = format!("{} --no-run", targets.command())
        );
        spinner.phase(&phase);
        self.cargo.build(targets, &mut |status| {
            spinner.detail(&status.said(spinner.l10n()));
        })
    }

    fn run_build(
        &mut self,
        build: Build,
        targets: Targets<'_>,
        what: &str,
    ) -> Result<PackageRun, Error> {
        let (build, executables) = match runnable(build, targets) {
            Ok(built) => built,
            Err(not_built) => return Ok(*not_built),
        };
        let file = self.state.run_file("verify")?;
        run_built(
            build,
            targets.command(),
            &executables,
            file.path(),
            self.timeout,
            &mut self.spinner,
            what,
        )
    }

    /// The stage's exercise built alone, exactly as the learner's `cargo workbook
    /// stage N` builds it: an exercise that compiles only with features another
    /// package turns on is caught here.
    fn build_exercise(&mut self, stage: &Stage) -> Result<(), Error> {
        let build = self.build_alone(exercise_targets(stage))?;
        self.exercises.insert(stage.exercise.clone(), build);
        Ok(())
    }

    /// The workspace build and its executables for `targets`, when it made them.
    fn built(&self, targets: Targets<'_>) -> Option<(Build, Vec<Executable>)> {
        let build = self.workspace.as_ref()?;
        let executables = build.executables_of(targets);
        (!executables.is_empty()).then(|| (build.clone(), executables))
    }

    /// `just review`'s answer key: every route's tests find broken exactly the
    /// items the key says it gets wrong.
    fn review(&mut self, review: &Review) -> Result<(), Error> {
        let problems = review.problems(&self.wb.root);
        self.check(
            None,
            "review: review/review.toml names known items and lines that exist",
            problems.is_empty(),
            problems.join("\n"),
        );
        for route in &review.routes {
            let run = self.run(
                Targets::Test {
                    package: &route.package,
                    target: review::TEST_TARGET,
                },
                &format!("review: route {}", route.name),
            )?;
            let evidence = Evidence::of(review, &run);
            let problems = disagreements(route, &evidence);
            let broken: Vec<&str> = route.broken.keys().map(String::as_str).collect();
            self.check(
                None,
                &format!(
                    "review: route {}'s tests agree with its answer key",
                    route.name
                ),
                problems.is_empty(),
                if problems.is_empty() {
                    format!(
                        "broken: {}",
                        if broken.is_empty() {
                            "none".to_owned()
                        } else {
                            broken.join(", ")
                        }
                    )
                } else {
                    problems.join("\n")
                },
            );
        }
        Ok(())
    }

    fn stage(&mut self, stage: &Stage) -> Result<(), Error> {
        let n = stage.number;
        let solution = self.run(
            Targets::Test {
                package: &stage.solution,
                target: &stage.test,
            },
            &format!("stage {n}: {}", stage.solution),
        )?;
        let ok = solution.state == RunState::Passed;
        let detail = if ok {
            format!(
                "{} tests pass ({:.1} s)",
                solution.tests.len(),
                solution.run_time.as_secs_f64()
            )
        } else {
            render::why_not_passing(&crate::messages::english(), &solution)
        };
        self.check(
            Some(n),
            &format!("solution {} passes", stage.solution),
            ok,
            detail,
        );

        let what = format!("stage {n}: {}", stage.exercise);
        let exercise = match self.exercises.remove(&stage.exercise) {
            Some(build) => self.run_build(build, exercise_targets(stage), &what)?,
            None => self.build_and_run(exercise_targets(stage), &what)?,
        };
        let (ok, mut detail) = fails_as_intended(&exercise);
        if ok && detail.is_empty() {
            detail = "fails".to_owned();
        }
        // Where verify's time goes, said on the line each check prints: this
        // build is the learner's own, not the workspace's.
        let took = format!(
            " (built alone in {:.1} s, ran {:.1} s)",
            exercise.build.elapsed.as_secs_f64(),
            exercise.run_time.as_secs_f64()
        );
        detail.insert_str(detail.find('\n').unwrap_or(detail.len()), &took);
        if !ok && self.edited(stage) {
            detail.push_str(&format!(
                " (note: {} has local changes; verify checks the working copy)",
                stage.edit.join(", ")
            ));
        }
        self.check(
            Some(n),
            &format!(
                "untouched exercise {} fails for the intended reason",
                stage.exercise
            ),
            ok,
            detail,
        );

        for wrong in &stage.known_wrong {
            let run = self.run(
                Targets::Test {
                    package: &wrong.package,
                    target: stage.test_of(wrong),
                },
                &format!("stage {n}: {}", wrong.package),
            )?;
            let (mut ok, mut detail) = fails_as_intended(&run);
            let mut misses = Vec::new();
            if ok {
                for name in &wrong.catches {
                    if !run.has_test(name) {
                        misses.push(format!("there is no test `{name}`"));
                    } else if !run.caught_by(name) {
                        misses.push(format!("`{name}` passes, so it does not catch it"));
                    }
                }
                if wrong.catches.is_empty() {
                    misses.push("it names no test in `catches`".to_owned());
                }
                if !misses.is_empty() {
                    ok = false;
                    detail = misses.join("; ");
                } else {
                    detail = format!(
                        "caught by {} ({:.1} s)",
                        wrong.catches.join(", "),
                        run.run_time.as_secs_f64()
                    );
                }
            }
            self.check(
                Some(n),
                &format!("known-wrong {} is rejected", wrong.package),
                ok,
                detail,
            );
        }

        let mut packages = std::mem::take(&mut self.package_runs);
        let gathered = packages.gather(stage, Judging::AnswerKey, &mut StageRuns { v: self, n });
        self.package_runs = packages;
        gathered?;
        for j in judge(
            stage,
            Judging::AnswerKey,
            &solution.observations,
            &self.package_runs,
        ) {
            let Judged {
                prediction: p,
                source,
                scenario,
                seen,
                judgement,
                ..
            } = j;
            let shown = seen.shown();
            let ok = judgement == Judgement::Right;
            let detail = match (judgement, &seen.observed) {
                (Judgement::Right, _) => format!(
                    "{source} recorded {}={shown} in {scenario}, as the key says",
                    p.metric
                ),
                (_, Observed::Choice(i)) => format!(
                    "the key says {:?}, but {source} recorded {}={shown} in {scenario}, which is {:?}",
                    p.answer, p.metric, p.choices[*i].label
                ),
                (_, Observed::NoChoice) => format!(
                    "{source} recorded {}={shown} in {scenario}, which matches none of the choices",
                    p.metric
                ),
                (_, Observed::Nothing) if seen.without_metric => format!(
                    "{source} recorded {scenario}, but no `{}` in it (a missing count is 0, \
                     which matches none of the choices)",
                    p.metric
                ),
                (_, Observed::Nothing) => {
                    format!("{source} recorded no `{scenario}` (harness::observe)")
                }
            };
            self.check(
                Some(n),
                &format!("prediction {} matches what happens", p.id),
                ok,
                detail,
            );
        }
        Ok(())
    }

    /// Whether the stage's edit files differ from git's HEAD.
    fn edited(&self, stage: &Stage) -> bool {
        if stage.edit.is_empty() {
            return false;
        }
        Command::new("git")
            .args(["diff", "--quiet", "HEAD", "--"])
            .args(&stage.edit)
            .current_dir(&self.wb.root)
            .status()
            .is_ok_and(|s| s.code() == Some(1))
    }

    /// `cargo fmt --check`, then clippy, in the background: clippy's build of
    /// every package keeps the CPU busy while the runs mostly wait.
    fn start_lints(&self) -> JoinHandle<Result<Lints, Error>> {
        let fmt = self.cargo.command(&["fmt", "--all", "--check"]);
        let clippy = self.cargo.command(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--color",
            "never",
            "--",
            "-D",
            "warnings",
        ]);
        std::thread::spawn(move || {
            Ok(Lints {
                fmt: supervise::output(fmt)?,
                clippy: supervise::output(clippy)?,
            })
        })
    }

    fn lints(&mut self, lints: JoinHandle<Result<Lints, Error>>) -> Result<(), Error> {
        self.spinner
            .phase("cargo fmt --all --check, cargo clippy --workspace --all-targets");
        let Lints { fmt, clippy } = lints.join().map_err(|_| Error::Command {
            command: "cargo fmt, cargo clippy".into(),
            detail: "the thread that ran them panicked".into(),
        })??;
        let (ok, text) = fmt;
        let detail = if ok {
            String::new()
        } else {
            let files: Vec<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("Diff in "))
                .collect();
            if files.is_empty() {
                text.trim().to_owned()
            } else {
                let root = format!("{}/", self.wb.root.display());
                let files: Vec<&str> = files
                    .iter()
                    .map(|f| f.strip_prefix(root.as_str()).unwrap_or(f))
                    .map(|f| f.trim_end_matches(':'))
                    .collect();
                format!(
                    "not formatted: {} (run `cargo fmt --all`)",
                    files.join(", ")
                )
            }
        };
        self.check(None, "cargo fmt --all --check", ok, detail);

        let (ok, text) = clippy;
        let detail = if ok {
            String::new()
        } else {
            let lines: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with("error") || l.trim_start().starts_with("--> "))
                .take(12)
                .collect();
            lines.join("\n")
        };
        self.check(
            None,
            "cargo clippy --workspace --all-targets -- -D warnings",
            ok,
            detail,
        );
        Ok(())
    }
}

/// What `cargo fmt --check` and clippy said: whether each passed, and its output.
struct Lints {
    fmt: (bool, String),
    clippy: (bool, String),
}

/// `cargo test -p EXERCISE --test TEST`: the learner's own build of the stage.
fn exercise_targets(stage: &Stage) -> Targets<'_> {
    Targets::Test {
        package: &stage.exercise,
        target: &stage.test,
    }
}

/// Every run verify reads, in the order it reads them: each stage's solution,
/// its known-wrong packages and the packages its answer key is observed by, then
/// the review's routes.
fn runs_read(stages: &[Stage], review: Option<&Review>) -> Vec<RunOf> {
    let mut runs = Vec::new();
    for stage in stages {
        runs.push(RunOf::Test {
            package: stage.solution.clone(),
            target: stage.test.clone(),
        });
        for wrong in &stage.known_wrong {
            runs.push(RunOf::Test {
                package: wrong.package.clone(),
                target: stage.test_of(wrong).to_owned(),
            });
        }
        for p in &stage.predictions {
            if let Some(package) = Judging::AnswerKey.package(p) {
                runs.push(RunOf::Package(package.to_owned()));
            }
        }
    }
    for route in review.map(|r| r.routes.as_slice()).unwrap_or_default() {
        runs.push(RunOf::Test {
            package: route.package.clone(),
            target: review::TEST_TARGET.to_owned(),
        });
    }
    runs
}

/// How verify runs an `observed_by` package: what its workspace build made.
struct StageRuns<'v, 'w> {
    v: &'v mut Verifier<'w>,
    n: u32,
}

impl PackageRunner for StageRuns<'_, '_> {
    fn build(&mut self, package: &str) -> Result<Vec<Executable>, Error> {
        Ok(self
            .v
            .built(Targets::Package(package))
            .map(|(_, executables)| executables)
            .unwrap_or_default())
    }

    fn run(&mut self, package: &str) -> Result<PackageRun, Error> {
        let what = format!("stage {}: {package}", self.n);
        self.v.run(Targets::Package(package), &what)
    }
}

/// Whether a run failed as an exercise should, and how it ended.
fn fails_as_intended(run: &PackageRun) -> (bool, String) {
    let ok = run.fails_as_intended();
    let mut detail = render::run_outcome(&crate::messages::english(), run);
    if run.state == RunState::Passed {
        detail.push_str(", so it teaches nothing");
    }
    (ok, detail)
}

fn summary(checks: &[Check], elapsed: Duration) {
    ui::heading("Summary");
    let mut table = ui::table(["stage", "check", "result", "why"]);
    ui::at_least(&mut table, 3, 40);
    for c in checks {
        table.add_row([
            c.stage
                .map(|n| n.to_string())
                .unwrap_or_else(|| "–".to_owned()),
            c.what.clone(),
            if c.ok {
                format!("{} ok", ui::PASS)
            } else {
                format!("{} FAILED", ui::FAIL)
            },
            if c.ok {
                String::new()
            } else {
                c.detail.clone()
            },
        ]);
    }
    ui::print_table(table);
    let failed = checks.iter().filter(|c| !c.ok).count();
    let passed = checks.len() - failed;
    ui::note(&format!("({:.0} s)", elapsed.as_secs_f64()));
    // The plain closing line CI logs are read for.
    println!("verify: {passed} passed, {failed} failed");
}
