//! Another body with the same key while the first request is in flight: what the
//! API answers is a fact of its profile (422 or 409, both in the draft), and a
//! second payment, or the refused body paid when retried, is a failure.
//!
//! The server here keeps its keys in memory (no database: only its answers are
//! judged), in one of three ways. Its first request with a key is held until a
//! second with that key has arrived (bounded), so the second always finds the
//! first in flight, every run. The profile's other facts (a replay marked, a key's
//! lifetime in a header) are read off the same server, not held.

#[allow(dead_code)]
mod reports;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use probe::profile::{ConcurrentOtherBody, KeyLifetime, ReplayMarker};
use probe::{CheckId, Options, Report, Said, Verdict};
use tokio::sync::{Mutex, Notify};

/// What the server answers a request whose key is taken.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// In flight: 409 whatever the body; finished: 422 for another body.
    ConflictFirst,
    /// In flight: 422 for another body (409 for the same); finished: 422.
    PayloadFirst,
    /// In flight: 409; finished: the stored answer, whatever the body (the
    /// body's hash stored and never compared).
    BodyIgnored,
}

enum Entry {
    InFlight { body: Bytes, duplicate: Arc<Notify> },
    Done { body: Bytes, id: u64 },
}

struct Keys {
    entries: Mutex<HashMap<String, Entry>>,
    policy: Policy,
    /// Hold each key's first request until a second with that key arrives.
    hold_first: bool,
    next_id: AtomicU64,
}

/// The header a created answer says its key's lifetime in.
const LIFETIME: (&str, &str) = ("Idempotency-Key-TTL", "86400");

async fn pay(State(keys): State<Arc<Keys>>, headers: HeaderMap, body: Bytes) -> Response {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let duplicate = {
        let mut entries = keys.entries.lock().await;
        match entries.get(&key) {
            Some(Entry::Done { body: stored, id }) => {
                return if *stored == body || keys.policy == Policy::BodyIgnored {
                    created(*id, true)
                } else {
                    refused(StatusCode::UNPROCESSABLE_ENTITY)
                };
            }
            Some(Entry::InFlight {
                body: first,
                duplicate,
            }) => {
                duplicate.notify_one();
                return if keys.policy == Policy::PayloadFirst && *first != body {
                    refused(StatusCode::UNPROCESSABLE_ENTITY)
                } else {
                    refused(StatusCode::CONFLICT)
                };
            }
            None => {
                let duplicate = Arc::new(Notify::new());
                entries.insert(
                    key.clone(),
                    Entry::InFlight {
                        body: body.clone(),
                        duplicate: duplicate.clone(),
                    },
                );
                duplicate
            }
        }
    };
    if keys.hold_first {
        // A bound, not a pause: a key that gets no duplicate goes on after it.
        let _ = tokio::time::timeout(Duration::from_secs(5), duplicate.notified()).await;
    }
    let id = keys.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    keys.entries
        .lock()
        .await
        .insert(key, Entry::Done { body, id });
    created(id, false)
}

fn created(id: u64, replayed: bool) -> Response {
    let mut response = (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        format!(r#"{{"id": {id}}}"#),
    )
        .into_response();
    response
        .headers_mut()
        .insert(LIFETIME.0, header::HeaderValue::from_static(LIFETIME.1));
    if replayed {
        response.headers_mut().insert(
            "idempotent-replayed",
            header::HeaderValue::from_static("true"),
        );
    }
    response
}

fn refused(status: StatusCode) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/problem+json")],
        format!(r#"{{"status": {}}}"#, status.as_u16()),
    )
        .into_response();
    if status == StatusCode::CONFLICT {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

/// Runs only `checks` against a server of `policy`.
async fn probe_only(policy: Policy, hold_first: bool, checks: &[CheckId]) -> Report {
    let keys = Arc::new(Keys {
        entries: Mutex::default(),
        policy,
        hold_first,
        next_id: AtomicU64::new(0),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let router = axum::Router::new()
        .route("/payments", post(pay))
        .with_state(keys);
    tokio::spawn(async move { axum::serve(listener, router).await });
    let mut options = Options::new(format!("http://{addr}"));
    options.skip = CheckId::ALL
        .iter()
        .copied()
        .filter(|id| !checks.contains(id))
        .collect();
    let report = match tokio::time::timeout(Duration::from_secs(30), probe::run(&options)).await {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => panic!("the probe stopped: {e}"),
        Err(_) => panic!("the probe did not finish within 30 s"),
    };
    // Every report, whatever it found, follows the schema.
    reports::assert_valid_json(&probe::json::report(&report));
    report
}

fn the_pair(report: &Report) -> &probe::CheckResult {
    report
        .check(CheckId::ConcurrentBody)
        .expect("concurrent-body ran")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_409_in_flight_then_a_422_passes_and_is_the_profiles_conflict() {
    let report = probe_only(Policy::ConflictFirst, true, &[CheckId::ConcurrentBody]).await;
    let table = probe::table(&report, 100, true);
    let pair = the_pair(&report);
    assert_eq!(pair.verdict, Verdict::Pass, "{table}");
    assert_eq!(pair.why, [Said::PairConflictThen { then: 422 }], "{table}");
    assert_eq!(
        report.profile.concurrent_other_body,
        ConcurrentOtherBody::Conflict { then: 422 },
        "{table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_422_in_flight_passes_and_is_the_profiles_unprocessable() {
    let report = probe_only(Policy::PayloadFirst, true, &[CheckId::ConcurrentBody]).await;
    let table = probe::table(&report, 100, true);
    let pair = the_pair(&report);
    assert_eq!(pair.verdict, Verdict::Pass, "{table}");
    assert_eq!(pair.why, [Said::PairRefused { status: 422 }], "{table}");
    assert_eq!(
        report.profile.concurrent_other_body,
        ConcurrentOtherBody::Unprocessable,
        "{table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_body_accepted_when_retried_after_its_409_fails() {
    let report = probe_only(Policy::BodyIgnored, true, &[CheckId::ConcurrentBody]).await;
    let table = probe::table(&report, 100, true);
    let pair = the_pair(&report);
    assert_eq!(pair.verdict, Verdict::Fail, "{table}");
    assert_eq!(
        pair.why,
        [Said::PairAcceptedAfterConflict { status: 201 }],
        "{table}"
    );
    assert_eq!(
        report.profile.concurrent_other_body,
        ConcurrentOtherBody::NotObserved,
        "a failed check shows a bug, not a choice: {table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replay_marker_and_a_lifetime_header_are_read_into_the_profile() {
    let report = probe_only(Policy::ConflictFirst, false, &[CheckId::Replay]).await;
    let table = probe::table(&report, 100, true);
    assert_eq!(
        report.profile.replay_marker,
        ReplayMarker::Marked {
            header: "idempotent-replayed".to_owned(),
            value: "true".to_owned()
        },
        "{table}"
    );
    assert_eq!(
        report.profile.key_lifetime,
        KeyLifetime::Advertised {
            header: "idempotency-key-ttl".to_owned(),
            value: "86400".to_owned()
        },
        "{table}"
    );
    assert!(
        table.contains("idempotent-replayed: true"),
        "the table shows the profile: {table}"
    );
}
