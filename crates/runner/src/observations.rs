//! What the tests recorded: JSON lines `{"scenario": ..., <fields>}` written by
//! `harness::observe` to the file named by `WORKBOOK_OBSERVATIONS`, and the
//! conditions the harness met, `{"condition": KIND, ...}` (`harness::report`):
//! the runner reacts to a condition's kind, never to a message's wording; and
//! the trace of each burst (`{"trace": {...}}`, the format is `timeline::trace`'s).

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use l10n::Localiser;

#[derive(Debug, Clone, Default)]
pub struct Observations {
    pub lines: Vec<Map<String, Value>>,
    /// What the harness reported, in the order it did.
    pub conditions: Vec<Condition>,
    /// The bursts' traces, in the order they ended.
    pub traces: Vec<Trace>,
    /// Lines that were neither a scenario nor a condition.
    pub unreadable: usize,
}

/// A condition the harness met: the harness's own type, read back.
pub use harness::Condition;
use timeline::Trace;

impl Observations {
    pub fn read(path: &Path) -> Self {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Self {
        let mut observations = Self::default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(map)) if map.get("scenario").is_some_and(Value::is_string) => {
                    observations.lines.push(map);
                }
                Ok(Value::Object(map))
                    if map
                        .get(timeline::trace::LINE_KEY)
                        .is_some_and(Value::is_object) =>
                {
                    match map.get(timeline::trace::LINE_KEY).map(Trace::deserialize) {
                        Some(Ok(trace)) => observations.traces.push(trace),
                        // A trace of another format's version: nothing to draw.
                        _ => observations.unreadable += 1,
                    }
                }
                Ok(value @ Value::Object(_)) if value.get("condition").is_some() => {
                    match Condition::deserialize(value) {
                        Ok(condition) => observations.conditions.push(condition),
                        // A kind this runner does not know: nothing to react to.
                        Err(_) => observations.unreadable += 1,
                    }
                }
                _ => observations.unreadable += 1,
            }
        }
        observations
    }

    /// Every figure recorded for `scenario` at `metric`. A count missing from a
    /// recorded object (`replies` without `"201"`: no call ended that way) is 0.
    /// A scenario may be recorded by several lines of different shapes (an
    /// `Outcome` and an `observe` of other fields): lines without the metric's
    /// first field are not about it, unless no line has it (then each is 0).
    pub fn figures(&self, scenario: &str, metric: &str) -> Vec<Value> {
        let lines: Vec<&Map<String, Value>> = self
            .lines
            .iter()
            .filter(|line| line.get("scenario").and_then(Value::as_str) == Some(scenario))
            .collect();
        let found: Vec<Value> = lines
            .iter()
            .filter_map(|line| match lookup(line, metric) {
                Some(v) => Some(v.clone()),
                None if has_parent(line, metric) => Some(Value::from(0)),
                None => None,
            })
            .collect();
        if found.is_empty() {
            lines.iter().map(|_| Value::from(0)).collect()
        } else {
            found
        }
    }

    /// The scenarios in the order they were first recorded, each with its lines.
    pub fn scenarios(&self) -> Vec<(&str, Vec<&Map<String, Value>>)> {
        let mut out: Vec<(&str, Vec<&Map<String, Value>>)> = Vec::new();
        for line in &self.lines {
            let Some(name) = line.get("scenario").and_then(Value::as_str) else {
                continue;
            };
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, lines)) => lines.push(line),
                None => out.push((name, vec![line])),
            }
        }
        out
    }
}

impl Observations {
    /// The trace an observation of `scenario` names (its test's burst).
    pub fn trace_of(&self, scenario: &str) -> Option<&Trace> {
        let id = self
            .lines
            .iter()
            .filter(|line| line.get("scenario").and_then(Value::as_str) == Some(scenario))
            .find_map(|line| line.get(timeline::trace::LINE_KEY)?.as_str())?;
        self.traces.iter().find(|t| t.id == id)
    }

    /// The last trace of the test named `test` (libtest's name, or its end).
    pub fn last_trace_of(&self, test: &str) -> Option<&Trace> {
        self.traces.iter().rev().find(|t| {
            t.test.as_deref().is_some_and(|name| {
                name == test
                    || test.ends_with(&format!("::{name}"))
                    || name.ends_with(&format!("::{test}"))
            })
        })
    }

    /// Whether the harness reported a condition of this kind.
    pub fn met(&self, kind: impl Fn(&Condition) -> bool) -> bool {
        self.conditions.iter().any(kind)
    }

    /// What the harness said about its server, each line once.
    pub fn notes(&self) -> Vec<&str> {
        let mut notes: Vec<&str> = Vec::new();
        for c in &self.conditions {
            if let Condition::Note { text } = c
                && !notes.contains(&text.as_str())
            {
                notes.push(text);
            }
        }
        notes
    }

    /// Whether any line of `scenario` holds `metric` (or its parent object).
    pub fn has_metric(&self, scenario: &str, metric: &str) -> bool {
        self.lines
            .iter()
            .filter(|line| line.get("scenario").and_then(Value::as_str) == Some(scenario))
            .any(|line| lookup(line, metric).is_some() || has_parent(line, metric))
    }
}

/// `replies.201` is `obj["replies"]["201"]`; a key that itself holds a dot is
/// found too (the longest key that matches wins).
pub fn lookup<'a>(obj: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    if let Some(v) = obj.get(path) {
        return Some(v);
    }
    let dots: Vec<usize> = path.match_indices('.').map(|(i, _)| i).collect();
    for &i in dots.iter().rev() {
        let (head, rest) = (&path[..i], &path[i + 1..]);
        if let Some(Value::Object(inner)) = obj.get(head)
            && let Some(v) = lookup(inner, rest)
        {
            return Some(v);
        }
    }
    None
}

/// Whether some prefix of `path` names an object in `obj` (`replies` for
/// `replies.201`): then a missing rest is a count of 0.
fn has_parent(obj: &Map<String, Value>, path: &str) -> bool {
    path.match_indices('.')
        .any(|(i, _)| matches!(obj.get(&path[..i]), Some(Value::Object(_))))
}

/// One recorded line as the learner reads it: "payments created: 1 · replies: 20 × 201".
pub fn describe(l: &Localiser, line: &Map<String, Value>) -> String {
    // An `Outcome`'s fields in the order of the harness's results table, then the rest.
    const FIRST: [&str; 4] = ["requests", "payments", "replies", "distinct_bodies"];
    let rank = |k: &str| FIRST.iter().position(|f| *f == k).unwrap_or(FIRST.len());
    let mut fields: Vec<(&String, &Value)> = line
        .iter()
        // The scenario is the line's name; its trace is drawn, not listed.
        .filter(|(k, _)| k.as_str() != "scenario" && k.as_str() != timeline::trace::LINE_KEY)
        .collect();
    fields.sort_by(|a, b| rank(a.0).cmp(&rank(b.0)).then(a.0.cmp(b.0)));
    fields
        .into_iter()
        .map(|(k, v)| format!("{}: {}", field_name(l, k), field_value(v)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A recorded field as the learner reads it: the catalogue's `field-KEY`, or
/// the key itself, its underscores as spaces.
fn field_name(l: &Localiser, key: &str) -> String {
    l.try_say(&format!("field-{key}"))
        .unwrap_or_else(|| key.replace('_', " "))
}

fn field_value(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut parts: Vec<(i64, &String, String)> = map
                .iter()
                .map(|(k, v)| (v.as_i64().unwrap_or(0), k, value_said(v)))
                .collect();
            // Biggest counts first, as the harness prints them.
            parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            parts
                .into_iter()
                .map(|(_, k, v)| format!("{v} × {}", words(k)))
                .collect::<Vec<_>>()
                .join(", ")
        }
        other => value_said(other),
    }
}

/// A recorded value in the learner's words: the harness's for the values the
/// tests record ("paid again", a reply's kind), the value itself otherwise.
pub fn value_said(v: &Value) -> String {
    match v {
        Value::String(text) => words(text),
        other => crate::stages::figure_text(other),
    }
}

fn words(recorded: &str) -> String {
    harness::observed_in_words(recorded).unwrap_or_else(|| recorded.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LINES: &str = r#"{"scenario":"stage2.race","requests":20,"payments":20,"replies":{"201":20},"distinct_bodies":20}
not json
{"scenario":"stage2.race","requests":20,"payments":3,"replies":{"201":3,"error: unique violation (23505)":17},"distinct_bodies":3}
{"scenario":"stage1.same_key_twice","sqlstate":"23505"}
"#;

    #[test]
    fn figures_follow_the_metric_path_and_missing_counts_are_zero() {
        let o = Observations::parse(LINES);
        assert_eq!(o.unreadable, 1);
        assert_eq!(o.figures("stage2.race", "payments"), [json!(20), json!(3)]);
        assert_eq!(
            o.figures("stage2.race", "replies.201"),
            [json!(20), json!(3)]
        );
        assert_eq!(
            o.figures("stage2.race", "replies.error: unique violation (23505)"),
            [json!(0), json!(17)]
        );
        assert_eq!(
            o.figures("stage1.same_key_twice", "sqlstate"),
            [json!("23505")]
        );
        assert!(o.figures("stage9.none", "payments").is_empty());
        assert_eq!(
            o.figures("stage1.same_key_twice", "payments"),
            [json!(0)],
            "a metric no line has is a count of 0"
        );
    }

    #[test]
    fn lines_of_another_shape_do_not_count() {
        let o = Observations::parse(
            r#"{"scenario":"s","requests":2,"payments":1,"replies":{"201":2}}
{"scenario":"s","first":201,"second":"replayed"}
"#,
        );
        assert_eq!(o.figures("s", "second"), [json!("replayed")]);
        assert_eq!(o.figures("s", "payments"), [json!(1)]);
        assert_eq!(o.figures("s", "replies.422"), [json!(0)]);
    }

    #[test]
    fn a_key_with_a_dot_is_found() {
        let line = json!({"scenario": "s", "replies": {"error: x.y": 2}});
        let Value::Object(map) = line else {
            panic!("an object")
        };
        assert_eq!(lookup(&map, "replies.error: x.y"), Some(&json!(2)));
    }

    #[test]
    fn conditions_are_read_by_kind_apart_from_the_scenarios() {
        let o = Observations::parse(
            r#"{"condition":"pool-timed-out","calls":15}
{"condition":"note","text":"harness: a local cluster"}
{"condition":"no-server"}
{"condition":"from-a-newer-harness","x":1}
{"scenario":"s","payments":1}
"#,
        );
        assert_eq!(o.lines.len(), 1);
        assert_eq!(o.unreadable, 1, "an unknown kind is skipped");
        assert_eq!(
            o.conditions,
            [
                Condition::PoolTimedOut { calls: 15 },
                Condition::Note {
                    text: "harness: a local cluster".into()
                },
                Condition::NoServer,
            ]
        );
        assert!(o.met(|c| matches!(c, Condition::NoServer)));
        assert_eq!(o.notes(), ["harness: a local cluster"]);
    }

    #[test]
    fn traces_are_read_apart_and_an_observation_names_its_own() {
        let o = Observations::parse(concat!(
            r#"{"trace":{"format":1,"id":"7.1","test":"burst","seen":{"statements":true},"end_us":5,"requests":[]}}"#,
            "\n",
            r#"{"scenario":"s","payments":1,"trace":"7.1"}"#,
            "\n",
        ));
        assert_eq!(o.traces.len(), 1);
        assert_eq!(o.lines.len(), 1);
        assert_eq!(o.unreadable, 0);
        assert_eq!(o.trace_of("s").map(|t| t.id.as_str()), Some("7.1"));
        assert_eq!(o.last_trace_of("burst").map(|t| t.id.as_str()), Some("7.1"));
        assert_eq!(
            o.last_trace_of("stage3::burst").map(|t| t.id.as_str()),
            Some("7.1")
        );
        assert_eq!(
            describe(&crate::messages::english(), &o.lines[0]),
            "payments created: 1",
            "the trace is drawn, not listed among the figures"
        );
    }

    #[test]
    fn lines_read_like_the_results_table() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let o = Observations::parse(LINES);
        let scenarios = o.scenarios();
        assert_eq!(scenarios.len(), 2);
        assert_eq!(
            describe(&crate::messages::english(), scenarios[0].1[1]),
            "requests: 20 · payments created: 3 · replies: 17 × error: unique violation (23505), 3 × 201 · distinct bodies: 3"
        );
    }
}
