//! `workbook stage N`: predict, run, compare.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cargo::{Cargo, Targets};
use crate::error::Error;
use crate::observations::{self, Observations};
use crate::run::{PackageRun, RunState, TestStatus, build_and_run};
use crate::stages::{Observed, Prediction, Stage, figure_text};
use crate::state::{Answer, Answers, PredictionResult, State, now};
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;

#[derive(Debug, Clone)]
pub struct StageOptions {
    /// Ask the predictions that have no answer yet.
    pub ask: bool,
    /// Why the questions are not asked, when they are not.
    pub quiet_reason: Option<String>,
    pub timeout: Duration,
    /// Run by `watch`: the next run comes with the next save.
    pub watching: bool,
}

/// Runs stage `number`; true when every test passed.
pub fn run(wb: &Workbook, number: u32, options: StageOptions) -> Result<bool, Error> {
    let stage = wb.stage(number)?;
    let state = State::new(&wb.state_dir);
    show_stage(wb, stage);

    let answers = predictions(&state, stage, &options)?;
    let started = Instant::now();
    let cargo = Cargo::new(&wb.root, ui::stdout_is_terminal());
    let file = state.observations_file(&format!("stage-{number}"))?;
    let mut spinner = Spinner::new();
    let run = build_and_run(
        &cargo,
        Targets::Test {
            package: &stage.exercise,
            target: &stage.test,
        },
        &file,
        options.timeout,
        &mut spinner,
        &format!("the stage {number} tests (PostgreSQL starts first)"),
        Some(&state.executables_file()),
    );
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            spinner.finish();
            return Err(e);
        }
    };
    let others = observed_by_runs(&cargo, &state, stage, &run, options.timeout, &mut spinner)?;
    spinner.finish();
    let _ = state.keep_observations(number, &file);

    if let RunState::CompileError | RunState::NotBuilt(_) = run.state {
        show_build_failure(stage, &run);
        record_run(&state, number, false, &BTreeMap::new())?;
        return Ok(false);
    }
    for line in &run.harness {
        ui::note(&ui::wrap(line, 0));
    }
    show_observations(&run.observations);
    let results = show_predictions(stage, &answers, &run.observations, &others);
    let passed = run.state == RunState::Passed;
    let judged_before = state.progress()?.stages.get(&number).map_or(0, |p| {
        stage
            .predictions
            .iter()
            .filter(|q| p.predictions.contains_key(&q.id) && !results.contains_key(&q.id))
            .count()
    });
    if passed || results.len() + judged_before == stage.predictions.len() {
        show_outcome(stage);
    }
    show_tests(&run);
    show_verdict(stage, &run, started.elapsed(), options.watching);
    record_run(&state, number, passed, &results)?;
    if passed {
        show_next(wb, &state, stage)?;
    }
    Ok(passed)
}

fn show_stage(wb: &Workbook, stage: &Stage) {
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

/// The saved answers, after asking the questions that have none, when someone
/// can answer.
fn predictions(state: &State, stage: &Stage, options: &StageOptions) -> Result<Answers, Error> {
    let mut answers = state.answers(stage.number)?;
    let open: Vec<&Prediction> = stage
        .predictions
        .iter()
        .filter(|p| answers.get(&p.id).is_none())
        .collect();
    if stage.predictions.is_empty() {
        return Ok(answers);
    }
    if open.is_empty() {
        ui::note(&format!(
            "  (Your predictions from your first run are kept; `just reset {}` forgets them.)",
            stage.number
        ));
        return Ok(answers);
    }
    if !options.ask {
        if let Some(reason) = &options.quiet_reason {
            ui::note(&format!("  (Predictions not asked: {reason}.)"));
        }
        return Ok(answers);
    }
    ui::heading("Before anything runs: what do you predict?");
    let count = open.len();
    for (i, p) in open.into_iter().enumerate() {
        let labels: Vec<String> = p.choices.iter().map(|c| c.label.clone()).collect();
        // The question is printed (wrapped) above a short prompt: a prompt that
        // wraps confuses the terminal's redraw.
        let number = format!("{}/{count} ", i + 1);
        let question = ui::hanging(&number, &p.question);
        println!("{}", console::style(question).bold());
        let chosen = ui::select("Your prediction", &labels)?;
        let why = ui::line("Why? (optional, Enter to skip)")?;
        answers.answers.push(Answer {
            id: p.id.clone(),
            question: p.question.clone(),
            answer: labels[chosen].clone(),
            why,
            answered_at: now(),
        });
        state.save_answers(stage.number, &answers)?;
    }
    Ok(answers)
}

/// Runs the packages some predictions take their figures from (`observed_by`),
/// reusing the last figures while the package's test executables are unchanged.
fn observed_by_runs(
    cargo: &Cargo,
    state: &State,
    stage: &Stage,
    main: &PackageRun,
    timeout: Duration,
    spinner: &mut Spinner,
) -> Result<BTreeMap<String, Observations>, Error> {
    let mut out = BTreeMap::new();
    for p in &stage.predictions {
        let Some(package) = p.learner_source() else {
            continue;
        };
        if out.contains_key(package) {
            continue;
        }
        if package == stage.exercise {
            out.insert(package.to_owned(), main.observations.clone());
            continue;
        }
        let file = state.observations_file(package)?;
        let cache = state
            .stage_dir(stage.number)
            .join(format!("observed-by-{package}.json"));
        spinner.phase(&format!("Building {package}"));
        let build = cargo.build(Targets::Package(package), &mut |s| spinner.detail(s))?;
        let key = executables_key(&build.executables, package);
        if let Some(cached) = read_cache(&cache, &key) {
            out.insert(package.to_owned(), cached);
            let _ = std::fs::remove_file(&file);
            continue;
        }
        let run = build_and_run(
            cargo,
            Targets::Package(package),
            &file,
            timeout,
            spinner,
            &format!("{package} (for the predictions)"),
            None,
        )?;
        let finished = !matches!(
            run.state,
            RunState::TimedOut(_) | RunState::CompileError | RunState::NotBuilt(_)
        );
        if finished {
            write_cache(&cache, &key, &run.observations);
        }
        let _ = std::fs::remove_file(&file);
        out.insert(package.to_owned(), run.observations);
    }
    Ok(out)
}

fn executables_key(executables: &[crate::cargo::Executable], package: &str) -> String {
    let mut parts: Vec<String> = executables
        .iter()
        .filter(|e| e.package == package)
        .map(|e| {
            let modified = std::fs::metadata(&e.path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{}@{modified}", e.path.display())
        })
        .collect();
    parts.sort();
    parts.join("|")
}

fn read_cache(path: &PathBuf, key: &str) -> Option<Observations> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    if value["key"].as_str()? != key || key.is_empty() {
        return None;
    }
    let lines = value["lines"].as_str()?;
    Some(Observations::parse(lines))
}

fn write_cache(path: &PathBuf, key: &str, observations: &Observations) {
    let lines: Vec<String> = observations
        .lines
        .iter()
        .map(|l| Value::Object(l.clone()).to_string())
        .collect();
    let value = serde_json::json!({ "key": key, "lines": lines.join("\n") });
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(path, value.to_string());
}

fn show_build_failure(stage: &Stage, run: &PackageRun) {
    let errors = &run.build.errors;
    match &run.state {
        RunState::CompileError => {
            println!();
            println!(
                "{} {} does not compile yet ({} error{}).{}",
                ui::bad("✘"),
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
            println!(
                "{}",
                ui::wrap(
                    &format!(
                        "Fix what the compiler says, then run `just stage {n}` again. Its whole \
                         output: `{}`. Stuck? `just hint {n}`.",
                        run.command,
                        n = stage.number
                    ),
                    0
                )
            );
        }
        RunState::NotBuilt(why) => {
            println!();
            println!("{} `{}` failed:", ui::bad("✘"), run.command);
            println!("{why}");
        }
        _ => {}
    }
}

fn show_observations(observations: &Observations) {
    let scenarios = observations.scenarios();
    if scenarios.is_empty() {
        return;
    }
    ui::heading("What happened (recorded by the tests)");
    let mut table = ui::table(["scenario", "what the tests saw"]);
    for (name, lines) in scenarios {
        let seen: Vec<String> = lines.iter().map(|l| observations::describe(l)).collect();
        let mut unique = seen.clone();
        unique.dedup();
        let text = if unique.len() == 1 && seen.len() > 1 {
            format!("{} (in all {} runs)", unique[0], seen.len())
        } else {
            seen.join("\n")
        };
        table.add_row([name.to_owned(), text]);
    }
    println!("{table}");
}

/// The figures of `p`: from its `observed_by` package's run, or from this run.
/// Empty when the scenario was recorded without the metric at all.
fn figures(
    p: &Prediction,
    main: &Observations,
    others: &BTreeMap<String, Observations>,
) -> (Vec<Value>, bool) {
    let source = p
        .learner_source()
        .and_then(|pkg| others.get(pkg))
        .unwrap_or(main);
    let figures = source.figures(&p.observe, &p.metric);
    let without_metric = !figures.is_empty() && !source.has_metric(&p.observe, &p.metric);
    if without_metric {
        (Vec::new(), true)
    } else {
        (figures, false)
    }
}

fn show_predictions(
    stage: &Stage,
    answers: &Answers,
    main: &Observations,
    others: &BTreeMap<String, Observations>,
) -> BTreeMap<String, PredictionResult> {
    let mut results = BTreeMap::new();
    if stage.predictions.is_empty() {
        return results;
    }
    ui::heading("Your predictions");
    let mut table = ui::table(["question", "you said", "what happened", ""]);
    let (mut right, mut judged) = (0, 0);
    for p in &stage.predictions {
        let (figures, without_metric) = figures(p, main, others);
        let observed = p.observed(&figures);
        let shown_figures = figures
            .iter()
            .map(figure_text)
            .collect::<Vec<_>>()
            .join(", ");
        let happened = match &observed {
            Observed::Nothing if without_metric => format!(
                "not recorded: {} was recorded without `{}`",
                p.observe, p.metric
            ),
            Observed::Nothing => "not recorded: its test did not get that far".to_owned(),
            Observed::Choice(i) if p.choices[*i].label == shown_figures => shown_figures.clone(),
            Observed::Choice(i) => format!("{shown_figures} → {}", p.choices[*i].label),
            Observed::NoChoice => format!("{shown_figures} → none of the choices"),
        };
        let answer = answers.get(&p.id);
        let said = match answer {
            None => "(not asked)".to_owned(),
            Some(a) => match &a.why {
                Some(why) => format!("{}\nbecause: {why}", a.answer),
                None => a.answer.clone(),
            },
        };
        let verdict = match (answer, &observed) {
            (None, _) => "",
            (Some(_), Observed::Nothing) => "not yet",
            (Some(a), Observed::Choice(i)) if p.choices[*i].label == a.answer => "✔ right",
            (Some(_), _) => "✘ wrong",
        };
        if let Some(a) = answer {
            if verdict == "✔ right" {
                right += 1;
            }
            if observed != Observed::Nothing {
                judged += 1;
                results.insert(
                    p.id.clone(),
                    PredictionResult {
                        answer: a.answer.clone(),
                        observed: happened.clone(),
                        right: verdict == "✔ right",
                    },
                );
            }
        }
        table.add_row([p.question.clone(), said, happened, verdict.to_owned()]);
    }
    println!("{table}");
    if judged > 0 {
        ui::note(&format!(
            "  {right} of {judged} prediction{} right, judged by what this run really did.",
            if judged == 1 { "" } else { "s" }
        ));
    } else if answers
        .answers
        .iter()
        .any(|a| stage.predictions.iter().any(|p| p.id == a.id))
    {
        ui::note("  (Your predictions are judged once their tests get that far.)");
    }
    results
}

/// What the stage's goal kept back: shown once every prediction is judged.
fn show_outcome(stage: &Stage) {
    let text = stage.outcome_text();
    if text.is_empty() {
        return;
    }
    ui::heading("What happened, and why");
    println!("{}", ui::wrap(&text, 2));
}

fn show_tests(run: &PackageRun) {
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
            TestStatus::Passed => ui::good("✔"),
            TestStatus::Failed | TestStatus::Unfinished => ui::bad("✘"),
            TestStatus::Ignored | TestStatus::NotRun => ui::warn("–"),
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

/// A failure message that smells of a deadlock or a hang.
pub fn looks_stuck(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("pool timed out")
        || m.contains("pooltimedout")
        || m.contains("did not finish within")
}

fn show_verdict(stage: &Stage, run: &PackageRun, elapsed: Duration, watching: bool) {
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
    println!();
    match &run.state {
        RunState::Passed => println!("{} All {total} tests pass {times}.", ui::good("✔")),
        RunState::TimedOut(bound) => {
            let unfinished: Vec<&str> = run
                .tests
                .iter()
                .filter(|t| t.status == TestStatus::Unfinished)
                .map(|t| t.name.as_str())
                .collect();
            println!(
                "{} The tests did not finish within {} s, so they were stopped: that is a hang.",
                ui::bad("✘"),
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
                         `just hint {n}` helps."
                    ),
                    2
                )
            );
        }
        RunState::Crashed(why) => {
            println!("{} {why}", ui::bad("✘"));
        }
        RunState::NoTests => println!("{} `{}` ran no test.", ui::bad("✘"), run.command),
        _ => println!(
            "{} {failed} of {total} tests fail, {passed} pass {times}.",
            ui::bad("✘")
        ),
    }
    let stuck = run
        .failed()
        .filter_map(|t| t.failure.as_ref())
        .any(|f| looks_stuck(&f.message) || looks_stuck(&f.printed));
    if stuck {
        let text = ui::wrap(
            &format!(
                "deadlock? A request waited for a connection or a lock until it gave up (\"pool timed out\" / \
                     \"did not finish within\"). If every connection of the pool is held by a request \
                     that waits for another one, nothing can move: read the pool's state in the message \
                 above. `just hint {n}`."
            ),
            0,
        );
        let rest = text.strip_prefix("deadlock?").unwrap_or(&text);
        println!("{}{rest}", ui::warn("deadlock?"));
    }
    if run.state != RunState::Passed {
        let edit = if stage.edit.is_empty() {
            stage.exercise.clone()
        } else {
            stage.edit.join(", ")
        };
        let next = if watching {
            format!("Edit {edit}: the next save reruns the tests. Stuck? `just hint {n}`.")
        } else {
            format!(
                "Edit {edit}, then run `just stage {n}` again (or `just watch {n}` to rerun on \
                 every save). Stuck? `just hint {n}`."
            )
        };
        println!("{}", ui::wrap(&next, 0));
    }
}

fn record_run(
    state: &State,
    number: u32,
    passed: bool,
    results: &BTreeMap<String, PredictionResult>,
) -> Result<(), Error> {
    state.update_progress(|p| {
        let entry = p.stages.entry(number).or_default();
        entry.runs += 1;
        for (id, result) in results {
            // The first judged run counts: that is when the prediction was made.
            entry
                .predictions
                .entry(id.clone())
                .or_insert_with(|| result.clone());
        }
        if passed && !entry.done {
            entry.done = true;
            entry.done_at = Some(now());
        }
    })?;
    Ok(())
}

fn show_next(wb: &Workbook, state: &State, stage: &Stage) -> Result<(), Error> {
    println!("{} Stage {} is done.", ui::good("✔"), stage.number);
    let progress = state.progress()?;
    match wb.next_stage(stage.number) {
        Some(next) => println!(
            "Next: stage {} · {}: run `just stage {}`.",
            next.number, next.title, next.number
        ),
        None => {
            let open: Vec<String> = wb
                .stages
                .iter()
                .filter(|s| !progress.stages.get(&s.number).is_some_and(|p| p.done))
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::names;

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
