//! The JSON report, as `crates/probe/report.schema.json` documents it (version
//! [`VERSION`]): machine fields (ids, verdict codes, statuses, counts, timings in
//! milliseconds, the profile's answers, each message's key and arguments) beside
//! the words a person reads (`title`, `why`, `evidence`, each fact's `text`).

use serde_json::{Value, json};

use crate::error::ProbeError;
use crate::results::{CheckResult, Report, Seen};
use crate::words::{self, Said};

/// The schema's version: raised when a field is removed or changes meaning or type;
/// a field added leaves it as it is.
pub const VERSION: u64 = 1;

/// The JSON Schema of the report, shipped with the crate.
pub const SCHEMA: &str = include_str!("../report.schema.json");

/// The report of a run.
pub fn report(report: &Report) -> Value {
    let [pass, warn, fail, skipped] = report.counts();
    let profile = &report.profile;
    let fact = |value: Value, text: String| {
        let mut value = value;
        if let Some(object) = value.as_object_mut() {
            object.insert("text".to_owned(), Value::String(text));
        }
        value
    };
    json!({
        "version": VERSION,
        "tool": tool(),
        "outcome": report.outcome(),
        "target": report.target(),
        "method": report.method,
        "urls": report.urls,
        "path": report.path,
        "counted_effects": report.counted_effects,
        "summary": { "pass": pass, "warn": warn, "fail": fail, "skipped": skipped },
        "elapsed": millis(report.elapsed),
        "profile": {
            "in_flight": fact(to_value(&profile.in_flight), words::profile::in_flight(&profile.in_flight)),
            "replay_marker": fact(to_value(&profile.replay_marker), words::profile::replay_marker(&profile.replay_marker)),
            "concurrent_other_body": fact(
                to_value(&profile.concurrent_other_body),
                words::profile::concurrent_other_body(&profile.concurrent_other_body),
            ),
            "key_lifetime": fact(to_value(&profile.key_lifetime), words::profile::key_lifetime(&profile.key_lifetime)),
        },
        "checks": report.checks.iter().map(check).collect::<Vec<_>>(),
    })
}

/// The report of a run that could not run: why, by kind and in words.
pub fn error(error: &ProbeError) -> Value {
    json!({
        "version": VERSION,
        "tool": tool(),
        "outcome": "error",
        "error": { "kind": error.kind(), "message": error.to_string() },
    })
}

fn tool() -> Value {
    json!({ "name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION") })
}

fn check(check: &CheckResult) -> Value {
    let texts = |said: &[Said]| said.iter().map(Said::said).collect::<Vec<_>>();
    json!({
        "id": check.id,
        "title": check.title(),
        "verdict": check.verdict,
        "why": check.why_text(),
        "evidence": texts(&check.evidence),
        "messages": { "why": check.why, "evidence": check.evidence },
        "effects": check.effects,
        "answers": check.answers.iter().map(answer).collect::<Vec<_>>(),
        "elapsed": millis(check.elapsed),
        "timeline": check.timeline,
    })
}

fn answer(seen: &Seen) -> Value {
    match &seen.answer {
        Ok(a) => json!({
            "role": seen.role,
            "status": a.status,
            "media_type": a.media_type,
            "body": a.body,
            "headers": a
                .headers
                .iter()
                .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                .collect::<serde_json::Map<_, _>>(),
            "elapsed": millis(a.elapsed),
        }),
        Err(why) => json!({
            "role": seen.role,
            "status": null,
            "no_answer": why,
        }),
    }
}

fn to_value(value: &impl serde::Serialize) -> Value {
    // Plain data: it always serialises.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
