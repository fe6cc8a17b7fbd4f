//! The one renderer: a run, a judgement, a condition put into words. `stage`
//! (and `watch`), `verify`, `flaky` and `progress` print through it, so one
//! outcome is said one way, and a glyph or a wording changes in one place.

use std::time::Duration;

use crate::environment::command;
use crate::judgement::{Judged, Judgement, Seen};
use crate::observations::{self, Condition, Observations};
use crate::run::{PackageRun, RunState, TestStatus};
use crate::stages::{Observed, Prediction, Stage};
use crate::state::Progress;
use crate::ui;
use crate::workbook::Workbook;
use l10n::Localiser;
use l10n::t;

/// A judgement as the learner reads it ("✔ right"); "" when nothing was asked.
pub fn judgement(l: &Localiser, j: Judgement) -> String {
    match j {
        Judgement::Right => format!("{} {}", ui::PASS, t!(l, "judgement-right")),
        Judgement::Wrong => format!("{} {}", ui::FAIL, t!(l, "judgement-wrong")),
        Judgement::NotYet => t!(l, "judgement-not-yet"),
        Judgement::NotAsked => String::new(),
    }
}

/// A check's mark: ✔ or ✘, coloured.
pub fn mark(ok: bool) -> String {
    if ok {
        ui::good(ui::PASS)
    } else {
        ui::bad(ui::FAIL)
    }
}

/// "Stage 3 of 12 · title", the goal, and the files to edit.
pub fn stage_header(wb: &Workbook, stage: &Stage) {
    println!("{}", stage_header_text(wb, stage));
}

/// The header's text: a title line (bold, cyan), the goal, the files to edit.
pub fn stage_header_text(wb: &Workbook, stage: &Stage) -> String {
    let l = &wb.l10n;
    let of = wb.stages.last().map(|s| s.number).unwrap_or(stage.number);
    let mut lines = vec![
        console::style(t!(
            l,
            "stage-title",
            number = stage.number,
            of = of,
            title = &stage.title
        ))
        .bold()
        .cyan()
        .to_string(),
    ];
    if !stage.goal.trim().is_empty() {
        lines.push(ui::wrap(&stage.goal_text(), 2));
    }
    if !stage.edit.is_empty() {
        lines.push(ui::wrap(
            &t!(l, "stage-you-edit", files = stage.edit.join(", ")),
            2,
        ));
    }
    lines.join("\n")
}

/// What the stage's goal kept back, once every prediction is judged.
pub fn outcome(l: &Localiser, stage: &Stage) {
    let text = stage.outcome_text();
    if text.is_empty() {
        return;
    }
    ui::heading(&t!(l, "outcome-heading"));
    println!("{}", ui::wrap(&text, 2));
}

/// The compiler's errors (the first three), and what to do next.
pub fn build_failure(l: &Localiser, stage: &Stage, run: &PackageRun, watching: bool) {
    let errors = &run.build.errors;
    match &run.state {
        RunState::CompileError => {
            println!();
            let first_three = if errors.len() > 3 {
                format!(" {}", t!(l, "compile-first-three"))
            } else {
                String::new()
            };
            println!(
                "{} {}{first_three}",
                ui::bad(ui::FAIL),
                t!(
                    l,
                    "compile-errors",
                    package = &stage.exercise,
                    count = errors.len()
                ),
            );
            for error in errors.iter().take(3) {
                let lines: Vec<&str> = error.rendered.lines().collect();
                for line in lines.iter().take(30) {
                    println!("{line}");
                }
                if lines.len() > 30 {
                    ui::note(&format!(
                        "  {}",
                        t!(l, "more-lines", count = lines.len() - 30)
                    ));
                }
                println!();
            }
            let n = stage.number;
            let again = if watching {
                t!(l, "compile-again-watching")
            } else {
                t!(l, "compile-again", command = command(&format!("stage {n}")))
            };
            println!(
                "{}",
                ui::wrap(
                    &t!(
                        l,
                        "compile-fix",
                        again = again,
                        output = format!("`{}`", run.command),
                        hint = command(&format!("hint {n}"))
                    ),
                    0
                )
            );
        }
        RunState::NotBuilt(why) => {
            println!();
            println!(
                "{} {}",
                ui::bad(ui::FAIL),
                t!(l, "command-failed", command = format!("`{}`", run.command))
            );
            println!("{why}");
        }
        _ => {}
    }
}

/// What the harness said about its server.
pub fn harness_notes(observations: &Observations) {
    for line in observations.notes() {
        ui::note(&ui::wrap(line, 0));
    }
}

/// The recorded scenarios, each named by the question it answers (its id only
/// when no question reads it).
pub fn observations(l: &Localiser, stage: &Stage, observations: &Observations) {
    let scenarios = observations.scenarios();
    if scenarios.is_empty() {
        return;
    }
    ui::heading(&t!(l, "observations-heading"));
    let mut table = ui::table([t!(l, "observations-measured"), t!(l, "observations-seen")]);
    for (name, lines) in scenarios {
        let seen: Vec<String> = lines
            .iter()
            .map(|line| observations::describe(l, line))
            .collect();
        let mut unique = seen.clone();
        unique.dedup();
        let text = if unique.len() == 1 && seen.len() > 1 {
            t!(
                l,
                "observations-in-all-runs",
                seen = &unique[0],
                count = seen.len()
            )
        } else {
            seen.join("\n")
        };
        table.add_row([scenario_name(l, stage, name), text]);
    }
    ui::print_table(table);
}

/// A scenario as the learner knows it: the question(s) it answers, or its name.
fn scenario_name(l: &Localiser, stage: &Stage, scenario: &str) -> String {
    let questions: Vec<&str> = stage
        .predictions
        .iter()
        .filter(|p| p.observe == scenario)
        .map(|p| p.question.as_str())
        .collect();
    match questions.first() {
        Some(first) => (*first).to_owned(),
        None => t!(l, "observations-scenario", name = scenario),
    }
}

/// What happened for one prediction, in words.
pub fn happened(l: &Localiser, p: &Prediction, seen: &Seen) -> String {
    let shown = seen.said();
    match &seen.observed {
        Observed::Nothing if seen.without_metric => {
            t!(l, "happened-no-metric", metric = format!("`{}`", p.metric))
        }
        Observed::Nothing => t!(l, "happened-not-recorded"),
        Observed::Choice(i) if p.choices[*i].shown == shown => shown,
        Observed::Choice(i) => format!("{shown} → {}", p.choices[*i].shown),
        Observed::NoChoice => format!("{shown} → {}", t!(l, "happened-no-choice")),
    }
}

/// The predictions table: the recorded ones in rows, the rest in one line.
pub fn predictions(l: &Localiser, judged: &[Judged<'_>]) {
    if judged.is_empty() {
        return;
    }
    ui::heading(&t!(l, "predictions-heading"));
    let (recorded, unrecorded): (Vec<&Judged<'_>>, Vec<&Judged<'_>>) = judged
        .iter()
        .partition(|j| j.seen.observed != Observed::Nothing);
    if !recorded.is_empty() {
        let mut table = ui::table([
            t!(l, "column-question"),
            t!(l, "column-you-said"),
            t!(l, "column-what-happened"),
            String::new(),
        ]);
        for j in &recorded {
            let said = match j.answer {
                None => t!(l, "predictions-not-asked"),
                Some(a) => {
                    let answer = j.prediction.shown_answer(&a.answer);
                    match &a.why {
                        Some(why) => {
                            format!("{answer}\n{}", t!(l, "predictions-because", why = why))
                        }
                        None => answer.to_owned(),
                    }
                }
            };
            table.add_row([
                j.prediction.question.clone(),
                said,
                happened(l, j.prediction, &j.seen),
                judgement(l, j.judgement),
            ]);
        }
        ui::print_table(table);
    }
    if !unrecorded.is_empty() {
        let asked = unrecorded.iter().filter(|j| j.answer.is_some()).count();
        let numbers: Vec<String> = judged
            .iter()
            .enumerate()
            .filter(|(_, j)| j.seen.observed == Observed::Nothing)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        let line = match (unrecorded.len() == judged.len(), numbers.as_slice()) {
            (true, _) => t!(l, "predictions-none-recorded", count = judged.len()),
            (false, [one]) => t!(l, "predictions-one-not-recorded", number = one),
            (false, many) => t!(l, "predictions-not-recorded", numbers = many.join(", ")),
        };
        let kept = if asked > 0 {
            format!(" {}", t!(l, "predictions-judged-later"))
        } else {
            String::new()
        };
        ui::note(&ui::wrap(&format!("{line}{kept}"), 2));
    }
    let scored: Vec<&Judged<'_>> = judged.iter().filter(|j| j.judgement.is_judged()).collect();
    if !scored.is_empty() {
        let right = scored
            .iter()
            .filter(|j| j.judgement == Judgement::Right)
            .count();
        ui::note(&format!(
            "  {}",
            t!(l, "predictions-score", right = right, count = scored.len())
        ));
    }
}

/// The tests, grouped by how they ended and what they said.
pub fn tests(l: &Localiser, run: &PackageRun) {
    if run.tests.is_empty() {
        return;
    }
    ui::heading(&t!(l, "tests-heading"));
    for (i, group) in groups(run).into_iter().enumerate() {
        if i > 0 {
            println!();
        }
        let count = group.tests.len();
        let mark = match group.status {
            TestStatus::Passed => ui::good(ui::PASS),
            TestStatus::Failed | TestStatus::Unfinished => ui::bad(ui::FAIL),
            TestStatus::Ignored | TestStatus::NotRun => ui::warn(ui::SKIP),
        };
        let mut text = match group.status {
            TestStatus::Passed => t!(l, "tests-pass", count = count),
            TestStatus::Ignored => t!(l, "tests-ignored", count = count),
            TestStatus::NotRun => t!(l, "tests-not-run", count = count),
            TestStatus::Unfinished => t!(l, "tests-unfinished", count = count),
            TestStatus::Failed if group.message.is_empty() => {
                t!(l, "tests-failed-silently", count = count)
            }
            TestStatus::Failed => t!(
                l,
                "tests-failed",
                count = count,
                message = limit_lines(l, &failure_said(l, &group), 20)
            ),
        };
        if let Some(at) = &group.location {
            text.push_str(&format!("\n{}", t!(l, "tests-at", location = at)));
        }
        println!("{mark} {}", ui::wrap_lines(&text, 2).trim_start());
        println!("{}", ui::wrap_list(&names(&group.tests), 4));
    }
    // What the first failing test printed (e.g. a results table, the pool's state).
    if let Some((name, printed)) = run
        .failed()
        .filter_map(|t| t.failure.as_ref().map(|f| (&t.name, &f.printed)))
        .find(|(_, p)| !p.trim().is_empty())
    {
        println!();
        ui::note(&t!(l, "tests-printed", name = name));
        println!("{}", limit_lines(l, printed, 40));
    }
}

/// A failure's message as the learner reads it. A `todo!()` still in the
/// exercise panics with std's English words (and the exercise's comment):
/// said in the learner's language, with where it is.
fn failure_said(l: &Localiser, group: &Group<'_>) -> String {
    // std's todo!() says "not yet implemented", then ": " and its argument;
    // where it is follows the message ("(at ...)").
    match group.message.strip_prefix("not yet implemented") {
        Some(rest) if group.location.is_some() && (rest.is_empty() || rest.starts_with(": ")) => {
            t!(l, "tests-todo", said = rest.trim_start_matches(": "))
        }
        _ => group.message.clone(),
    }
}

/// Tests that ended the same way and say the same thing.
struct Group<'a> {
    status: TestStatus,
    message: String,
    /// Where they panicked, when that is one place for all of them.
    location: Option<String>,
    tests: Vec<&'a str>,
}

/// Failures first, one group per message (a missing table fails a dozen tests
/// with one message: it is said once); then what did not finish, what did not
/// run, what passed, what was ignored.
fn groups(run: &PackageRun) -> Vec<Group<'_>> {
    let rank = |status: TestStatus| match status {
        TestStatus::Failed => 0,
        TestStatus::Unfinished => 1,
        TestStatus::NotRun => 2,
        TestStatus::Passed => 3,
        TestStatus::Ignored => 4,
    };
    let mut groups: Vec<Group<'_>> = Vec::new();
    for t in &run.tests {
        let (message, location) = match (&t.failure, t.status) {
            (Some(f), TestStatus::Failed) => (f.message.trim_end().to_owned(), f.location.clone()),
            _ => (String::new(), None),
        };
        match groups
            .iter_mut()
            .find(|g| g.status == t.status && g.message == message)
        {
            Some(group) => {
                if group.location != location {
                    group.location = None;
                }
                group.tests.push(&t.name);
            }
            None => groups.push(Group {
                status: t.status,
                message,
                location,
                tests: vec![&t.name],
            }),
        }
    }
    groups.sort_by_key(|g| rank(g.status));
    groups
}

/// Test names, with the cases of one rstest function together:
/// `f::case_1_a, case_2_b` instead of `f::case_1_a, f::case_2_b`.
fn names(tests: &[&str]) -> Vec<String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for name in tests {
        let (function, case) = match name.rsplit_once("::") {
            Some((function, case)) if case.starts_with("case_") => (function, Some(case)),
            _ => (*name, None),
        };
        match (case, out.last_mut()) {
            (Some(case), Some((last, cases))) if last == function && !cases.is_empty() => {
                cases.push(case.to_owned())
            }
            (Some(case), _) => out.push((function.to_owned(), vec![case.to_owned()])),
            (None, _) => out.push((function.to_owned(), Vec::new())),
        }
    }
    out.into_iter()
        .map(|(function, cases)| {
            if cases.is_empty() {
                function
            } else {
                format!("{function}::{}", cases.join(", "))
            }
        })
        .collect()
}

fn limit_lines(l: &Localiser, text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return text.to_owned();
    }
    format!(
        "{}\n{}",
        lines[..max].join("\n"),
        t!(l, "more-lines", count = lines.len() - max)
    )
}

/// The closing verdict of a stage run, the cause the harness reported (only one
/// the run shows), and the next step.
pub fn verdict(l: &Localiser, stage: &Stage, run: &PackageRun, elapsed: Duration, watching: bool) {
    let n = stage.number;
    let total = run.tests.len();
    let failed = run.count(TestStatus::Failed);
    let passed = run.count(TestStatus::Passed);
    let times = t!(
        l,
        "verdict-times",
        build = l.decimal(run.build.elapsed.as_secs_f64(), 1),
        tests = l.decimal(run.run_time.as_secs_f64(), 1),
        all = l.decimal(elapsed.as_secs_f64(), 1)
    );
    let hint = command(&format!("hint {n}"));
    println!();
    match &run.state {
        RunState::Passed => println!(
            "{} {}",
            ui::good(ui::PASS),
            t!(l, "verdict-all-pass", count = total, times = &times)
        ),
        RunState::TimedOut(bound) => {
            let unfinished: Vec<&str> = run
                .tests
                .iter()
                .filter(|t| t.status == TestStatus::Unfinished)
                .map(|t| t.name.as_str())
                .collect();
            println!(
                "{} {}",
                ui::bad(ui::FAIL),
                t!(l, "verdict-hang", seconds = bound.as_secs())
            );
            if !unfinished.is_empty() {
                println!(
                    "  {}",
                    t!(l, "verdict-still-running", tests = unfinished.join(", "))
                );
            }
            println!("{}", ui::wrap(&t!(l, "verdict-hang-why", hint = &hint), 2));
        }
        RunState::Crashed(why) => println!("{} {why}", ui::bad(ui::FAIL)),
        RunState::NoTests => println!(
            "{} {}",
            ui::bad(ui::FAIL),
            t!(l, "verdict-no-test", command = format!("`{}`", run.command))
        ),
        _ => println!(
            "{} {}",
            ui::bad(ui::FAIL),
            t!(
                l,
                "verdict-some-fail",
                failed = failed,
                count = total,
                passed = passed,
                times = &times
            )
        ),
    }
    if run.state != RunState::Passed {
        for (label, text) in causes(l, &run.observations, &hint) {
            let label = label.as_str();
            let wrapped = ui::wrap(&format!("{label} {text}"), 0);
            let rest = wrapped.strip_prefix(label).unwrap_or(&wrapped);
            println!("{}{rest}", ui::warn(label));
        }
        let edit = if stage.edit.is_empty() {
            stage.exercise.clone()
        } else {
            stage.edit.join(", ")
        };
        let next = if watching {
            t!(l, "verdict-next-watching", edit = &edit, hint = &hint)
        } else {
            t!(
                l,
                "verdict-next",
                edit = &edit,
                stage = command(&format!("stage {n}")),
                watch = command(&format!("watch {n}")),
                hint = &hint
            )
        };
        println!("{}", ui::wrap(&next, 0));
    }
}

/// The causes the harness reported, each with a label ("deadlock?"): only what
/// the run shows is named.
fn causes(l: &Localiser, observations: &Observations, hint: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let state = observations.conditions.iter().find_map(|c| match c {
        Condition::PoolState { state } => Some(state.as_str()),
        _ => None,
    });
    let timed_out: usize = observations
        .conditions
        .iter()
        .map(|c| match c {
            Condition::PoolTimedOut { calls } => *calls,
            _ => 0,
        })
        .sum();
    if timed_out > 0 {
        let seen = match state {
            Some(state) => format!(" {}", t!(l, "cause-pool-state", state = state)),
            None => String::new(),
        };
        out.push((
            t!(l, "cause-deadlock-label"),
            t!(
                l,
                "cause-deadlock",
                count = timed_out,
                seen = seen,
                hint = hint
            ),
        ));
    }
    for c in &observations.conditions {
        match c {
            Condition::BoundExceeded { what, seconds } => out.push((
                t!(l, "cause-stuck-label"),
                t!(
                    l,
                    "cause-stuck",
                    what = format!("`{what}`"),
                    seconds = l.decimal(*seconds, 1),
                    hint = hint
                ),
            )),
            Condition::ConnectionsNotOpened { connections, error } => out.push((
                t!(l, "cause-not-your-code-label"),
                t!(
                    l,
                    "cause-connections-not-opened",
                    count = *connections,
                    error = error,
                    doctor = command("doctor")
                ),
            )),
            Condition::NoServer => out.push((
                t!(l, "cause-no-server-label"),
                t!(l, "cause-no-server", doctor = command("doctor")),
            )),
            _ => {}
        }
    }
    out
}

/// "Stage N is done" and where to go next.
pub fn next(wb: &Workbook, stage: &Stage, done: &dyn Fn(u32) -> bool, watching: bool) {
    let l = &wb.l10n;
    println!(
        "{} {}",
        ui::good(ui::PASS),
        t!(l, "stage-done", number = stage.number)
    );
    match wb.next_stage(stage.number) {
        Some(next) => {
            let how = if watching {
                t!(l, "next-press-n")
            } else {
                t!(
                    l,
                    "next-run",
                    command = command(&format!("stage {}", next.number))
                )
            };
            println!(
                "{}",
                ui::wrap(
                    &t!(
                        l,
                        "next-stage",
                        number = next.number,
                        title = &next.title,
                        how = how
                    ),
                    0
                )
            );
        }
        None => {
            let open: Vec<String> = wb
                .stages
                .iter()
                .filter(|s| !done(s.number))
                .map(|s| s.number.to_string())
                .collect();
            if open.is_empty() {
                println!("{}", t!(l, "last-stage-all-done"));
            } else {
                println!("{}", t!(l, "last-stage-open", stages = open.join(", ")));
            }
        }
    }
}

/// One line: a cell per stage (done or not), stages done, predictions right.
pub fn progress_bar(wb: &Workbook, progress: &Progress) -> String {
    let done = |n: u32| progress.stages.get(&n).is_some_and(|p| p.done);
    let cells: String = wb
        .stages
        .iter()
        .map(|s| if done(s.number) { '█' } else { '░' })
        .collect();
    let finished = wb.stages.iter().filter(|s| done(s.number)).count();
    let judged: Vec<bool> = progress
        .stages
        .values()
        .flat_map(|p| p.predictions.values().map(|r| r.right))
        .collect();
    let right = judged.iter().filter(|r| **r).count();
    t!(
        wb.l10n,
        "progress-bar",
        cells = cells,
        done = finished,
        stages = wb.stages.len(),
        right = right,
        predictions = judged.len()
    )
}

/// How a run ended, in one line: what `verify` and `flaky` report.
pub fn run_outcome(l: &Localiser, run: &PackageRun) -> String {
    match &run.state {
        RunState::CompileError => {
            let packages: Vec<&str> = run
                .build
                .errors
                .iter()
                .map(|e| e.package.as_str())
                .collect();
            let first = run
                .build
                .errors
                .first()
                .and_then(|e| e.rendered.lines().next())
                .unwrap_or("");
            t!(
                l,
                "outcome-does-not-compile",
                packages = packages.join(", "),
                first = first
            )
        }
        RunState::NotBuilt(why) => t!(l, "outcome-not-built", why = why),
        RunState::TimedOut(bound) => t!(l, "outcome-hangs", seconds = bound.as_secs()),
        RunState::Crashed(why) => why.clone(),
        RunState::NoTests => t!(l, "outcome-no-test"),
        RunState::Passed => t!(l, "outcome-passes"),
        RunState::Failed if run.observations.met(|c| matches!(c, Condition::NoServer)) => {
            t!(l, "outcome-no-server", doctor = command("doctor"))
        }
        RunState::Failed => {
            let example = run
                .failed()
                .next()
                .map(|test| {
                    t!(
                        l,
                        "outcome-for-example",
                        name = &test.name,
                        line = test.first_line()
                    )
                })
                .unwrap_or_default();
            t!(
                l,
                "outcome-some-fail",
                failed = run.count(TestStatus::Failed),
                count = run.tests.len(),
                example = example
            )
        }
    }
}

/// Why a run that should pass did not: every failing test's first line.
pub fn why_not_passing(l: &Localiser, run: &PackageRun) -> String {
    let failed: Vec<String> = run
        .failed()
        .map(|t| format!("{}: {}", t.name, t.first_line()))
        .collect();
    match &run.state {
        RunState::Failed if !failed.is_empty() => t!(
            l,
            "outcome-failing-tests",
            failed = failed.len(),
            count = run.tests.len(),
            tests = failed.join("; ")
        ),
        _ => run_outcome(l, run),
    }
}

#[cfg(test)]
mod tests {
    use super::names;
    use crate::judgement::Judgement;

    #[test]
    fn the_progress_bar_has_a_cell_per_stage() {
        use crate::state::{PredictionResult, Progress, StageProgress};
        let text = |n: u32| {
            format!("[[stage]]\nnumber = {n}\ntitle = \"T\"\nslug = \"s\"\nhints = [\"h\"]\n")
        };
        let stages = crate::stages::parse(&(1..=4).map(text).collect::<String>()).expect("parses");
        let wb = crate::workbook::Workbook {
            root: ".".into(),
            stages_file: "stages.toml".into(),
            state_dir: ".workbook".into(),
            stages,
            l10n: crate::messages::english(),
        };
        let mut progress = Progress::default();
        let result = |right| PredictionResult {
            answer: "a".into(),
            observed: "o".into(),
            right,
        };
        let mut one = StageProgress {
            done: true,
            ..StageProgress::default()
        };
        one.predictions.insert("p".into(), result(true));
        one.predictions.insert("q".into(), result(false));
        progress.stages.insert(1, one);
        assert_eq!(
            super::progress_bar(&wb, &progress),
            "Progress █░░░ 1 of 4 stages done · 1 of 2 predictions right"
        );
    }

    #[test]
    fn a_single_unrecorded_prediction_is_not_said_as_none_of_one() {
        use l10n::Lang;
        let pt = crate::messages::localiser(Lang::BrazilianPortuguese);
        let en = crate::messages::english();
        assert_eq!(
            l10n::t!(pt, "predictions-none-recorded", count = 1),
            "A previsão ainda não foi registrada: o teste dela não chegou até lá.",
            "one prediction, none recorded: Portuguese says 'the prediction', not 'none of the 1 predictions'"
        );
        assert_eq!(
            l10n::t!(en, "predictions-none-recorded", count = 1),
            "The prediction was not recorded yet: its test did not get that far.",
            "one prediction, none recorded: English says 'the prediction', not 'none of the 1 predictions'"
        );
        assert!(
            l10n::t!(pt, "predictions-none-recorded", count = 3)
                .starts_with("Nenhuma das 3 previsões"),
            "three predictions, none recorded: 'Nenhuma das 3 previsões ...'"
        );
    }

    #[test]
    fn the_stage_header_speaks_the_learners_language_with_the_stages_twin() {
        use l10n::Lang;
        let mut stages = crate::stages::parse(crate::stages::tests::ONE).expect("parses");
        let twin = crate::twins::parse(
            "[[stage]]\nnumber = 1\ntitle = \"As tabelas\"\ngoal = \"Crie as duas tabelas.\"\n\
             hints = [\"Uma dica.\"]\n",
        )
        .expect("the twin parses");
        crate::twins::apply(&mut stages, &twin);
        stages[0].edit = vec!["exercises/stage1/src/lib.rs".to_owned()];
        let wb = crate::workbook::Workbook {
            root: ".".into(),
            stages_file: "stages.toml".into(),
            state_dir: ".workbook".into(),
            stages,
            l10n: crate::messages::localiser(Lang::BrazilianPortuguese),
        };
        let header =
            console::strip_ansi_codes(&super::stage_header_text(&wb, &wb.stages[0])).into_owned();
        assert_eq!(
            header,
            "Etapa 1 de 1 · As tabelas\n  Crie as duas tabelas.\n  \
             Você edita: exercises/stage1/src/lib.rs"
        );
        let l = &wb.l10n;
        assert_eq!(super::judgement(l, Judgement::Right), "✔ acertou");
        assert_eq!(super::judgement(l, Judgement::Wrong), "✘ errou");
    }

    #[test]
    fn the_cases_of_one_rstest_function_are_named_together() {
        let tests = [
            "payment_ids_are_generated_by_the_database",
            "payments_has_the_column::case_1_id",
            "payments_has_the_column::case_2_order_id",
            "a::b::plain_test",
        ];
        assert_eq!(
            names(&tests),
            [
                "payment_ids_are_generated_by_the_database",
                "payments_has_the_column::case_1_id, case_2_order_id",
                "a::b::plain_test",
            ]
        );
    }
}
