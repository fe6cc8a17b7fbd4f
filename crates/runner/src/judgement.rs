//! How predictions turn out, judged in one place. `stage` judges the learner's
//! answers and `verify` the answer key, both with [`judge`], from the same
//! sources: the stage's own run and, for a prediction that names one, the whole
//! run of its `observed_by` package ([`PackageRuns`], each package run once).
//! `progress` shows what was kept. Words and glyphs are the renderer's
//! (`render.rs`); no decision here looks at display text.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::cargo::Executable;
use crate::error::Error;
use crate::observations::Observations;
use crate::run::{PackageRun, RunState};
use crate::stages::{Observed, Prediction, Stage, figure_text};
use crate::state::{Answer, Answers, PredictionResult, State};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// What happened is the choice that was predicted.
    Right,
    /// What happened is another choice, or none of them.
    Wrong,
    /// Predicted, but the run did not get far enough to tell.
    NotYet,
    /// Nobody predicted it.
    NotAsked,
}

impl Judgement {
    /// `said` (a choice's label, or none) against what a run showed.
    pub fn of(prediction: &Prediction, said: Option<&str>, observed: &Observed) -> Self {
        match (said, observed) {
            (None, _) => Self::NotAsked,
            (Some(_), Observed::Nothing) => Self::NotYet,
            (Some(said), Observed::Choice(i)) if prediction.choices[*i].label == said => {
                Self::Right
            }
            (Some(_), Observed::Choice(_) | Observed::NoChoice) => Self::Wrong,
        }
    }

    /// A kept result (right or wrong): only judged predictions are kept.
    pub fn kept(right: bool) -> Self {
        if right { Self::Right } else { Self::Wrong }
    }

    /// Right or wrong: the run told.
    pub fn is_judged(self) -> bool {
        matches!(self, Self::Right | Self::Wrong)
    }
}

/// What one run showed for one prediction.
#[derive(Debug, Clone)]
pub struct Seen {
    pub figures: Vec<Value>,
    pub observed: Observed,
    /// The scenario was recorded, but without the prediction's metric.
    pub without_metric: bool,
}

impl Seen {
    /// The figures of `p` in `observations` (its own run, or its `observed_by`
    /// package's).
    pub fn of(p: &Prediction, observations: &Observations, scenario: &str) -> Self {
        let figures = observations.figures(scenario, &p.metric);
        let without_metric = !figures.is_empty() && !observations.has_metric(scenario, &p.metric);
        let figures = if without_metric { Vec::new() } else { figures };
        let observed = p.observed(&figures);
        Self {
            figures,
            observed,
            without_metric,
        }
    }

    /// The figures as the learner reads them, in their language: "1, 1, 1",
    /// "pagou de novo" for the recorded "paid again".
    pub fn said(&self) -> String {
        self.figures
            .iter()
            .map(crate::observations::value_said)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The figures as recorded (what `verify` prints): "1, 1, 1".
    pub fn shown(&self) -> String {
        self.figures
            .iter()
            .map(figure_text)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Whose answers are judged, and so which run each prediction reads.
#[derive(Debug, Clone, Copy)]
pub enum Judging<'a> {
    /// The learner's saved answers (`cargo workbook stage N`): a prediction reads
    /// the exercise's run at its `observe` scenario, or its `observed_by`
    /// package's run when the learner's own run cannot show it.
    Learner(&'a Answers),
    /// The answer key (`cargo workbook verify`): a prediction reads the
    /// solution's run, or its `observed_by` package's, at the scenario `verify`
    /// checks (`verify_observe`, else `observe`).
    AnswerKey,
}

impl<'a> Judging<'a> {
    /// The package whose whole run `p` reads, when it is not the stage's own run.
    pub fn package<'p>(&self, p: &'p Prediction) -> Option<&'p str> {
        match self {
            Self::Learner(_) => p.learner_source(),
            Self::AnswerKey => p.observed_by.as_deref(),
        }
    }

    /// The scenario whose figures `p` reads.
    fn scenario<'p>(&self, p: &'p Prediction) -> &'p str {
        match self {
            Self::Learner(_) => &p.observe,
            Self::AnswerKey => p.verify_scenario(),
        }
    }

    /// The stage's own run: the learner's exercise, or the model answer.
    fn own<'s>(&self, stage: &'s Stage) -> &'s str {
        match self {
            Self::Learner(_) => &stage.exercise,
            Self::AnswerKey => &stage.solution,
        }
    }

    /// Whether `package`'s figures are the stage's own run's: the learner's
    /// exercise is run for its stage's test only, and so is read there; the answer
    /// key's `observed_by` package is run whole (its other test files record
    /// the traps the stage's test does not).
    fn reads_own_run(&self, stage: &Stage, package: &str) -> bool {
        match self {
            Self::Learner(_) => package == stage.exercise,
            Self::AnswerKey => false,
        }
    }

    /// The learner's answer to `p`, if any.
    fn answer(&self, p: &Prediction) -> Option<&'a Answer> {
        match self {
            Self::Learner(answers) => answers.get(&p.id),
            Self::AnswerKey => None,
        }
    }
}

/// One prediction, judged: what was said, where the figures came from, what
/// they were, and the judgement.
pub struct Judged<'a> {
    pub prediction: &'a Prediction,
    /// The learner's answer (none for the answer key, or when not asked).
    pub answer: Option<&'a Answer>,
    /// The package whose run the figures came from.
    pub source: &'a str,
    /// The scenario they were read at.
    pub scenario: &'a str,
    pub seen: Seen,
    pub judgement: Judgement,
}

/// Every prediction of `stage`, judged against its figures: those of `own`, the
/// stage's own run (the exercise's for the learner, the solution's for the key),
/// or those of the `observed_by` package it reads, from `packages`.
pub fn judge<'a>(
    stage: &'a Stage,
    judging: Judging<'a>,
    own: &Observations,
    packages: &PackageRuns<'_>,
) -> Vec<Judged<'a>> {
    stage
        .predictions
        .iter()
        .map(|p| {
            let (source, observations) = match judging.package(p) {
                Some(package) => match packages.get(package) {
                    Some(observations) => (package, observations),
                    None => (judging.own(stage), own),
                },
                None => (judging.own(stage), own),
            };
            let scenario = judging.scenario(p);
            let seen = Seen::of(p, observations, scenario);
            let answer = judging.answer(p);
            let said = match judging {
                Judging::Learner(_) => answer.map(|a| a.answer.as_str()),
                Judging::AnswerKey => Some(p.answer.as_str()),
            };
            let judgement = Judgement::of(p, said, &seen.observed);
            Judged {
                prediction: p,
                answer,
                source,
                scenario,
                seen,
                judgement,
            }
        })
        .collect()
}

/// The learner's judged predictions, as progress keeps them; `happened` puts
/// what was seen into the words kept beside each.
pub fn results(
    judged: &[Judged<'_>],
    happened: impl Fn(&Judged<'_>) -> String,
) -> BTreeMap<String, PredictionResult> {
    judged
        .iter()
        .filter(|j| j.judgement.is_judged())
        .filter_map(|j| {
            let answer = j.answer?;
            Some((
                j.prediction.id.clone(),
                PredictionResult {
                    answer: answer.answer.clone(),
                    observed: happened(j),
                    right: j.judgement == Judgement::Right,
                },
            ))
        })
        .collect()
}

/// How a caller builds and runs a package's tests, for [`PackageRuns::gather`]:
/// `stage` builds it alone, as the learner's loop does; `verify` runs what its
/// workspace build made.
pub trait PackageRunner {
    /// The package's test executables, built.
    fn build(&mut self, package: &str) -> Result<Vec<Executable>, Error>;
    /// Runs every test of the package.
    fn run(&mut self, package: &str) -> Result<PackageRun, Error>;
}

/// The whole-package runs that `observed_by` predictions read: each package run
/// once in a process and, where there is a place to keep them (the learner's
/// state, for one stage), kept across runs while the package's test executables
/// are unchanged.
#[derive(Default)]
pub struct PackageRuns<'s> {
    runs: BTreeMap<String, Observations>,
    kept: Option<(&'s State, u32)>,
}

impl<'s> PackageRuns<'s> {
    /// Runs kept in `state`, under stage `number`, from one run to the next.
    pub fn kept_in(state: &'s State, number: u32) -> Self {
        Self {
            runs: BTreeMap::new(),
            kept: Some((state, number)),
        }
    }

    /// What `package`'s tests recorded, once it ran.
    pub fn get(&self, package: &str) -> Option<&Observations> {
        self.runs.get(package)
    }

    /// Runs (or takes from where they are kept) every package that `judging`
    /// reads for `stage` and that has no run yet.
    pub fn gather(
        &mut self,
        stage: &Stage,
        judging: Judging<'_>,
        runner: &mut impl PackageRunner,
    ) -> Result<(), Error> {
        for p in &stage.predictions {
            let Some(package) = judging.package(p) else {
                continue;
            };
            if self.runs.contains_key(package) || judging.reads_own_run(stage, package) {
                continue;
            }
            let observations = self.run(package, runner)?;
            self.runs.insert(package.to_owned(), observations);
        }
        Ok(())
    }

    fn run(&self, package: &str, runner: &mut impl PackageRunner) -> Result<Observations, Error> {
        let Some((state, number)) = self.kept else {
            return Ok(runner.run(package)?.observations);
        };
        let key = executables_key(&runner.build(package)?, package);
        if let Some(kept) = state.observed_by(number, package, &key) {
            return Ok(kept);
        }
        let run = runner.run(package)?;
        let finished = !matches!(
            run.state,
            RunState::TimedOut(_) | RunState::CompileError | RunState::NotBuilt(_)
        );
        if finished {
            state.save_observed_by(number, package, &key, &run.observations);
        }
        Ok(run.observations)
    }
}

/// The identity of `package`'s test executables: their paths and modification
/// times. Kept figures count while it is the same.
fn executables_key(executables: &[Executable], package: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::parse;
    use crate::stages::tests::ONE;

    #[test]
    fn an_answer_is_right_wrong_not_yet_or_not_asked() {
        let stages = parse(ONE).expect("parses");
        let p = &stages[0].predictions[0];
        let one = Observed::Choice(1);
        assert_eq!(Judgement::of(p, Some("one"), &one), Judgement::Right);
        assert_eq!(Judgement::of(p, Some("several"), &one), Judgement::Wrong);
        assert_eq!(
            Judgement::of(p, Some("one"), &Observed::NoChoice),
            Judgement::Wrong
        );
        assert_eq!(
            Judgement::of(p, Some("one"), &Observed::Nothing),
            Judgement::NotYet
        );
        assert_eq!(Judgement::of(p, None, &one), Judgement::NotAsked);
        assert!(Judgement::Wrong.is_judged() && !Judgement::NotYet.is_judged());
    }

    #[test]
    fn figures_recorded_without_the_metric_are_none() {
        let stages = parse(ONE).expect("parses");
        let p = &stages[0].predictions[0];
        let o = Observations::parse(r#"{"scenario":"stage1.x","other":3}"#);
        let seen = Seen::of(p, &o, "stage1.x");
        assert!(seen.without_metric);
        assert_eq!(seen.observed, Observed::Nothing);
        let o = Observations::parse(r#"{"scenario":"stage1.x","payments":1}"#);
        let seen = Seen::of(p, &o, "stage1.x");
        assert_eq!(seen.observed, Observed::Choice(1));
        assert_eq!(seen.shown(), "1");
    }
}
