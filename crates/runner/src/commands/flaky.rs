//! `workbook flaky [N]`: is every verdict of `verify` certain? Runs every
//! solution's tests N times, and every known-wrong package N times, from
//! executables built once, and counts the runs where a solution failed or a
//! known-wrong package escaped a test that claims to catch it. One such run in N
//! is a verdict left to the scheduler: CI would go red, or a bug would pass, now
//! and then for no change. A rare run is no use unless it can be read: each bad
//! run's whole output (every line the tests printed, and what they recorded) is
//! kept in a file under `.workbook/flaky/`, and its path printed.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::cargo::{Build, Cargo, Executable};
use crate::error::Error;
use crate::render;
use crate::run::{PackageRun, RunState, run_built};
use crate::stages::Stage;
use crate::state::State;
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;

pub struct FlakyOptions {
    pub runs: u32,
    /// Only this stage (all stages when `None`).
    pub stage: Option<u32>,
    /// The bound of each test run.
    pub timeout: Duration,
}

/// One line of the table: a pair that must always end the same way.
struct Pair {
    stage: u32,
    what: String,
    runs: u32,
    /// Solutions: runs that did not pass. Known-wrong: runs the test passed.
    bad: u32,
    /// The first bad run's reason.
    example: Option<String>,
}

/// One executable to run N times, and the pairs it decides.
struct Subject<'a> {
    stage: &'a Stage,
    executable: Executable,
    /// `None` for a solution (every test must pass), else the tests that must fail.
    catches: Option<&'a [String]>,
}

pub fn run(wb: &Workbook, options: &FlakyOptions) -> Result<bool, Error> {
    if let Some(n) = options.stage {
        wb.stage(n)?;
    }
    let started = Instant::now();
    let cargo = Cargo::new(&wb.root, false);
    let state = State::new(&wb.state_dir);
    let mut spinner = Spinner::new();
    spinner.phase("Building every package once (cargo test --no-run, then the other members)");
    let build = cargo.build_every_package(&mut |status| {
        spinner.detail(&status.said(spinner.l10n()));
    })?;
    if !build.success {
        spinner.finish();
        return Err(Error::WorkspaceDoesNotBuild {
            first_error_in: build.errors.first().map(|e| e.package.clone()),
        });
    }
    let subjects = subjects(wb, &build, options.stage)?;
    let mut pairs = Vec::new();
    let session = state.flaky_dir();
    for subject in &subjects {
        let decided = repeat(subject, &build, &state, &session, options, &mut spinner)?;
        pairs.extend(decided);
    }
    spinner.finish();
    Ok(report(&pairs, options.runs, started.elapsed()))
}

fn subjects<'a>(
    wb: &'a Workbook,
    build: &Build,
    only: Option<u32>,
) -> Result<Vec<Subject<'a>>, Error> {
    let mut subjects = Vec::new();
    for stage in &wb.stages {
        if only.is_some_and(|n| n != stage.number) {
            continue;
        }
        let find = |package: &str, target: &str| {
            build
                .executable(package, target)
                .cloned()
                .ok_or_else(|| Error::NoExecutable {
                    package: package.to_owned(),
                    target: target.to_owned(),
                })
        };
        subjects.push(Subject {
            stage,
            executable: find(&stage.solution, &stage.test)?,
            catches: None,
        });
        for wrong in &stage.known_wrong {
            subjects.push(Subject {
                stage,
                executable: find(&wrong.package, stage.test_of(wrong))?,
                catches: Some(&wrong.catches),
            });
        }
    }
    Ok(subjects)
}

/// Runs one executable `options.runs` times; one pair for a solution, one per
/// catching test for a known-wrong package.
fn repeat(
    subject: &Subject<'_>,
    build: &Build,
    state: &State,
    session: &Path,
    options: &FlakyOptions,
    spinner: &mut Spinner,
) -> Result<Vec<Pair>, Error> {
    let n = subject.stage.number;
    let package = &subject.executable.package;
    let mut pairs: Vec<Pair> = match subject.catches {
        None => vec![pair(n, format!("solution {package}: every test passes"))],
        Some(catches) => catches
            .iter()
            .map(|test| pair(n, format!("{package} is caught by {test}")))
            .collect(),
    };
    for i in 1..=options.runs {
        let file = state.run_file("flaky")?;
        let command = format!(
            "cargo test -p {package} --test {}",
            subject.executable.target
        );
        let run = run_built(
            build.clone(),
            command,
            std::slice::from_ref(&subject.executable),
            file.path(),
            options.timeout,
            spinner,
            &format!("stage {n}: {package}, run {i} of {}", options.runs),
        );
        // Read before the file goes with `file`: a bad run keeps it.
        let recorded = std::fs::read_to_string(file.path()).unwrap_or_default();
        drop(file);
        let run = run?;
        let mut bad = Vec::new();
        match subject.catches {
            None => {
                if run.state != RunState::Passed {
                    bad.push((0, render::run_outcome(spinner.l10n(), &run)));
                }
            }
            Some(catches) => {
                // A run that failed without a real server behind it caught nothing:
                // its tests failed before they could tell right from wrong.
                let judged = run.fails_as_intended();
                for (k, test) in catches.iter().enumerate() {
                    if !judged {
                        bad.push((k, render::run_outcome(spinner.l10n(), &run)));
                    } else if !run.caught_by(test) {
                        let outcome = render::run_outcome(spinner.l10n(), &run);
                        bad.push((k, format!("`{test}` passed ({outcome})")));
                    }
                }
            }
        }
        if !bad.is_empty() {
            let name = format!("stage{n}-{package}-run{i}.log");
            let text = bad_run_text(&run, &bad, &pairs, &recorded);
            let kept = state.keep_run_output(session, &name, &text)?;
            spinner.println(&format!(
                "{} stage {n}: {package}, run {i} of {}: {}; its whole output: {}",
                render::mark(false),
                options.runs,
                bad[0].1.lines().next().unwrap_or_default(),
                kept.display()
            ));
            for (k, why) in bad {
                mark(&mut pairs[k], format!("{why} ({})", kept.display()));
            }
        }
        for pair in &mut pairs {
            pair.runs = i;
        }
    }
    for pair in &pairs {
        let line = if pair.bad == 0 {
            format!("{} stage {}: {}", render::mark(true), pair.stage, pair.what)
        } else {
            format!(
                "{} stage {}: {}: {} of {} runs",
                render::mark(false),
                pair.stage,
                pair.what,
                pair.bad,
                pair.runs
            )
        };
        spinner.println(&line);
    }
    Ok(pairs)
}

fn pair(stage: u32, what: String) -> Pair {
    Pair {
        stage,
        what,
        runs: 0,
        bad: 0,
        example: None,
    }
}

/// What a bad run's file holds: what was wrong, the command to run it again,
/// everything the test executable printed, and what the tests recorded.
fn bad_run_text(
    run: &PackageRun,
    bad: &[(usize, String)],
    pairs: &[Pair],
    recorded: &str,
) -> String {
    let mut text = String::new();
    for (k, why) in bad {
        text.push_str(&format!("bad for \"{}\": {why}\n", pairs[*k].what));
    }
    text.push_str(&format!("command: {}\n{}", run.command, run.output));
    text.push_str(&format!("── recorded (WORKBOOK_OBSERVATIONS)\n{recorded}"));
    text
}

fn mark(pair: &mut Pair, why: String) {
    pair.bad += 1;
    pair.example.get_or_insert(why);
}

fn report(pairs: &[Pair], runs: u32, elapsed: Duration) -> bool {
    ui::heading(&format!("{runs} runs of each"));
    let mut table = ui::table(["stage", "pair", "runs", "failures / escapes", "first one"]);
    for p in pairs {
        table.add_row([
            p.stage.to_string(),
            p.what.clone(),
            p.runs.to_string(),
            p.bad.to_string(),
            p.example.clone().unwrap_or_default(),
        ]);
    }
    ui::print_table(table);
    let bad: u32 = pairs.iter().map(|p| p.bad).sum();
    ui::note(&format!("({:.0} s)", elapsed.as_secs_f64()));
    // The plain closing line a log is read for.
    println!(
        "flaky: {} pairs, {runs} runs each, {bad} failures or escapes",
        pairs.len()
    );
    bad == 0
}
