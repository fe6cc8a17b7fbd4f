//! The stages' texts in another language: `stages.pt-BR.toml` beside
//! `stages.toml`, mirroring it by stage `number` and prediction `id`. A twin
//! holds only what the learner reads (title, goal, outcome, hints, questions,
//! choices' labels in the same order); everything the runner decides by (the
//! packages, the scenarios, the answer key) is written once, in stages.toml.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;
use crate::stages::Stage;
use l10n::Lang;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwinFile {
    #[serde(rename = "stage", default)]
    pub stages: Vec<StageTwin>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageTwin {
    pub number: u32,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub goal: String,
    #[serde(default)]
    pub outcome: String,
    #[serde(default)]
    pub hints: Vec<String>,
    #[serde(rename = "prediction", default)]
    pub predictions: Vec<PredictionTwin>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictionTwin {
    pub id: String,
    #[serde(default)]
    pub question: String,
    /// The choices' labels, in stages.toml's order.
    #[serde(default)]
    pub choices: Vec<String>,
}

/// `stages.toml` → `stages.pt-BR.toml`, beside it.
pub fn path(stages_file: &Path, lang: Lang) -> PathBuf {
    let stem = stages_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "stages".to_owned());
    stages_file.with_file_name(format!("{stem}.{}.toml", lang.tag()))
}

pub fn parse(text: &str) -> Result<TwinFile, toml::de::Error> {
    toml::from_str(text)
}

/// The twin of `stages_file` in `lang`; `None` when there is no such file.
pub fn load(stages_file: &Path, lang: Lang) -> Result<Option<TwinFile>, Error> {
    let path = path(stages_file, lang);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::Read { path, source }),
    };
    parse(&text)
        .map(Some)
        .map_err(|source| Error::TwinToml { path, source })
}

/// Puts the twin's texts in place of the English ones. What the twin lacks
/// stays English (`verify` names it): a learner is never stopped by a gap.
pub fn apply(stages: &mut [Stage], twin: &TwinFile) {
    for stage in stages {
        let Some(t) = twin.stages.iter().find(|t| t.number == stage.number) else {
            continue;
        };
        let given = |text: &str| (!text.trim().is_empty()).then(|| text.to_owned());
        if let Some(title) = given(&t.title) {
            stage.title = title;
        }
        if let Some(goal) = given(&t.goal) {
            stage.goal = goal;
        }
        if let Some(outcome) = given(&t.outcome) {
            stage.outcome = outcome;
        }
        if t.hints.len() == stage.hints.len() {
            stage.hints.clone_from(&t.hints);
        }
        for p in &mut stage.predictions {
            let Some(tp) = t.predictions.iter().find(|tp| tp.id == p.id) else {
                continue;
            };
            if let Some(question) = given(&tp.question) {
                p.question = question;
            }
            if tp.choices.len() == p.choices.len() {
                for (choice, label) in p.choices.iter_mut().zip(&tp.choices) {
                    choice.shown.clone_from(label);
                }
            }
        }
    }
}

/// The stages' texts as the pseudo-locale says them (`WORKBOOK_LANG=en-XA`):
/// the English, accented and marked, like the catalogues' (l10n's `pseudo`).
pub fn pseudo(stages: &mut [Stage]) {
    let say = |text: &mut String| *text = l10n::pseudo::say(text);
    for stage in stages {
        say(&mut stage.title);
        say(&mut stage.goal);
        say(&mut stage.outcome);
        stage.hints.iter_mut().for_each(say);
        for p in &mut stage.predictions {
            say(&mut p.question);
            for choice in &mut p.choices {
                say(&mut choice.shown);
            }
        }
    }
}

/// Where the twin (`file`, as shown) does not mirror `stages`: one line each,
/// naming the file, the stage and the field.
pub fn problems(stages: &[Stage], twin: &TwinFile, file: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in &twin.stages {
        if !stages.iter().any(|s| s.number == t.number) {
            out.push(format!(
                "{file}: stage {} is not in stages.toml (a twin mirrors an English stage by its \
                 number)",
                t.number
            ));
        }
    }
    for stage in stages {
        let n = stage.number;
        let Some(t) = twin.stages.iter().find(|t| t.number == n) else {
            out.push(format!(
                "{file}: stage {n} has no twin (add a [[stage]] with number = {n})"
            ));
            continue;
        };
        let lacks =
            |english: &str, twin: &str| !english.trim().is_empty() && twin.trim().is_empty();
        for (field, english, text) in [
            ("title", stage.title.as_str(), t.title.as_str()),
            ("goal", stage.goal.as_str(), t.goal.as_str()),
            ("outcome", stage.outcome.as_str(), t.outcome.as_str()),
        ] {
            if lacks(english, text) {
                out.push(format!("{file}: stage {n}: `{field}` is missing"));
            }
        }
        if t.hints.len() != stage.hints.len() {
            out.push(format!(
                "{file}: stage {n}: `hints` has {} hints, stages.toml has {}",
                t.hints.len(),
                stage.hints.len()
            ));
        }
        for (i, hint) in t.hints.iter().enumerate() {
            if hint.trim().is_empty() {
                out.push(format!("{file}: stage {n}: hint {} is empty", i + 1));
            }
        }
        for tp in &t.predictions {
            if !stage.predictions.iter().any(|p| p.id == tp.id) {
                out.push(format!(
                    "{file}: stage {n}: prediction {:?} is not in stages.toml",
                    tp.id
                ));
            }
        }
        for p in &stage.predictions {
            let Some(tp) = t.predictions.iter().find(|tp| tp.id == p.id) else {
                out.push(format!(
                    "{file}: stage {n}: prediction {:?} has no twin",
                    p.id
                ));
                continue;
            };
            if tp.question.trim().is_empty() {
                out.push(format!(
                    "{file}: stage {n}: prediction {:?}: `question` is missing",
                    p.id
                ));
            }
            if tp.choices.len() != p.choices.len() {
                out.push(format!(
                    "{file}: stage {n}: prediction {:?}: `choices` has {} labels, stages.toml \
                     has {} choices",
                    p.id,
                    tp.choices.len(),
                    p.choices.len()
                ));
            }
            if let Some(i) = tp.choices.iter().position(|c| c.trim().is_empty()) {
                out.push(format!(
                    "{file}: stage {n}: prediction {:?}: choice {} is empty",
                    p.id,
                    i + 1
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::tests::ONE;

    const TWIN: &str = r#"
[[stage]]
number = 1
title = "T em português"
goal = "G em português"
hints = ["dica"]

[[stage.prediction]]
id = "p"
question = "P?"
choices = ["nenhum", "um", "vários"]
"#;

    fn problems_of(twin: &str) -> Vec<String> {
        let stages = crate::stages::parse(ONE).expect("parses");
        let twin = parse(twin).expect("the twin parses");
        problems(&stages, &twin, "stages.pt-BR.toml")
    }

    #[test]
    fn a_complete_twin_has_no_problems_and_its_texts_are_shown() {
        assert_eq!(problems_of(TWIN), Vec::<String>::new());
        let mut stages = crate::stages::parse(ONE).expect("parses");
        apply(&mut stages, &parse(TWIN).expect("parses"));
        let stage = &stages[0];
        assert_eq!(stage.title, "T em português");
        assert_eq!(stage.hints, ["dica"]);
        let p = &stage.predictions[0];
        assert_eq!(p.question, "P?");
        assert_eq!(p.choices[1].shown, "um");
        assert_eq!(p.choices[1].label, "one", "the identity stays as written");
        assert_eq!(p.shown_answer(&p.answer), "um");
    }

    #[test]
    fn a_missing_twin_fails_naming_the_file_the_stage_and_the_field() {
        let cases = [
            (
                TWIN.replace("goal = \"G em português\"\n", ""),
                "stage 1: `goal` is missing",
            ),
            (
                TWIN.replace("hints = [\"dica\"]", "hints = [\"dica\", \"outra\"]"),
                "stage 1: `hints` has 2 hints, stages.toml has 1",
            ),
            (
                TWIN.replace(", \"vários\"]", "]"),
                "stage 1: prediction \"p\": `choices` has 2 labels, stages.toml has 3 choices",
            ),
            (
                TWIN.replace("id = \"p\"", "id = \"q\""),
                "stage 1: prediction \"p\" has no twin",
            ),
            (
                TWIN.replace("number = 1", "number = 2"),
                "stage 1 has no twin (add a [[stage]] with number = 1)",
            ),
        ];
        for (twin, expected) in cases {
            let problems = problems_of(&twin);
            assert!(
                problems
                    .iter()
                    .any(|p| p == &format!("stages.pt-BR.toml: {expected}")),
                "expected {expected:?} among {problems:?}"
            );
        }
    }

    #[test]
    fn a_twin_with_an_unknown_field_is_an_error_not_ignored() {
        let error = parse(&TWIN.replace("goal =", "gaol =")).expect_err("unknown field");
        assert!(error.to_string().contains("gaol"), "{error}");
    }

    #[test]
    fn the_twin_sits_beside_the_stages_file() {
        assert_eq!(
            path(Path::new("/w/stages.toml"), Lang::BrazilianPortuguese),
            Path::new("/w/stages.pt-BR.toml")
        );
    }

    #[test]
    fn the_workbooks_own_stages_have_complete_pt_br_twins() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let stages = crate::stages::load(&root.join("stages.toml")).expect("stages.toml loads");
        let twin = load(&root.join("stages.toml"), Lang::BrazilianPortuguese)
            .expect("stages.pt-BR.toml parses")
            .expect("stages.pt-BR.toml exists");
        assert_eq!(
            problems(&stages, &twin, "stages.pt-BR.toml"),
            Vec::<String>::new()
        );
    }
}
