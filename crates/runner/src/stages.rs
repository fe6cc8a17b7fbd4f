//! The stage metadata (`stages.toml`): what the runner shows, asks, runs and checks.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, StagesError};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StagesFile {
    #[serde(rename = "stage", default)]
    stages: Vec<StageEntry>,
}

/// A stage as written in `stages.toml`: the package and test names may be left
/// out, and are then derived from `number` and `slug`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StageEntry {
    number: u32,
    #[serde(default)]
    slug: Option<String>,
    title: String,
    #[serde(default)]
    goal: String,
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    exercise: Option<String>,
    #[serde(default)]
    solution: Option<String>,
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    edit: Vec<String>,
    #[serde(default)]
    hints: Vec<String>,
    #[serde(rename = "prediction", default)]
    predictions: Vec<Prediction>,
    #[serde(default)]
    known_wrong: Vec<KnownWrong>,
}

#[derive(Debug, Clone)]
pub struct Stage {
    pub number: u32,
    /// The short name the packages and the book's results are named after.
    pub slug: Option<String>,
    pub title: String,
    /// What to build and why: shown before the predictions, so it never says
    /// what they ask.
    pub goal: String,
    /// What happened and what it teaches: shown after the predictions are judged.
    pub outcome: String,
    /// The learner's package (`stageN-SLUG-exercise` unless given).
    pub exercise: String,
    /// The model answer's package (`stageN-SLUG-solution` unless given).
    pub solution: String,
    /// The `[[test]]` target both packages define (`stageN` unless given).
    pub test: String,
    /// The files the learner edits, relative to the workspace root.
    pub edit: Vec<String>,
    pub hints: Vec<String>,
    pub predictions: Vec<Prediction>,
    pub known_wrong: Vec<KnownWrong>,
}

impl StageEntry {
    fn resolve(self) -> Result<Stage, StagesError> {
        let number = self.number;
        let derived = |given: Option<String>, field: &'static str, suffix: &str| {
            given
                .or_else(|| {
                    self.slug
                        .as_ref()
                        .map(|slug| format!("stage{number}-{slug}-{suffix}"))
                })
                .ok_or(StagesError::Underived { number, field })
        };
        let exercise = derived(self.exercise.clone(), "exercise", "exercise")?;
        let solution = derived(self.solution.clone(), "solution", "solution")?;
        Ok(Stage {
            number,
            test: self.test.unwrap_or_else(|| format!("stage{number}")),
            slug: self.slug,
            title: self.title,
            goal: self.goal,
            outcome: self.outcome,
            exercise,
            solution,
            edit: self.edit,
            hints: self.hints,
            predictions: self.predictions,
            known_wrong: self.known_wrong,
        })
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    pub id: String,
    pub question: String,
    /// The scenario name the tests record (`harness::observe`).
    pub observe: String,
    /// A path into the recorded fields: `replies.201` is `obj["replies"]["201"]`.
    pub metric: String,
    /// The label of the right choice.
    pub answer: String,
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// The package whose whole test run (`cargo test -p PACKAGE`) records the
    /// figure, instead of the stage's test target (e.g. a solution's extra test
    /// of the naive version). With `verify_observe`, only `verify` uses it.
    #[serde(default)]
    pub observed_by: Option<String>,
    /// For a prediction about a trap the solution avoids: the scenario `verify`
    /// checks the answer key against (recorded by `observed_by`), while the
    /// learner's own run is read at `observe`.
    #[serde(default)]
    pub verify_observe: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// The choice's identity: what the answer key (`answer`) and the saved
    /// answers name. Written once, in English, in stages.toml; never shown in
    /// another language.
    pub label: String,
    /// The label as the learner reads it: `label`, or its twin in the
    /// learner's language.
    #[serde(skip)]
    pub shown: String,
    #[serde(default)]
    pub equals: Option<toml::Value>,
    #[serde(default)]
    pub min: Option<toml::Value>,
    #[serde(default)]
    pub max: Option<toml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownWrong {
    pub package: String,
    /// The tests that must fail for this package.
    #[serde(default)]
    pub catches: Vec<String>,
    /// The test target, when it is not the stage's.
    #[serde(default)]
    pub test: Option<String>,
}

pub fn load(path: &Path) -> Result<Vec<Stage>, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(&text).map_err(|source| Error::StagesToml {
        path: path.to_owned(),
        source,
    })
}

pub fn parse(text: &str) -> Result<Vec<Stage>, StagesError> {
    let file: StagesFile = toml::from_str(text)?;
    let mut stages = file
        .stages
        .into_iter()
        .map(StageEntry::resolve)
        .collect::<Result<Vec<_>, _>>()?;
    stages.sort_by_key(|s| s.number);
    for stage in &mut stages {
        for p in &mut stage.predictions {
            for c in &mut p.choices {
                c.shown = c.label.clone();
            }
        }
    }
    Ok(stages)
}

impl Stage {
    /// The goal as one paragraph: TOML line continuations already joined it.
    pub fn goal_text(&self) -> String {
        paragraphs(&self.goal)
    }

    /// The outcome as one paragraph per blank-line-separated block.
    pub fn outcome_text(&self) -> String {
        paragraphs(&self.outcome)
    }

    /// The test target of a known-wrong package.
    pub fn test_of<'a>(&'a self, wrong: &'a KnownWrong) -> &'a str {
        wrong.test.as_deref().unwrap_or(&self.test)
    }

    /// Problems with the metadata itself, each in one line.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.title.trim().is_empty() {
            problems.push("has no title".to_owned());
        }
        if self.goal.trim().is_empty() {
            problems.push("has no goal".to_owned());
        }
        if self.hints.iter().all(|h| h.trim().is_empty()) {
            problems.push("has no hints".to_owned());
        }
        if self.predictions.is_empty() {
            problems.push("has no prediction questions".to_owned());
        }
        if self.exercise == self.solution {
            problems.push("its exercise and solution are the same package".to_owned());
        }
        let mut ids = BTreeSet::new();
        for p in &self.predictions {
            if !ids.insert(p.id.as_str()) {
                problems.push(format!("prediction id {:?} is used twice", p.id));
            }
            if p.choices.is_empty() {
                problems.push(format!("prediction {:?} has no choices", p.id));
            }
            if p.choice_index(&p.answer).is_none() {
                problems.push(format!(
                    "prediction {:?}: its answer {:?} is not one of its choices",
                    p.id, p.answer
                ));
            }
            for c in &p.choices {
                if c.equals.is_none() && c.min.is_none() && c.max.is_none() {
                    problems.push(format!(
                        "prediction {:?}: choice {:?} has neither `equals` nor `min`/`max`",
                        p.id, c.label
                    ));
                }
            }
        }
        problems
    }
}

/// What a test run showed for one prediction.
#[derive(Debug, Clone, PartialEq)]
pub enum Observed {
    /// No recorded line for the scenario: its test did not get that far.
    Nothing,
    /// Every figure matches this choice.
    Choice(usize),
    /// The figures match no single choice.
    NoChoice,
}

impl Prediction {
    /// The package whose run gives the learner's figure, when not the exercise's.
    pub fn learner_source(&self) -> Option<&str> {
        match self.verify_observe {
            Some(_) => None,
            None => self.observed_by.as_deref(),
        }
    }

    /// The scenario `verify` checks the answer key against.
    pub fn verify_scenario(&self) -> &str {
        self.verify_observe.as_deref().unwrap_or(&self.observe)
    }

    pub fn choice_index(&self, label: &str) -> Option<usize> {
        self.choices.iter().position(|c| c.label == label)
    }

    /// A saved answer (a choice's identity) as the learner reads it.
    pub fn shown_answer<'a>(&'a self, label: &'a str) -> &'a str {
        self.choice_index(label)
            .map_or(label, |i| self.choices[i].shown.as_str())
    }

    /// The choice every figure matches.
    pub fn observed(&self, figures: &[Value]) -> Observed {
        if figures.is_empty() {
            return Observed::Nothing;
        }
        self.choices
            .iter()
            .position(|c| figures.iter().all(|f| c.matches(f)))
            .map_or(Observed::NoChoice, Observed::Choice)
    }
}

impl Choice {
    pub fn matches(&self, figure: &Value) -> bool {
        if let Some(expected) = &self.equals
            && !equals(expected, figure)
        {
            return false;
        }
        if self.min.is_none() && self.max.is_none() {
            return self.equals.is_some();
        }
        let Some(x) = number(figure) else {
            return false;
        };
        let above = self
            .min
            .as_ref()
            .and_then(toml_number)
            .is_none_or(|m| x >= m);
        let below = self
            .max
            .as_ref()
            .and_then(toml_number)
            .is_none_or(|m| x <= m);
        above && below
    }
}

/// Text with its lines joined, paragraphs (split by a blank line) kept.
fn paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn toml_number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        toml::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(_) | Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

fn equals(expected: &toml::Value, figure: &Value) -> bool {
    if let (Some(a), Some(b)) = (toml_number(expected), number(figure))
        && !matches!(expected, toml::Value::String(_))
    {
        return a == b;
    }
    let expected = match expected {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    figure_text(figure) == expected
}

/// A figure as the learner reads it.
pub fn figure_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) const ONE: &str = r#"
[[stage]]
number = 1
title = "T"
goal = "G"
exercise = "e"
solution = "s"
test = "t"
hints = ["h"]

[[stage.prediction]]
id = "p"
question = "Q?"
observe = "stage1.x"
metric = "payments"
answer = "one"
choices = [
    { label = "none", equals = 0 },
    { label = "one", equals = 1 },
    { label = "several", min = 2, max = 20 },
]

[[stage.known_wrong]]
package = "w"
catches = ["a", "b"]
"#;

    #[test]
    fn a_stage_parses_with_its_predictions_and_known_wrong_packages() {
        let stages = parse(ONE).expect("parses");
        assert_eq!(stages.len(), 1);
        let stage = &stages[0];
        assert_eq!(stage.predictions[0].choices.len(), 3);
        assert_eq!(stage.known_wrong[0].catches, ["a", "b"]);
        assert!(stage.problems().is_empty(), "{:?}", stage.problems());
    }

    #[test]
    fn figures_match_choices_by_value_or_range() {
        let stages = parse(ONE).expect("parses");
        let p = &stages[0].predictions[0];
        assert_eq!(p.observed(&[json!(1)]), Observed::Choice(1));
        assert_eq!(p.observed(&[json!(0)]), Observed::Choice(0));
        assert_eq!(p.observed(&[json!(7), json!(20)]), Observed::Choice(2));
        assert_eq!(p.observed(&[json!(1), json!(20)]), Observed::NoChoice);
        assert_eq!(p.observed(&[json!(21)]), Observed::NoChoice);
        assert_eq!(p.observed(&[]), Observed::Nothing);
    }

    #[test]
    fn string_figures_match_string_values() {
        let choice = Choice {
            label: "x".into(),
            shown: "x".into(),
            equals: Some(toml::Value::String("23505".into())),
            min: None,
            max: None,
        };
        assert!(choice.matches(&json!("23505")));
        assert!(!choice.matches(&json!("none")));
        let number = Choice {
            equals: Some(toml::Value::Integer(23505)),
            ..choice
        };
        assert!(number.matches(&json!(23505)));
        assert!(number.matches(&json!("23505")));
    }

    #[test]
    fn package_and_test_names_are_derived_from_number_and_slug_unless_given() {
        let text = ONE
            .replace("exercise = \"e\"\n", "slug = \"naive\"\n")
            .replace("test = \"t\"\n", "");
        let stage = &parse(&text).expect("parses")[0];
        assert_eq!(stage.exercise, "stage1-naive-exercise");
        assert_eq!(stage.solution, "s", "an explicit name wins");
        assert_eq!(stage.test, "stage1");
        let text = ONE.replace("exercise = \"e\"\n", "");
        let error = parse(&text).expect_err("no exercise and no slug");
        assert!(error.to_string().contains("`exercise`"), "{error}");
    }

    #[test]
    fn an_unknown_key_is_an_error_not_ignored() {
        let text = ONE.replace("goal = \"G\"", "goal = \"G\"\ngaol = \"typo\"");
        let error = parse(&text).expect_err("unknown key");
        assert!(error.to_string().contains("gaol"), "{error}");
        let text = ONE.replace("metric = \"payments\"", "metric = \"payments\"\nmetrc = 1");
        assert!(parse(&text).is_err(), "unknown key in a prediction");
    }

    #[test]
    fn the_outcome_is_read_and_kept_apart_from_the_goal() {
        let text = ONE.replace(
            "goal = \"G\"",
            "goal = \"G\"\noutcome = \"\"\"\nOne payment,\nand 20 201s.\n\nWhy.\"\"\"",
        );
        let stage = &parse(&text).expect("parses")[0];
        assert_eq!(stage.goal_text(), "G");
        assert_eq!(stage.outcome_text(), "One payment, and 20 201s.\nWhy.");
    }

    #[test]
    fn a_wrong_answer_key_is_a_problem() {
        let text = ONE.replace("answer = \"one\"", "answer = \"two\"");
        let stages = parse(&text).expect("parses");
        let problems = stages[0].problems();
        assert!(
            problems
                .iter()
                .any(|p| p.contains("not one of its choices")),
            "{problems:?}"
        );
    }
}
