//! The burst's timeline from the client's side: the same trace format as the
//! harness's, drawn by the same code, from what the probe saw of each request
//! (when it went, when its answer came back, its status, a replay's mark) and
//! nothing it could not see. Its figures are the burst check's own.

// The shapes this file does not probe are the other tests'.
#[allow(dead_code)]
mod server;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use harness::{PoolSize, TestDb, reference_schema};
use probe::{CheckId, NoAnswer, Options, Report, Role};
use server::{Shape, serve, serve_shape};
use timeline::fold::{Fact, Picture, State};
use timeline::trace::{Missing, NO_ANSWER, Trace, UNANSWERED};

/// Every wait of these tests is bounded by this.
const BOUND: Duration = Duration::from_secs(60);

/// Only the burst, against `url`, each request bounded by `timeout`.
fn burst_only(url: String, timeout: Duration) -> Options {
    let mut options = Options::across(vec![url]);
    options.timeout = timeout;
    options.skip = CheckId::ALL
        .iter()
        .copied()
        .filter(|id| *id != CheckId::Burst)
        .collect();
    options
}

async fn probe(options: &Options) -> Report {
    match harness::within(BOUND, "the probe", probe::run(options)).await {
        Ok(report) => report,
        Err(e) => panic!("the probe stopped: {e}"),
    }
}

/// The burst check's trace, or a failure that shows the report.
fn trace_of(report: &Report) -> &Trace {
    report
        .check(CheckId::Burst)
        .and_then(|check| check.timeline.as_ref())
        .unwrap_or_else(|| {
            panic!(
                "the burst check ran and kept no timeline:\n{}",
                probe::table(report, 100, true)
            )
        })
}

/// The burst's first answers as the check recorded them, counted the way a
/// trace counts its answers.
fn burst_statuses(report: &Report) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let check = report.check(CheckId::Burst).expect("the burst check ran");
    for seen in check.answers.iter().filter(|s| s.role == Role::Burst) {
        let answer = match &seen.answer {
            Ok(answer) => answer.status.to_string(),
            Err(NoAnswer::Timeout(_)) => UNANSWERED.to_owned(),
            Err(_) => NO_ANSWER.to_owned(),
        };
        *counts.entry(answer).or_insert(0) += 1;
    }
    counts
}

/// The table as one line of text, each line trimmed: a sentence the drawing
/// wrapped reads whole.
fn one_text(table: &str) -> String {
    table.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// The timeline's lines, as the table indents them, that are wider than 100
/// columns.
fn too_wide(trace: &Trace) -> Vec<String> {
    probe::timeline_lines(trace, 100)
        .into_iter()
        .map(|line| format!("  {line}"))
        .filter(|line| line.chars().count() > 100)
        .collect()
}

/// Two wrong servers whose bursts fail in two ways: 20 payments for one key
/// (all answered), and a pool that deadlocks (answers that never come). The
/// timeline under the evidence has as many lanes as the burst sent, and its
/// statuses are the ones the check judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_timeline_counts_the_requests_and_statuses_the_burst_check_counted() {
    let db = TestDb::create(reference_schema()).await;
    for (shape, timeout) in [
        (
            Shape::CheckThenWrite { held_for: 20 },
            Duration::from_secs(10),
        ),
        // The pool's own patience (30 s) outlasts the probe's bound: the 19
        // requests behind the deadlock are given up at it.
        (
            Shape::ReadsThroughThePool { pool: 10 },
            Duration::from_secs(2),
        ),
    ] {
        let addr = serve_shape(&db, shape).await;
        let options = burst_only(format!("http://{addr}"), timeout);
        let report = probe(&options).await;
        let table = probe::table(&report, 100, false);
        let trace = trace_of(&report);
        assert_eq!(
            trace.requests.len(),
            options.burst,
            "{shape:?}: the timeline should have a lane per request of the burst:\n{table}"
        );
        assert_eq!(
            trace.answers(),
            burst_statuses(&report),
            "{shape:?}: the timeline's statuses should be the ones the burst check judged:\n{table}"
        );
        assert_eq!(trace.seen.missing, [Missing::ClientSide]);
        assert!(
            trace.requests.iter().all(|r| r.events.is_empty()),
            "{shape:?}: the probe sees no statement, lock or connection"
        );
        // Drawn under the failed burst's evidence, even without --verbose.
        assert!(
            one_text(&table).contains("Timeline of the burst, from the client: 20 requests"),
            "{shape:?}: a failed burst's timeline belongs under its evidence:\n{table}"
        );
        assert!(too_wide(trace).is_empty(), "{:?}", too_wide(trace));
        if let Shape::ReadsThroughThePool { .. } = shape {
            let unanswered = trace.answers().get(UNANSWERED).copied().unwrap_or(0);
            assert!(
                unanswered > 0,
                "the deadlocked pool leaves requests unanswered:\n{table}"
            );
            assert!(
                one_text(&table).contains("… no answer within the bound"),
                "an unanswered lane ends with its own mark:\n{table}"
            );
        }
    }
}

/// Stage 4's model answer behind stage 6's route (its duplicates wait on the key
/// with no bound: stage 5's 250 ms would answer 409 to those that waited longer,
/// under load), its first request held inside its transaction (a table lock the
/// test takes on `payments`) until the 19 duplicates are queued on its key's
/// lock, as PostgreSQL itself reports them: then the test lets it commit. From the client's side the 20 requests are one folded lane, every one
/// answered 201 only after the commit; nothing in the picture claims a wait or
/// a lock the probe could not see.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn duplicates_held_until_the_first_commits_are_one_folded_lane_answered_after_it() {
    let db = TestDb::create(reference_schema()).await;
    // A connection each: the duplicates wait on the key, not on the pool.
    let addr = serve_shape(&db, Shape::WaitsOnTheKey).await;
    let holder = db.pool(PoolSize::of(1));
    let mut lock = holder
        .begin()
        .await
        .expect("a transaction of the test's own");
    sqlx::query("LOCK TABLE payments IN SHARE MODE")
        .execute(&mut *lock)
        .await
        .expect("the test locks payments");
    let options = burst_only(format!("http://{addr}"), Duration::from_secs(30));
    let probing = tokio::spawn(async move { probe::run(&options).await });
    // The first request inserted its key and waits on `payments`; the 19
    // duplicates wait on its key (both bounded by the harness).
    harness::wait_for_table_lock_waiters(&db, 1).await;
    harness::wait_for_lock_waiters(&db, 19).await;
    lock.commit().await.expect("the test lets the first go");
    let report = match harness::within(BOUND, "the probe", probing).await {
        Ok(Ok(report)) => report,
        other => panic!("the probe did not finish its run: {other:?}"),
    };
    let table = probe::table(&report, 100, true);
    let trace = trace_of(&report);
    assert_eq!(trace.answers(), BTreeMap::from([("201".to_owned(), 20)]));
    let picture = Picture::of(trace);
    assert_eq!(
        picture.groups.len(),
        1,
        "the server marks no replay: the client cannot tell the first from its duplicates, so \
         the 20 lanes fold into one:\n{table}"
    );
    let lane = &picture.groups[0];
    assert_eq!(lane.members, (1..=20).collect::<Vec<_>>());
    let Some(Fact::AnsweredAfter { low_us, .. }) = lane.facts.first() else {
        panic!("the folded lane should say when its answers came back:\n{table}");
    };
    assert!(
        *low_us > 0 && trace.requests.iter().all(|r| r.end_us > Some(r.start_us)),
        "every lane runs from its request's sending to its answer:\n{table}"
    );
    assert!(
        picture
            .lanes
            .iter()
            .all(|l| l.spans.iter().all(|s| s.state == State::InFlight)),
        "the client's lanes are in flight until their answer, nothing else"
    );
    for claim in ["░", "▒", "blocked", "held at"] {
        assert!(
            !one_text(&table).contains(claim),
            "the probe cannot see a lock: the picture should not claim {claim:?}:\n{table}"
        );
    }
    assert!(
        one_text(&table).contains("×20 (#1–#20): answered after"),
        "the folded lane of waiters:\n{table}"
    );
    assert!(
        one_text(&table).contains("the server's locks and transactions are not seen"),
        "{table}"
    );
    assert!(too_wide(trace).is_empty(), "{:?}", too_wide(trace));
}

/// An API that marks replays (`Idempotent-Replayed: true`, as Stripe's does)
/// and holds every duplicate until the first has answered: the first request's
/// lane and the 19 replays fold apart, each saying whether it was marked.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replays_marked_by_the_api_fold_apart_from_the_first_answer() {
    let addr = serve(marking_replays(20)).await;
    let report = probe(&burst_only(
        format!("http://{addr}"),
        Duration::from_secs(30),
    ))
    .await;
    let table = probe::table(&report, 100, true);
    let picture = Picture::of(trace_of(&report));
    let mut sizes: Vec<usize> = picture.groups.iter().map(|g| g.members.len()).collect();
    sizes.sort();
    assert_eq!(sizes, [1, 19], "the first and the replays:\n{table}");
    for group in &picture.groups {
        let replayed = group.members.len() == 19;
        assert!(
            group.facts.contains(&Fact::Replayed(replayed)),
            "{:?} should be said {}:\n{table}",
            group.members,
            if replayed { "replayed" } else { "not replayed" }
        );
    }
    assert!(
        one_text(&table).contains("×19") && one_text(&table).contains("marked as a replay → 201"),
        "{table}"
    );
    assert!(
        one_text(&table).contains("not marked as a replay → 201"),
        "{table}"
    );
}

/// A server that keeps each key's first answer in memory and marks its replays;
/// a key's first request answers only once the other `burst - 1` have arrived
/// (each then waits for it), bounded so that a lost request fails with 500.
fn marking_replays(burst: usize) -> axum::Router {
    struct Keys {
        stored: tokio::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<String>>>>>,
        /// A permit per duplicate arrived.
        arrived: tokio::sync::Semaphore,
    }
    let keys = Arc::new(Keys {
        stored: Default::default(),
        arrived: tokio::sync::Semaphore::new(0),
    });
    let create = move |headers: HeaderMap| {
        let keys = keys.clone();
        async move {
            let key = headers
                .get("idempotency-key")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let (slot, first) = {
                let mut stored = keys.stored.lock().await;
                match stored.get(&key) {
                    Some(slot) => (slot.clone(), None),
                    None => {
                        let slot = Arc::new(tokio::sync::Mutex::new(None));
                        // Held from the start: the duplicates wait for it.
                        let held = slot.clone().try_lock_owned().ok();
                        stored.insert(key.clone(), slot.clone());
                        (slot, held)
                    }
                }
            };
            if let Some(mut held) = first {
                let everyone = keys.arrived.acquire_many(burst as u32 - 1);
                let wait = tokio::time::timeout(BOUND, everyone).await;
                if !matches!(wait, Ok(Ok(_))) {
                    return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "lost").into_response();
                }
                let body = format!(r#"{{"id":"pay-{key}","status":"paid"}}"#);
                *held = Some(body.clone());
                return json(201, body, false);
            }
            keys.arrived.add_permits(1);
            let stored = slot.lock().await.clone().unwrap_or_default();
            json(201, stored, true)
        }
    };
    axum::Router::new().route("/payments", post(create))
}

fn json(status: u16, body: String, replayed: bool) -> Response {
    let mut response = (
        axum::http::StatusCode::from_u16(status).unwrap_or_default(),
        [("content-type", "application/json")],
        body,
    )
        .into_response();
    if replayed {
        response.headers_mut().insert(
            "idempotent-replayed",
            axum::http::HeaderValue::from_static("true"),
        );
    }
    response
}
