//! `workbook stage N`: predict, run, compare.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::cargo::{Cargo, Executable, Targets};
use crate::environment::{self, command};
use crate::error::Error;
use crate::judgement::{Judging, PackageRunner, PackageRuns, judge, results};
use crate::render;
use crate::run::{PackageRun, RunState, build_and_run};
use crate::stages::{Prediction, Stage};
use crate::state::{Answer, Answers, State, now};
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;
use l10n::{Localiser, t};

#[derive(Debug, Clone)]
pub struct StageOptions {
    /// Why the predictions that have no answer yet are not asked; `None`: they are.
    pub quiet: Option<Quiet>,
    pub timeout: Duration,
    /// Run by `watch`: the next run comes with the next save.
    pub watching: bool,
}

/// Why a run does not ask its predictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quiet {
    /// `--no-predict`.
    NoPredict,
    /// `CI` is set.
    Ci,
    /// Nobody at a terminal to answer.
    NoTerminal,
    /// `watch` reads the keys: run `stage N` once to predict.
    Watching,
}

impl StageOptions {
    /// What `stage N` does with its flags here: it asks unless told not to, in
    /// CI, or with no terminal to answer.
    pub fn new(no_predict: bool, timeout: Duration) -> Self {
        let quiet = if no_predict {
            Some(Quiet::NoPredict)
        } else if environment::in_ci() {
            Some(Quiet::Ci)
        } else if !environment::can_ask() {
            Some(Quiet::NoTerminal)
        } else {
            None
        };
        Self {
            quiet,
            timeout,
            watching: false,
        }
    }
}

impl Quiet {
    /// Why, in the learner's words, for stage `number`.
    fn said(self, l: &Localiser, number: u32) -> String {
        match self {
            Self::NoPredict => "--no-predict".to_owned(),
            Self::Ci => t!(l, "quiet-ci"),
            Self::NoTerminal => t!(l, "quiet-no-terminal"),
            Self::Watching => t!(
                l,
                "quiet-watching",
                stage = command(&format!("stage {number}"))
            ),
        }
    }
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
    let cargo = Cargo::new(&wb.root, environment::stdout_is_terminal());
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
    let judging = Judging::Learner(&answers);
    let mut packages = PackageRuns::kept_in(&state, number);
    packages.gather(
        stage,
        judging,
        &mut LearnerRuns {
            l,
            cargo: &cargo,
            state: &state,
            timeout: options.timeout,
            spinner: &mut spinner,
        },
    )?;
    spinner.finish();
    let _ = state.keep_observations(number, file);

    if let RunState::CompileError | RunState::NotBuilt(_) = run.state {
        render::build_failure(l, stage, &run, options.watching);
        state.record_run(number, false, &BTreeMap::new())?;
        return Ok(false);
    }
    render::harness_notes(&run.observations);
    render::observations(l, stage, &run.observations);
    let judged = judge(stage, judging, &run.observations, &packages);
    render::predictions(l, &judged);
    let results = results(&judged, |j| render::happened(l, j.prediction, &j.seen));
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
        let name = timeline::say!(words, "test-name-placeholder");
        let again = timeline::say!(
            words,
            "shown-again",
            command = command(&format!("timeline {number}")),
            test_command = command(&format!("timeline {number} --test {name}"))
        );
        crate::timelines::print(l, trace, (!options.watching).then_some(again.as_str()));
    }
    let progress = state.record_run(number, passed, &results)?;
    if passed {
        let done = |n: u32| progress.stages.get(&n).is_some_and(|p| p.done);
        render::next(wb, stage, &done, options.watching);
    }
    Ok(passed)
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
    if let Some(quiet) = options.quiet {
        let reason = quiet.said(l, stage.number);
        ui::note(&format!(
            "  {}",
            t!(l, "predictions-not-asked-because", reason = reason)
        ));
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

/// How the learner's loop builds and runs an `observed_by` package: alone, as
/// `cargo test -p PACKAGE` would, behind the spinner.
struct LearnerRuns<'a> {
    l: &'a Localiser,
    cargo: &'a Cargo,
    state: &'a State,
    timeout: Duration,
    spinner: &'a mut Spinner,
}

impl PackageRunner for LearnerRuns<'_> {
    fn build(&mut self, package: &str) -> Result<Vec<Executable>, Error> {
        let l = self.l;
        self.spinner
            .phase(&t!(l, "building-package", package = package));
        let spinner = &mut *self.spinner;
        let build = self.cargo.build(Targets::Package(package), &mut |status| {
            spinner.detail(&status.said(l));
        })?;
        Ok(build.executables)
    }

    fn run(&mut self, package: &str) -> Result<PackageRun, Error> {
        let l = self.l;
        let file = self.state.run_file(package)?;
        build_and_run(
            self.cargo,
            Targets::Package(package),
            file.path(),
            self.timeout,
            self.spinner,
            &t!(l, "running-for-predictions", package = package),
            None,
        )
    }
}
