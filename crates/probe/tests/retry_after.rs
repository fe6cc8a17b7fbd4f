//! A 409 "in flight" should say when to come back: the probe warns when it does
//! not carry `Retry-After`, and passes the same server when it does.
//!
//! The server here keeps its keys in memory (no database: only its answers are
//! judged). The first request with a key is held until a second one with that key
//! has arrived and been told 409, so every burst sees a 409, every run.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use probe::profile::InFlight;
use probe::{CheckId, Options, Report, Said, Verdict};
use tokio::sync::{Mutex, Notify};

/// A key's stored id (once its first request has finished), and what wakes its
/// first request when a duplicate has been told 409.
type Entry = (Option<u64>, Arc<Notify>);

#[derive(Default)]
struct Keys {
    answers: Mutex<HashMap<String, Entry>>,
    with_retry_after: bool,
}

async fn pay(State(keys): State<Arc<Keys>>, headers: HeaderMap) -> Response {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let (first, duplicate_seen) = {
        let mut answers = keys.answers.lock().await;
        match answers.get(&key) {
            Some((Some(id), _)) => return created(*id),
            Some((None, seen)) => (false, seen.clone()),
            None => {
                let seen = Arc::new(Notify::new());
                answers.insert(key.clone(), (None, seen.clone()));
                (true, seen)
            }
        }
    };
    if !first {
        duplicate_seen.notify_one();
        let mut response = (StatusCode::CONFLICT, "in flight").into_response();
        if keys.with_retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        return response;
    }
    // Held until a duplicate was refused: a bound, not a pause, for a key that
    // gets none.
    let _ = tokio::time::timeout(Duration::from_secs(5), duplicate_seen.notified()).await;
    let id = key.len() as u64 + 1;
    keys.answers
        .lock()
        .await
        .insert(key, (Some(id), duplicate_seen));
    created(id)
}

fn created(id: u64) -> Response {
    (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        format!(r#"{{"id": {id}}}"#),
    )
        .into_response()
}

/// Probes the burst and the hang check only (the others send one request per key,
/// which this server would hold for its whole bound).
async fn probe_burst_and_hang(with_retry_after: bool) -> Report {
    let keys = Arc::new(Keys {
        with_retry_after,
        ..Keys::default()
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
        .filter(|id| !matches!(id, CheckId::Burst | CheckId::Hang))
        .collect();
    match tokio::time::timeout(Duration::from_secs(60), probe::run(&options)).await {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => panic!("the probe stopped: {e}"),
        Err(_) => panic!("the probe did not finish within 60 s"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_409_in_flight_without_retry_after_is_a_warning() {
    let report = probe_burst_and_hang(false).await;
    let table = probe::table(&report, 100, true);
    let burst = report.check(CheckId::Burst).expect("the burst ran");
    assert_eq!(burst.verdict, Verdict::Warn, "{table}");
    assert!(
        burst.why.ends_with(&[Said::InFlightWithoutRetryAfter]),
        "{table}"
    );
    assert_eq!(
        report.check(CheckId::Hang).map(|c| c.verdict),
        Some(Verdict::Warn),
        "{table}"
    );
    assert!(report.passed(), "a warning fails no run: {table}");
    assert_eq!(
        report.profile.in_flight,
        InFlight::Conflict { retry_after: None },
        "the profile: a duplicate in flight gets 409, without Retry-After: {table}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_409_in_flight_with_retry_after_passes() {
    let report = probe_burst_and_hang(true).await;
    let table = probe::table(&report, 100, true);
    assert_eq!(
        report.with_verdict(Verdict::Pass),
        [CheckId::Burst, CheckId::Hang],
        "{table}"
    );
    assert_eq!(
        report.profile.in_flight,
        InFlight::Conflict {
            retry_after: Some("1".to_owned())
        },
        "{table}"
    );
}
