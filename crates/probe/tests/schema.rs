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
    let burst = CheckResult {
        id: CheckId::Burst,
        verdict: Verdict::Fail,
        why: vec![Said::NoFinalAnswer],
        evidence: vec![],
        answers: vec![],
        effects: None,
        timeline: Some(a_client_side_timeline()),
        elapsed: Duration::from_millis(30),
    };
    let checks = [checks, vec![burst]].concat();
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

/// Two requests seen from the client: one answered 201 and marked as a
/// replay, one given up at the bound.
fn a_client_side_timeline() -> timeline::Trace {
    use timeline::trace::{End, FORMAT, Request, Seen, Trace, UNANSWERED};
    let request = |n: usize, end_us: u64, answer: &str, replayed: Option<bool>| Request {
        n,
        start_us: 0,
        end_us: Some(end_us),
        end: End::Answered {
            answer: answer.to_owned(),
        },
        events: vec![],
        replayed,
    };
    Trace {
        format: FORMAT,
        id: "1.burst".to_owned(),
        test: None,
        seen: Seen::client_side(),
        end_us: 3_000_000,
        requests: vec![
            request(1, 12_000, "201", Some(true)),
            request(2, 3_000_000, UNANSWERED, None),
        ],
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
    let mutations: [Mutation; 6] = [
        ("a lock wait in the client's timeline", |r| {
            r["checks"][1]["timeline"]["requests"][0]["events"] = serde_json::json!([{"kind": "lock-wait", "at_us": 1, "connection": 1, "lock": "ShareLock"}])
        }),
        (
            "a timeline that does not say it is the client's side",
            |r| r["checks"][1]["timeline"]["seen"]["missing"] = serde_json::json!([]),
        ),
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
