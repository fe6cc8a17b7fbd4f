//! `workbook stage N`: predict, run, compare.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::cargo::{Cargo, Targets};
use crate::environment::command;
use crate::error::Error;
use crate::judgement::{Judgement, Seen};
use crate::observations::Observations;
use crate::render::{self, Judged};
use crate::run::{PackageRun, RunState, build_and_run};
use crate::stages::{Prediction, Stage};
use crate::state::{Answer, Answers, PredictionResult, Progress, State, now};
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;
use crate::{l10n::Localiser, t};

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
    let l = &wb.l10n;
    let state = State::new(&wb.state_dir);
    render::stage_header(wb, stage);
    // A state file that cannot be read stops the run now, not after the tests.
    state.check_readable(number)?;

    let answers = predictions(l, &state, stage, &options)?;
    let started = Instant::now();
    let cargo = Cargo::new(&wb.root, crate::environment::stdout_is_terminal());
    let file = state.run_file(&format!("stage-{number}"))?;
    let mut spinner = Spinner::speaking(l);
    let run = build_and_run(
        &cargo,
        Targets::Test {
            package: &stage.exercise,
            target: &stage.test,
        },
        file.path(),
        options.timeout,
        &mut spinner,
        &t!(l, "running-stage-tests", number = number),
        Some(&state),
    );
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            spinner.finish();
            return Err(e);
        }
    };
    let others = observed_by_runs(
        l,
        &cargo,
        &state,
        stage,
        &run,
        options.timeout,
        &mut spinner,
    )?;
    spinner.finish();
    let _ = state.keep_observations(number, file);

    if let RunState::CompileError | RunState::NotBuilt(_) = run.state {
        render::build_failure(l, stage, &run, options.watching);
        record_run(&state, number, false, &BTreeMap::new())?;
        return Ok(false);
    }
    render::harness_notes(&run.observations);
    render::observations(l, stage, &run.observations);
    let judged = judge(stage, &answers, &run.observations, &others);
    render::predictions(l, &judged);
    let results = results(l, &judged);
    let passed = run.state == RunState::Passed;
    let kept = state.progress()?;
    let judged_before = kept.stages.get(&number).map_or(0, |p| {
        stage
            .predictions
            .iter()
            .filter(|q| p.predictions.contains_key(&q.id) && !results.contains_key(&q.id))
            .count()
    });
    if passed || results.len() + judged_before == stage.predictions.len() {
        render::outcome(l, stage);
    }
    render::tests(l, &run);
    render::verdict(l, stage, &run, started.elapsed(), options.watching);
    if let Some(trace) = crate::timelines::deciding(stage, &run) {
        state.remember_timeline(number, &trace.id);
        let words = crate::timelines::words(l);
        // In watch the keys line follows; the command is for a terminal of its own.
        let again = timeline::say!(
            words,
            "shown-again",
            command = command(&format!("timeline {number}")),
            test_command = command(&format!("timeline {number} --test NAME"))
        );
        crate::timelines::print(l, trace, (!options.watching).then_some(again.as_str()));
    }
    let progress = record_run(&state, number, passed, &results)?;
    if passed {
        let done = |n: u32| progress.stages.get(&n).is_some_and(|p| p.done);
        render::next(wb, stage, &done, options.watching);
    }
    Ok(passed)
}

/// Every prediction of the stage, judged by this run's figures (or its
/// `observed_by` package's).
fn judge<'a>(
    stage: &'a Stage,
    answers: &'a Answers,
    main: &Observations,
    others: &BTreeMap<String, Observations>,
) -> Vec<Judged<'a>> {
    stage
        .predictions
        .iter()
        .map(|p| {
            let source = p
                .learner_source()
                .and_then(|pkg| others.get(pkg))
                .unwrap_or(main);
            let seen = Seen::of(p, source, &p.observe);
            let answer = answers.get(&p.id);
            let judgement = Judgement::of(p, answer.map(|a| a.answer.as_str()), &seen.observed);
            Judged {
                prediction: p,
                answer,
                seen,
                judgement,
            }
        })
        .collect()
}

/// The judged predictions, as progress keeps them.
fn results(l: &Localiser, judged: &[Judged<'_>]) -> BTreeMap<String, PredictionResult> {
    judged
        .iter()
        .filter(|j| j.judgement.is_judged())
        .filter_map(|j| {
            let answer = j.answer?;
            Some((
                j.prediction.id.clone(),
                PredictionResult {
                    answer: answer.answer.clone(),
                    observed: render::happened(l, j.prediction, &j.seen),
                    right: j.judgement == Judgement::Right,
                },
            ))
        })
        .collect()
}

/// The saved answers, after asking the questions that have none, when someone
/// can answer.
fn predictions(
    l: &Localiser,
    state: &State,
    stage: &Stage,
    options: &StageOptions,
) -> Result<Answers, Error> {
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
        ui::note(&ui::wrap(
            &t!(
                l,
                "predictions-kept",
                reset = command(&format!("reset {}", stage.number))
            ),
            2,
        ));
        return Ok(answers);
    }
    if !options.ask {
        if let Some(reason) = &options.quiet_reason {
            ui::note(&format!(
                "  {}",
                t!(l, "predictions-not-asked-because", reason = reason)
            ));
        }
        return Ok(answers);
    }
    ui::heading(&t!(l, "predict-heading"));
    let count = open.len();
    for (i, p) in open.into_iter().enumerate() {
        let labels: Vec<String> = p.choices.iter().map(|c| c.shown.clone()).collect();
        // The question is printed (wrapped) above a short prompt: a prompt that
        // wraps confuses the terminal's redraw.
        let number = format!("{}/{count} ", i + 1);
        let question = ui::hanging(&number, &p.question);
        println!("{}", console::style(question).bold());
        let chosen = ui::select(&t!(l, "predict-prompt"), &labels)?;
        let why = ui::line(&t!(l, "predict-why"))?;
        answers.answers.push(Answer {
            id: p.id.clone(),
            question: p.question.clone(),
            // The choice's identity, not the words it was shown in: the answer
            // is judged the same in any language.
            answer: p.choices[chosen].label.clone(),
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
    l: &Localiser,
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
        spinner.phase(&t!(l, "building-package", package = package));
        let build = cargo.build(Targets::Package(package), &mut |status| {
            spinner.detail(&status.said(l));
        })?;
        let key = executables_key(&build.executables, package);
        if let Some(cached) = state.observed_by(stage.number, package, &key) {
            out.insert(package.to_owned(), cached);
            continue;
        }
        let file = state.run_file(package)?;
        let run = build_and_run(
            cargo,
            Targets::Package(package),
            file.path(),
            timeout,
            spinner,
            &t!(l, "running-for-predictions", package = package),
            None,
        )?;
        let finished = !matches!(
            run.state,
            RunState::TimedOut(_) | RunState::CompileError | RunState::NotBuilt(_)
        );
        if finished {
            state.save_observed_by(stage.number, package, &key, &run.observations);
        }
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

fn record_run(
    state: &State,
    number: u32,
    passed: bool,
    results: &BTreeMap<String, PredictionResult>,
) -> Result<Progress, Error> {
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
    })
}
