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
    show_tests(&run);
    let passed = run.state == RunState::Passed;
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
        let question = ui::wrap(&format!("{number}{}", p.question), 0);
        let question = question.replace('\n', &format!("\n{}", " ".repeat(number.len())));
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

fn show_tests(run: &PackageRun) {
    if run.tests.is_empty() {
        return;
    }
    ui::heading("Tests");
    let mut table = ui::table(["test", "result", "what it says"]);
    ui::at_least(&mut table, 2, 50);
    let mut previous: Option<String> = None;
    for t in in_reading_order(run) {
        let result = match t.status {
            TestStatus::Passed => "✔ pass",
            TestStatus::Failed => "✘ FAIL",
            TestStatus::Ignored => "– ignored",
            TestStatus::Unfinished => "⧗ unfinished",
            TestStatus::NotRun => "– not run",
        };
        let message = match (&t.failure, t.status) {
            (Some(f), TestStatus::Failed) => {
                let mut text = f.message.clone();
                if text.is_empty() {
                    text = "(it failed without a message)".to_owned();
                }
                if let Some(at) = &f.location {
                    text.push_str(&format!("\n(panicked at {at})"));
                }
                text
            }
            (_, TestStatus::Unfinished) => "still running when the run was stopped".to_owned(),
            _ => String::new(),
        };
        let message = limit_lines(&message, 20);
        let cell = if !message.is_empty() && previous.as_deref() == Some(message.as_str()) {
            "(same as above)".to_owned()
        } else {
            message.clone()
        };
        previous = (!message.is_empty()).then_some(message);
        // On a narrow terminal, long rstest names wrap after their `::`, not in
        // the middle of a word.
        let name = if t.name.len() > usize::from(ui::width()) * 35 / 100 {
            t.name.replace("::", "::\n")
        } else {
            t.name.clone()
        };
        table.add_row([name, result.to_owned(), cell]);
    }
    println!("{table}");
    // What the first failing test printed (e.g. a results table, the pool's state).
    if let Some((name, printed)) = run
        .failed()
        .filter_map(|t| t.failure.as_ref().map(|f| (&t.name, &f.printed)))
        .find(|(_, p)| !p.trim().is_empty())
    {
        ui::note(&format!("What {name} printed:"));
        println!("{}", limit_lines(printed, 40));
    }
}

/// Failures first, those with the same message together; then the rest.
fn in_reading_order(run: &PackageRun) -> Vec<&crate::run::TestVerdict> {
    let rank = |status: TestStatus| match status {
        TestStatus::Failed | TestStatus::Unfinished => 0,
        TestStatus::NotRun => 1,
        TestStatus::Passed => 2,
        TestStatus::Ignored => 3,
    };
    let message = |t: &crate::run::TestVerdict| {
        t.failure
            .as_ref()
            .map(|f| f.message.clone())
            .unwrap_or_default()
    };
    let mut groups: Vec<String> = Vec::new();
    let mut tests: Vec<(usize, usize, &crate::run::TestVerdict)> = run
        .tests
        .iter()
        .map(|t| {
            let m = message(t);
            let group = groups.iter().position(|g| *g == m).unwrap_or_else(|| {
                groups.push(m);
                groups.len() - 1
            });
            (rank(t.status), group, t)
        })
        .collect();
    tests.sort_by_key(|(rank, group, _)| (*rank, *group));
    tests.into_iter().map(|(_, _, t)| t).collect()
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
