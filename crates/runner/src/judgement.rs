//! How a prediction turned out, as a type: `stage` judges the learner's answer,
//! `verify` the answer key, `progress` shows what was kept. Words and glyphs for
//! it are the renderer's (`render.rs`); no decision here looks at display text.

use serde_json::Value;

use crate::observations::Observations;
use crate::stages::{Observed, Prediction, figure_text};

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
