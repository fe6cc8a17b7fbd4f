//! `report.schema.json` documents the JSON report: it names every check the probe
//! has, and it refuses what the probe never writes (a report that follows it is
//! not so by accident).

#[allow(dead_code)]
mod reports;

use std::time::Duration;

use probe::{CHECKS, CheckId, CheckResult, Profile, Report, Said, Verdict};
use serde_json::Value;

fn schema() -> Value {
    serde_json::from_str(probe::json::SCHEMA).expect("report.schema.json is JSON")
}

/// A report of one passed check, made by hand.
fn a_report() -> Report {
    let checks = vec![CheckResult {
        id: CheckId::DistinctKeys,
        verdict: Verdict::Pass,
        why: vec![Said::TwoKeysTwoIds],
        evidence: vec![],
        answers: vec![],
        effects: None,
        timeline: None,
        elapsed: Duration::from_millis(12),
    }];
    Report {
        method: "POST".to_owned(),
        urls: vec!["http://127.0.0.1:8080".to_owned()],
        path: "/payments".to_owned(),
        counted_effects: false,
        profile: Profile::of(&checks),
        checks,
        elapsed: Duration::from_millis(40),
    }
}

#[test]
fn the_schema_names_every_check_the_probe_has() {
    let named: Vec<String> = schema()["$defs"]["checkId"]["enum"]
        .as_array()
        .expect("checkId is an enum")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let checks: Vec<String> = CHECKS.iter().map(|c| c.name.to_owned()).collect();
    assert_eq!(
        named, checks,
        "report.schema.json's checkId, in the probe's order"
    );
}

#[test]
fn a_report_made_by_hand_follows_the_schema() {
    reports::assert_valid_json(&probe::json::report(&a_report()));
}

/// What is changed in a valid report, and how.
type Mutation = (&'static str, fn(&mut Value));

#[test]
fn the_schema_refuses_what_the_probe_never_writes() {
    let valid = probe::json::report(&a_report());
    let mutations: [Mutation; 4] = [
        ("an unknown verdict", |r| {
            r["checks"][0]["verdict"] = "ok".into()
        }),
        ("an unknown check", |r| r["checks"][0]["id"] = "fuzz".into()),
        ("another version", |r| r["version"] = 2.into()),
        ("a profile answer it has no word for", |r| {
            r["profile"]["in_flight"]["answer"] = "maybe".into()
        }),
    ];
    for (what, mutate) in mutations {
        let mut report = valid.clone();
        mutate(&mut report);
        assert!(
            reports::validate_json(&report).is_err(),
            "the schema accepted {what}"
        );
    }
}
