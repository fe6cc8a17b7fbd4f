//! The one renderer: a run, a judgement, a condition put into words. `stage`
//! (and `watch`), `verify`, `flaky` and `progress` print through it, so one
//! outcome is said one way, and a glyph or a wording changes in one place.

use std::time::Duration;

use crate::environment::command;
use crate::judgement::{Judgement, Seen};
use crate::observations::{self, Condition, Observations};
use crate::run::{PackageRun, RunState, TestStatus};
use crate::stages::{Observed, Prediction, Stage};
use crate::state::{Answer, Progress};
use crate::ui;
use crate::workbook::Workbook;

/// A judgement as the learner reads it ("✔ right"); "" when nothing was asked.
pub fn judgement(j: Judgement) -> String {
    match j {
        Judgement::Right => format!("{} right", ui::PASS),
        Judgement::Wrong => format!("{} wrong", ui::FAIL),
        Judgement::NotYet => "not yet".to_owned(),
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
    let of = wb.stages.last().map(|s| s.number).unwrap_or(stage.number);
    println!(
        "{}",
        console::style(format!("Stage {} of {of} · {}", stage.number, stage.title))
            .bold()
            .cyan()
    );
    if !stage.goal.trim().is_empty() {
        println!("{}", ui::wrap(&stage.goal_text(), 2));
    }
    if !stage.edit.is_empty() {
        println!(
            "{}",
            ui::wrap(&format!("You edit: {}", stage.edit.join(", ")), 2)
        );
    }
}

/// What the stage's goal kept back, once every prediction is judged.
pub fn outcome(stage: &Stage) {
    let text = stage.outcome_text();
    if text.is_empty() {
        return;
    }
    ui::heading("What happened, and why");
    println!("{}", ui::wrap(&text, 2));
}

/// The compiler's errors (the first three), and what to do next.
pub fn build_failure(stage: &Stage, run: &PackageRun, watching: bool) {
    let errors = &run.build.errors;
    match &run.state {
        RunState::CompileError => {
            println!();
            println!(
                "{} {} does not compile yet ({} error{}).{}",
                ui::bad(ui::FAIL),
                stage.exercise,
                errors.len(),
                if errors.len() == 1 { "" } else { "s" },
                if errors.len() > 3 {
                    " The first three:"
                } else {
                    ""
                }
            );
            for error in errors.iter().take(3) {
                let lines: Vec<&str> = error.rendered.lines().collect();
                for line in lines.iter().take(30) {
                    println!("{line}");
                }
                if lines.len() > 30 {
                    ui::note(&format!("  … ({} more lines)", lines.len() - 30));
                }
                println!();
            }
            let n = stage.number;
            let again = if watching {
                "the next save reruns the tests".to_owned()
            } else {
                format!("then run {} again", command(&format!("stage {n}")))
            };
            println!(
                "{}",
                ui::wrap(
                    &format!(
                        "Fix what the compiler says: {again}. Its whole output: `{}`. Stuck? {}.",
                        run.command,
                        command(&format!("hint {n}"))
                    ),
                    0
                )
            );
        }
        RunState::NotBuilt(why) => {
            println!();
            println!("{} `{}` failed:", ui::bad(ui::FAIL), run.command);
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
pub fn observations(stage: &Stage, observations: &Observations) {
    let scenarios = observations.scenarios();
    if scenarios.is_empty() {
        return;
    }
    ui::heading("What happened (recorded by the tests)");
    let mut table = ui::table(["what was measured", "what the tests saw"]);
    for (name, lines) in scenarios {
        let seen: Vec<String> = lines.iter().map(|l| observations::describe(l)).collect();
        let mut unique = seen.clone();
        unique.dedup();
        let text = if unique.len() == 1 && seen.len() > 1 {
            format!("{} (in all {} runs)", unique[0], seen.len())
        } else {
            seen.join("\n")
        };
        table.add_row([scenario_name(stage, name), text]);
    }
    ui::print_table(table);
}

/// A scenario as the learner knows it: the question(s) it answers.
fn scenario_name(stage: &Stage, scenario: &str) -> String {
    let questions: Vec<&str> = stage
        .predictions
        .iter()
        .filter(|p| p.observe == scenario)
        .map(|p| p.question.as_str())
        .collect();
    match questions.first() {
        Some(first) => (*first).to_owned(),
        // "stage3.burst_of_20" reads "burst of 20".
        None => scenario
            .rsplit('.')
            .next()
            .unwrap_or(scenario)
            .replace('_', " "),
    }
}

/// One prediction of a run: what was said, what was seen, and the judgement.
pub struct Judged<'a> {
    pub prediction: &'a Prediction,
    pub answer: Option<&'a Answer>,
    pub seen: Seen,
    pub judgement: Judgement,
}

/// What happened for one prediction, in words.
pub fn happened(p: &Prediction, seen: &Seen) -> String {
    let shown = seen.shown();
    match &seen.observed {
        Observed::Nothing if seen.without_metric => {
            format!("not recorded: its test recorded no `{}`", p.metric)
        }
        Observed::Nothing => "not recorded: its test did not get that far".to_owned(),
        Observed::Choice(i) if p.choices[*i].label == shown => shown,
        Observed::Choice(i) => format!("{shown} → {}", p.choices[*i].label),
        Observed::NoChoice => format!("{shown} → none of the choices"),
    }
}

/// The predictions table: the recorded ones in rows, the rest in one line.
pub fn predictions(judged: &[Judged<'_>]) {
    if judged.is_empty() {
        return;
    }
    ui::heading("Your predictions");
    let (recorded, unrecorded): (Vec<&Judged<'_>>, Vec<&Judged<'_>>) = judged
        .iter()
        .partition(|j| j.seen.observed != Observed::Nothing);
    if !recorded.is_empty() {
        let mut table = ui::table(["question", "you said", "what happened", ""]);
        for j in &recorded {
            let said = match j.answer {
                None => "(not asked)".to_owned(),
                Some(a) => match &a.why {
                    Some(why) => format!("{}\nbecause: {why}", a.answer),
                    None => a.answer.clone(),
                },
            };
            table.add_row([
                j.prediction.question.clone(),
                said,
                happened(j.prediction, &j.seen),
                judgement(j.judgement),
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
            (true, _) => format!(
                "None of the {} predictions was recorded yet: their tests did not get that far.",
                judged.len()
            ),
            (false, [one]) => {
                format!("Prediction {one} was not recorded: its test did not get that far.")
            }
            (false, many) => format!(
                "Predictions {} were not recorded: their tests did not get that far.",
                many.join(", ")
            ),
        };
        let kept = if asked > 0 {
            " Yours are judged once they do."
        } else {
            ""
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
            "  {right} of {} prediction{} right, judged by what this run really did.",
            scored.len(),
            if scored.len() == 1 { "" } else { "s" }
        ));
    }
}

/// The tests, grouped by how they ended and what they said.
pub fn tests(run: &PackageRun) {
    if run.tests.is_empty() {
        return;
    }
    ui::heading("Tests");
    for (i, group) in groups(run).into_iter().enumerate() {
        if i > 0 {
            println!();
        }
        let count = group.tests.len();
        let tests = if count == 1 { "test" } else { "tests" };
        let mark = match group.status {
            TestStatus::Passed => ui::good(ui::PASS),
            TestStatus::Failed | TestStatus::Unfinished => ui::bad(ui::FAIL),
            TestStatus::Ignored | TestStatus::NotRun => ui::warn(ui::SKIP),
        };
        let one = count == 1;
        let mut text = match group.status {
            TestStatus::Passed if one => "1 test passes".to_owned(),
            TestStatus::Passed => format!("{count} tests pass"),
            TestStatus::Ignored => format!("{count} {tests} ignored"),
            TestStatus::NotRun => {
                format!("{count} {tests} not run: the test process ended before them")
            }
            TestStatus::Unfinished => {
                format!("{count} {tests} still running when the run was stopped")
            }
            TestStatus::Failed if group.message.is_empty() => {
                format!("{count} {tests} failed without a message")
            }
            TestStatus::Failed => format!("{count} {tests}: {}", limit_lines(&group.message, 20)),
        };
        if let Some(at) = &group.location {
            text.push_str(&format!("\n(at {at})"));
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
        ui::note(&format!("What {name} printed:"));
        println!("{}", limit_lines(printed, 40));
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

fn limit_lines(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return text.to_owned();
    }
    format!(
        "{}\n… ({} more lines)",
        lines[..max].join("\n"),
        lines.len() - max
    )
}

/// The closing verdict of a stage run, the cause the harness reported (only one
/// the run shows), and the next step.
pub fn verdict(stage: &Stage, run: &PackageRun, elapsed: Duration, watching: bool) {
    let n = stage.number;
    let total = run.tests.len();
    let failed = run.count(TestStatus::Failed);
    let passed = run.count(TestStatus::Passed);
    let times = format!(
        "(build {:.1} s, tests {:.1} s, {:.1} s in all)",
        run.build.elapsed.as_secs_f64(),
        run.run_time.as_secs_f64(),
        elapsed.as_secs_f64()
    );
    let hint = command(&format!("hint {n}"));
    println!();
    match &run.state {
        RunState::Passed => println!("{} All {total} tests pass {times}.", ui::good(ui::PASS)),
        RunState::TimedOut(bound) => {
            let unfinished: Vec<&str> = run
                .tests
                .iter()
                .filter(|t| t.status == TestStatus::Unfinished)
                .map(|t| t.name.as_str())
                .collect();
            println!(
                "{} The tests did not finish within {} s, so they were stopped: that is a hang.",
                ui::bad(ui::FAIL),
                bound.as_secs()
            );
            if !unfinished.is_empty() {
                println!("  Still running: {}", unfinished.join(", "));
            }
            println!(
                "{}",
                ui::wrap(
                    &format!(
                        "Something waits forever: a lock that is never released, or a pool \
                         whose connections are all held by requests that wait for one more. \
                         {hint} helps."
                    ),
                    2
                )
            );
        }
        RunState::Crashed(why) => println!("{} {why}", ui::bad(ui::FAIL)),
        RunState::NoTests => println!("{} `{}` ran no test.", ui::bad(ui::FAIL), run.command),
        _ => println!(
            "{} {failed} of {total} tests fail, {passed} pass {times}.",
            ui::bad(ui::FAIL)
        ),
    }
    if run.state != RunState::Passed {
        for (label, text) in causes(&run.observations, &hint) {
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
            format!("Edit {edit}: the next save reruns the tests. Stuck? {hint}.")
        } else {
            format!(
                "Edit {edit}, then run {} again (or {} to rerun on every save). Stuck? {hint}.",
                command(&format!("stage {n}")),
                command(&format!("watch {n}"))
            )
        };
        println!("{}", ui::wrap(&next, 0));
    }
}

/// The causes the harness reported, each with a label ("deadlock?"): only what
/// the run shows is named.
fn causes(observations: &Observations, hint: &str) -> Vec<(&'static str, String)> {
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
            Some(state) => format!(" While they waited: {state}."),
            None => String::new(),
        };
        out.push((
            "deadlock?",
            format!(
                "{timed_out} call{} waited for a pool connection until {} gave up.{seen} If every \
                 connection of the pool is held by a request that waits for another one, nothing \
                 can move. {hint}.",
                if timed_out == 1 { "" } else { "s" },
                if timed_out == 1 { "it" } else { "they" },
            ),
        ));
    }
    for c in &observations.conditions {
        match c {
            Condition::BoundExceeded { what, seconds } => out.push((
                "stuck?",
                format!(
                    "{what} did not finish within {seconds:.1} s: something waited forever (a \
                     lock never released, or a pool with no free connection). {hint}."
                ),
            )),
            Condition::ConnectionsNotOpened { connections, error } => out.push((
                "not your code:",
                format!(
                    "the harness could not open its {connections} connections before the test \
                     began ({error}): the server was slow to accept them. Run the stage again; \
                     {} shows which server the tests use.",
                    command("doctor")
                ),
            )),
            Condition::NoServer => out.push((
                "no server:",
                format!(
                    "the tests found no PostgreSQL server; {} says what is missing and the fix.",
                    command("doctor")
                ),
            )),
            _ => {}
        }
    }
    out
}

/// "Stage N is done" and where to go next.
pub fn next(wb: &Workbook, stage: &Stage, done: &dyn Fn(u32) -> bool, watching: bool) {
    println!("{} Stage {} is done.", ui::good(ui::PASS), stage.number);
    match wb.next_stage(stage.number) {
        Some(next) => {
            let how = if watching {
                "press n".to_owned()
            } else {
                format!("run {}", command(&format!("stage {}", next.number)))
            };
            println!(
                "{}",
                ui::wrap(
                    &format!("Next: stage {} · {}: {how}.", next.number, next.title),
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
                println!("That was the last stage, and every stage is done. Well done!");
            } else {
                println!(
                    "That was the last stage; still open: stage {}.",
                    open.join(", ")
                );
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
    format!(
        "Progress {cells} {finished} of {} stages done · {right} of {} predictions right",
        wb.stages.len(),
        judged.len()
    )
}

/// How a run ended, in one line: what `verify` and `flaky` report.
pub fn run_outcome(run: &PackageRun) -> String {
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
            format!("does not compile ({}): {first}", packages.join(", "))
        }
        RunState::NotBuilt(why) => format!("was not built: {why}"),
        RunState::TimedOut(bound) => format!("hangs: still running after {} s", bound.as_secs()),
        RunState::Crashed(why) => why.clone(),
        RunState::NoTests => "holds no test".to_owned(),
        RunState::Passed => "passes every test".to_owned(),
        RunState::Failed if run.observations.met(|c| matches!(c, Condition::NoServer)) => {
            format!(
                "fails because no PostgreSQL server could be had (see {})",
                command("doctor")
            )
        }
        RunState::Failed => {
            let example = run
                .failed()
                .next()
                .map(|t| format!(", e.g. {}: {}", t.name, t.first_line()))
                .unwrap_or_default();
            format!(
                "{} of {} tests fail{example}",
                run.count(TestStatus::Failed),
                run.tests.len()
            )
        }
    }
}

/// Why a run that should pass did not: every failing test's first line.
pub fn why_not_passing(run: &PackageRun) -> String {
    let failed: Vec<String> = run
        .failed()
        .map(|t| format!("{}: {}", t.name, t.first_line()))
        .collect();
    match &run.state {
        RunState::Failed if !failed.is_empty() => format!(
            "{} of {} tests fail: {}",
            failed.len(),
            run.tests.len(),
            failed.join("; ")
        ),
        _ => run_outcome(run),
    }
}

#[cfg(test)]
mod tests {
    use super::names;

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
