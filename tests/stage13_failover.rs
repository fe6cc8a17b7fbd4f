//! Stage 13: the key on two machines. Each test starts its own primary and
//! streaming standby from the local PostgreSQL binaries (`harness::Pair`), serves
//! the route on 127.0.0.1, and fails the primary over: the standby's stream is
//! cut to make it lag, the primary is crashed as `pg_ctl stop -m immediate` does,
//! the standby is promoted, and the client retries with the same key. Every wait
//! is on a server state or a WAL position, bounded.

use std::net::SocketAddr;
use std::time::Duration;

use harness::{Answer, Call, CallError, Pair, PoolSize, Schema, Server, ServerSettings};
use harness::{catalogue, t};
use rstest::rstest;
use serde_json::json;
use sqlx::Connection;
use stage13::{App, Config, RouteConfig};

// What these tests say, in the learner's language
// (tests/locales/*/stage13_failover.ftl).
catalogue!(static MESSAGES = "locales", "stage13_failover");

/// The payment got no answer within `seconds` while the standby was away.
fn waits_forever(seconds: u64) -> String {
    t!(
        MESSAGES,
        "the-route-waits-for-the-standby-forever",
        seconds = seconds
    )
}

/// `what` (a request that must not wait) got no answer within `seconds` while
/// the standby was away.
fn waited(what: &str, seconds: u64) -> String {
    t!(
        MESSAGES,
        "only-the-paying-transaction-waits",
        what = what,
        seconds = seconds
    )
}

/// Fails the test saying that the task of a call panicked, with tokio's words.
fn call_panicked(error: &tokio::task::JoinError) -> ! {
    panic!(
        "{}",
        t!(
            MESSAGES,
            "the-calls-task-panicked",
            error = error.to_string()
        )
    )
}

/// The first payment, with the standby streaming and the servers healthy,
/// must be answered 201.
fn first_paid(answer: &Answer) {
    assert!(
        answer.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-payment-is-answered-201",
            got = shown(answer)
        )
    );
}

/// The stage's tables, from the package under test.
fn schema() -> Schema {
    Schema::new(stage13::MIGRATION_SOURCE, stage13::MIGRATION)
}

/// The primary's settings, from the package under test (`primary.conf`).
fn primary_settings() -> ServerSettings {
    ServerSettings::new(stage13::PRIMARY_SETTINGS_SOURCE, stage13::PRIMARY_SETTINGS)
}

/// A standby named in synchronous_standby_names: the settings of the experiments
/// that need one, whatever the package under test names.
const SYNCHRONOUS: ServerSettings = ServerSettings::new(
    "(the experiment's settings)",
    "synchronous_standby_names = 'FIRST 1 (standby1)'",
);

/// Client A, with the token the tests send; the table stores its SHA-256.
const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('client-a', encode(sha256(convert_to('token-of-a', 'UTF8')), 'hex'))";
const A: Option<&str> = Some("Bearer token-of-a");

fn body(order_id: i64) -> String {
    format!(r#"{{"orderId":{order_id},"amount":100}}"#)
}

/// Every call is answered within this, or the test fails saying so.
const CALL_BOUND: Duration = Duration::from_secs(20);
/// How long a payment may take while the standby is away: the route's bound in
/// these tests (200 or 300 ms), a cancel, and the COMMIT's return, with room to
/// spare on a busy machine.
const BOUNDED: Duration = Duration::from_secs(6);
/// What "at once" means for an answer that must not wait for the standby: far
/// above what a replay takes, far below the route's wait in these tests (60 s).
const AT_ONCE: Duration = Duration::from_secs(5);

/// A primary with `settings`, its standby, the tables and client A on both.
async fn pair_with(settings: ServerSettings) -> Pair {
    let pair = Pair::start(settings, schema()).await;
    pair.execute(Server::Primary, CLIENTS).await;
    pair.catch_up().await;
    pair
}

/// The route's servers: `primary` (the primary, or the promoted standby), the
/// standby as the reader, and the route's bound on the wait for the standby.
fn app(pair: &Pair, primary: Server, commit_wait: Duration) -> App {
    App {
        primary: pair.pool(primary, PoolSize::of(5)),
        watchdog: pair.pool(primary, PoolSize::of(2)),
        reader: pair.pool(Server::Standby, PoolSize::of(5)),
        config: Config {
            route: RouteConfig::default(),
            commit_wait,
        },
    }
}

async fn serve(app: App) -> SocketAddr {
    let router = stage13::router(app);
    harness::serve(|listener| stage13::serve(listener, router)).await
}

/// Stage 8's route, given: what the experiments run.
async fn serve_stage8(pool: sqlx::PgPool) -> SocketAddr {
    let router = stage8::router(pool);
    harness::serve(|listener| stage8::serve(listener, router)).await
}

fn call(addr: SocketAddr, authorization: Option<&str>, key: &str, body: &str) -> Call {
    Call::post(addr, "/payments", body)
        .authorization(authorization)
        .key(Some(key))
}

async fn pay(addr: SocketAddr, key: &str, body: &str) -> Answer {
    call(addr, A, key, body).within(CALL_BOUND).send().await
}

/// The call's answer within `bound`; past it, the test fails with `waited`.
async fn answered_within(call: Call, bound: Duration, waited: impl Fn(u64) -> String) -> Answer {
    match call.within(bound).try_send().await {
        Ok(answer) => answer,
        Err(CallError::TimedOut(_)) => panic!("{}", waited(bound.as_secs())),
        Err(e) => panic!("{}", t!(MESSAGES, "the-call-failed", error = e.to_string())),
    }
}

/// An answer as the messages show it: `201 (payment 7)`, `503 payment-unconfirmed`.
fn shown(answer: &Answer) -> String {
    match (answer.reply().payment_id(), answer.body["type"].as_str()) {
        (Some(id), _) if answer.is_replayed() => t!(
            MESSAGES,
            "answer-replaying-a-payment",
            status = answer.status,
            id = id
        ),
        (Some(id), _) => t!(
            MESSAGES,
            "answer-with-a-payment",
            status = answer.status,
            id = id
        ),
        (None, Some(kind)) => format!(
            "{} {}",
            answer.status,
            kind.trim_start_matches(payment_model::PROBLEM_BASE)
        ),
        (None, None) => answer.status.to_string(),
    }
}

fn is_problem(answer: &Answer, status: u16, slug: &str) -> bool {
    answer.status == status
        && answer.body["type"] == format!("{}{slug}", payment_model::PROBLEM_BASE)
}

/// A 201 that makes a payment (not a replay of one).
fn pays(answer: &Answer) -> bool {
    answer.status == 201 && !answer.is_replayed()
}

/// What a retry got, in the words of the predictions.
fn retry_word(retry: &Answer) -> String {
    match (retry.status, retry.is_replayed()) {
        (201, true) => "replayed".to_owned(),
        (201, false) => "paid".to_owned(),
        (status, _) => status.to_string(),
    }
}

// ANCHOR: experiment
#[rstest]
#[case::asynchronous(None, "stage13.async_failover")]
#[case::remote_apply_without_a_named_standby(Some("remote_apply"), "stage13.remote_apply_alone")]
#[tokio::test]
async fn without_a_named_synchronous_standby_a_failover_loses_an_acknowledged_payment(
    #[case] synchronous_commit: Option<&str>,
    #[case] scenario: &str,
) {
    // PostgreSQL's defaults: no standby in synchronous_standby_names. The route is
    // stage 8's, its sessions with `synchronous_commit = remote_apply` in the second
    // case.
    let pair = pair_with(ServerSettings::none()).await;
    let settings: Vec<(&str, &str)> = synchronous_commit
        .map(|level| ("synchronous_commit", level))
        .into_iter()
        .collect();
    let on_primary = pair.pool_with_settings(Server::Primary, PoolSize::of(5), &settings);
    let addr = serve_stage8(on_primary).await;
    // The standby lags: from here on it receives nothing.
    pair.cut_stream().await;

    let first = pay(addr, "order-1", &body(1)).await;
    let acknowledged_at = pair.primary_state().await.flushed;
    let standby_had = pair.standby_state().await.received;
    pair.crash_primary().await;
    pair.promote_standby().await;
    let promoted = serve_stage8(pair.pool(Server::Standby, PoolSize::of(5))).await;
    let retry = pay(promoted, "order-1", &body(1)).await;

    let payments = [&first, &retry].into_iter().filter(|a| pays(a)).count();
    let kept = pair
        .count(Server::Standby, "SELECT count(*) FROM payments")
        .await;
    let same_id = first.reply().payment_id() == retry.reply().payment_id();
    let retry_gets = match (retry_word(&retry).as_str(), same_id) {
        ("paid", true) => "paid again, the same id".to_owned(),
        ("paid", false) => "paid again, another id".to_owned(),
        (other, _) => other.to_owned(),
    };
    // With where the WAL was when the client was told 201, and what the standby
    // had received by then (the book's results list them with the run's figures).
    harness::observe(
        scenario,
        &json!({ "payments": payments, "kept": kept, "retry_gets": retry_gets,
                 "first_status": first.status, "first_id": first.reply().payment_id(),
                 "retry_id": retry.reply().payment_id(),
                 "acknowledged_at": acknowledged_at.to_string(),
                 "standby_had": standby_had.map(|lsn| lsn.to_string()) }),
    );
    first_paid(&first);
    assert!(
        (payments, kept) == (2, 1),
        "{}",
        t!(
            MESSAGES,
            "the-experiment-loses-an-acknowledged-payment",
            first = shown(&first),
            retry = shown(&retry),
            payments = payments,
            kept = kept
        )
    );
}
// ANCHOR_END: experiment

// ANCHOR: failover
#[tokio::test]
async fn a_payment_is_acknowledged_once_the_standby_has_it_and_a_failover_loses_none() {
    let pair = pair_with(primary_settings()).await;
    // The bound is long: order-b's COMMIT must still be waiting when the primary
    // crashes.
    let addr = serve(app(&pair, Server::Primary, Duration::from_secs(60))).await;

    // order-a is paid while the standby streams, and the standby has it.
    let a = pay(addr, "order-a", &body(1)).await;
    first_paid(&a);
    pair.catch_up().await;

    // order-b is sent while the standby receives nothing: its COMMIT waits for
    // the standby (unless nothing makes it wait), and the primary crashes then.
    pair.cut_stream().await;
    let mut b_call = tokio::spawn(async move { pay(addr, "order-b", &body(2)).await });
    let answered_at_once = tokio::select! {
        answered = &mut b_call => Some(answered.unwrap_or_else(|e| call_panicked(&e))),
        _ = pair.until_commits_wait(1) => None,
    };
    pair.crash_primary().await;
    let b = match answered_at_once {
        Some(answer) => answer,
        None => b_call.await.unwrap_or_else(|e| call_panicked(&e)),
    };

    pair.promote_standby().await;
    let promoted = serve(app(&pair, Server::Standby, Duration::from_secs(60))).await;
    let a_retry = pay(promoted, "order-a", &body(1)).await;
    let b_retry = pay(promoted, "order-b", &body(2)).await;
    let kept_b = pair
        .count(
            Server::Standby,
            "SELECT count(*) FROM payments WHERE order_id = 2",
        )
        .await;
    let payments_in_flight = [&b, &b_retry].into_iter().filter(|x| pays(x)).count();
    harness::observe(
        "stage13.failover",
        &json!({ "a_retry": retry_word(&a_retry), "in_flight_first": b.status,
                 "in_flight_retry": retry_word(&b_retry), "kept_in_flight": kept_b,
                 "payments_in_flight": payments_in_flight }),
    );

    assert!(
        !pays(&b),
        "{}",
        t!(
            MESSAGES,
            "acknowledged-then-lost",
            key = "order-b",
            first = shown(&b),
            retry = shown(&b_retry)
        )
    );
    assert!(
        is_problem(&b, 500, "internal-error") || is_problem(&b, 503, "payment-unconfirmed"),
        "{}",
        t!(
            MESSAGES,
            "a-commit-cut-short-asks-for-a-retry",
            key = "order-b",
            got = shown(&b)
        )
    );
    assert!(
        a_retry.is_replayed() && a_retry.reply() == a.reply(),
        "{}",
        t!(
            MESSAGES,
            "replayed-after-the-failover",
            key = "order-a",
            first = shown(&a),
            retry = shown(&a_retry)
        )
    );
    assert!(
        pays(&b_retry) && kept_b == 1,
        "{}",
        t!(
            MESSAGES,
            "in-flight-paid-once-after-the-failover",
            key = "order-b",
            retry = shown(&b_retry),
            kept = kept_b
        )
    );
}
// ANCHOR_END: failover

// ANCHOR: statement_timeout
#[tokio::test]
async fn statement_timeout_does_not_end_a_commit_waiting_for_the_standby_and_a_cancel_does() {
    // A synchronous standby, away; stage 8's route, its sessions with
    // synchronous_commit = on and statement_timeout = 200ms.
    let pair = pair_with(SYNCHRONOUS).await;
    pair.cut_stream().await;
    let timed = pair.pool_with_settings(
        Server::Primary,
        PoolSize::of(2),
        &[("synchronous_commit", "on"), ("statement_timeout", "200ms")],
    );
    let addr = serve_stage8(timed).await;
    let mut paying = tokio::spawn(async move { pay(addr, "order-1", &body(1)).await });
    let one = "SELECT count(*) FROM payments";
    // Either the payment is answered, or its COMMIT is still waiting for the
    // standby three times its statement_timeout after it began.
    let (commit, answer) = tokio::select! {
        answered = &mut paying => {
            let answer = answered.unwrap_or_else(|e| call_panicked(&e));
            let kept = pair.count(Server::Primary, one).await;
            (if kept == 1 { "committed" } else { "rolled back" }, answer)
        }
        _ = pair.until_commits_waited(1, Duration::from_millis(600)) => {
            let cancelled = pair.cancel_waiting_commits().await;
            assert!(
                cancelled == 1,
                "{}",
                t!(MESSAGES, "one-commit-waited-and-was-cancelled", cancelled = cancelled)
            );
            ("still waiting", paying.await.unwrap_or_else(|e| call_panicked(&e)))
        }
    };
    let on_primary = pair.count(Server::Primary, one).await;
    let on_standby = pair.count(Server::Standby, one).await;

    // A session whose client has gone, while its COMMIT waits: the server checks
    // the client's socket every 100 ms, and does not end the wait either.
    let checked = pair.options(Server::Primary).options([
        ("synchronous_commit", "on"),
        ("client_connection_check_interval", "100ms"),
    ]);
    let mut session = sqlx::PgConnection::connect_with(&checked)
        .await
        .expect("a session on the primary");
    let inserting = tokio::spawn(async move {
        sqlx::query("INSERT INTO clients (name, token_hash) VALUES ('gone', 'gone')")
            .execute(&mut session)
            .await
    });
    pair.until_commits_wait(1).await;
    // The client goes: its task, its connection and its socket are dropped.
    inserting.abort();
    let _ = inserting.await;
    pair.until_commits_waited(1, Duration::from_millis(600))
        .await;
    let client_gone = "still waiting";
    let cancelled = pair.cancel_waiting_commits().await;
    assert!(
        cancelled == 1,
        "{}",
        t!(
            MESSAGES,
            "a-commit-whose-client-went-still-waits",
            cancelled = cancelled
        )
    );

    harness::observe(
        "stage13.statement_timeout",
        &json!({ "commit": commit, "after_cancel": answer.status,
                 "on_primary": on_primary, "on_standby": on_standby,
                 "client_gone": client_gone }),
    );
    assert!(
        (commit, answer.status, on_primary, on_standby) == ("still waiting", 201, 1, 0),
        "{}",
        t!(
            MESSAGES,
            "statement-timeout-does-not-end-the-wait",
            commit = commit.replace(' ', "-"),
            got = shown(&answer),
            on_primary = on_primary,
            on_standby = on_standby
        )
    );
}
// ANCHOR_END: statement_timeout

// ANCHOR: standby_away
#[tokio::test]
async fn with_the_standby_away_a_payment_is_answered_503_within_the_bound_and_its_retry_replays_it()
{
    let pair = pair_with(primary_settings()).await;
    pair.cut_stream().await;

    // The route, with its bound on the wait.
    let addr = serve(app(&pair, Server::Primary, Duration::from_millis(300))).await;
    let first = answered_within(call(addr, A, "order-1", &body(1)), BOUNDED, waits_forever).await;
    let one = "SELECT count(*) FROM payments WHERE order_id = 1";
    let on_primary = pair.count(Server::Primary, one).await;
    let on_standby = pair.count(Server::Standby, one).await;
    let waiting = pair.primary_state().await.commits_waiting;
    let retry = answered_within(call(addr, A, "order-1", &body(1)), BOUNDED, waits_forever).await;
    let payment = match (on_primary, on_standby, waiting) {
        (1, 0, 0) => "committed on the primary only",
        (_, _, 1..) => "still waiting",
        (0, 0, 0) => "rolled back",
        _ => "other",
    };
    harness::observe(
        "stage13.standby_down",
        &json!({ "first": first.status, "payment": payment, "retry": retry_word(&retry) }),
    );

    assert!(
        is_problem(&first, 503, "payment-unconfirmed") && first.retry_after.is_some(),
        "{}",
        t!(
            MESSAGES,
            "a-commit-past-the-bound-is-unconfirmed",
            got = shown(&first)
        )
    );
    assert!(
        (on_primary, waiting) == (1, 0),
        "{}",
        t!(
            MESSAGES,
            "the-commits-wait-is-cancelled",
            on_primary = on_primary,
            waiting = waiting
        )
    );
    assert!(
        retry.is_replayed() && retry.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-retry-of-an-unconfirmed-payment-replays-it",
            got = shown(&retry)
        )
    );
    // Once the standby is back, it has the payment too.
    pair.restore_stream().await;
    pair.catch_up().await;
    let on_standby = pair.count(Server::Standby, one).await;
    assert!(
        on_standby == 1,
        "{}",
        t!(
            MESSAGES,
            "the-standby-back-has-the-unconfirmed-payment",
            rows = on_standby
        )
    );
}
// ANCHOR_END: standby_away

#[tokio::test]
async fn a_commit_whose_wait_cannot_be_cancelled_is_answered_500_and_the_pool_serves_on() {
    let pair = pair_with(primary_settings()).await;
    // One connection, and a watchdog whose cancel reaches no session of the
    // primary (it runs on the standby): the wait for the standby cannot end.
    let wait = Duration::from_millis(200);
    let app = App {
        primary: pair.pool(Server::Primary, PoolSize::of(1)),
        watchdog: pair.pool(Server::Standby, PoolSize::of(1)),
        reader: pair.pool(Server::Standby, PoolSize::of(1)),
        config: Config {
            route: RouteConfig::default(),
            commit_wait: wait,
        },
    };
    let addr = serve(app).await;
    let paid = pay(addr, "order-0", &body(0)).await;
    first_paid(&paid);
    pair.cut_stream().await;

    let stuck = answered_within(call(addr, A, "order-1", &body(1)), BOUNDED, waits_forever).await;
    assert!(
        is_problem(&stuck, 500, "internal-error"),
        "{}",
        t!(
            MESSAGES,
            "an-uncancellable-commit-is-answered-500",
            got = shown(&stuck)
        )
    );
    let replay = answered_within(call(addr, A, "order-0", &body(0)), AT_ONCE, |seconds| {
        t!(
            MESSAGES,
            "the-pool-lost-a-connection-to-a-busy-commit",
            seconds = seconds
        )
    })
    .await;
    assert!(
        replay.is_replayed() && replay.reply() == paid.reply(),
        "{}",
        t!(
            MESSAGES,
            "the-pool-lost-a-connection-the-replay-got",
            got = shown(&replay)
        )
    );

    // The outcome becomes known: once the standby is back, the COMMIT returns,
    // and the retry finds the payment.
    pair.restore_stream().await;
    pair.until_no_commit_waits().await;
    let retry = pay(addr, "order-1", &body(1)).await;
    assert!(
        retry.is_replayed() && retry.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-uncancelled-commit-returns-and-its-retry-replays",
            got = shown(&retry)
        )
    );
}

// ANCHOR: who_waits
#[tokio::test]
async fn with_the_standby_away_replays_refusals_and_other_writes_answer_at_once() {
    let pair = pair_with(primary_settings()).await;
    let app = app(&pair, Server::Primary, Duration::from_secs(60));
    let primary = app.primary.clone();
    let addr = serve(app).await;
    let paid = pay(addr, "order-1", &body(1)).await;
    first_paid(&paid);
    pair.cut_stream().await;

    let replay = answered_within(call(addr, A, "order-1", &body(1)), AT_ONCE, |s| {
        waited(&t!(MESSAGES, "a-replay-of-a-key-answered-before"), s)
    })
    .await;
    assert!(
        replay.is_replayed() && replay.reply() == paid.reply(),
        "{}",
        t!(
            MESSAGES,
            "a-replay-while-the-standby-is-away",
            got = shown(&replay)
        )
    );
    let other_body = answered_within(call(addr, A, "order-1", &body(2)), AT_ONCE, |s| {
        waited(&t!(MESSAGES, "the-same-key-with-another-body"), s)
    })
    .await;
    assert!(
        is_problem(&other_body, 422, "key-reused"),
        "{}",
        t!(
            MESSAGES,
            "another-body-while-the-standby-is-away",
            got = shown(&other_body)
        )
    );
    let stranger = answered_within(
        call(addr, Some("Bearer token-of-nobody"), "order-9", &body(9)),
        AT_ONCE,
        |s| waited(&t!(MESSAGES, "a-request-from-an-unknown-client"), s),
    )
    .await;
    assert!(
        stranger.status == 401,
        "{}",
        t!(
            MESSAGES,
            "an-unknown-client-while-the-standby-is-away",
            got = shown(&stranger)
        )
    );
    // A write of the API that is not a payment (here, a new client), on the
    // route's own pool and session settings.
    let other_write = sqlx::query(
        "INSERT INTO clients (name, token_hash) VALUES ('client-b', 'not a real hash')",
    )
    .execute(&primary);
    match tokio::time::timeout(AT_ONCE, other_write).await {
        Ok(written) => {
            written.unwrap_or_else(|e| {
                panic!(
                    "{}",
                    t!(MESSAGES, "the-other-write-failed", error = e.to_string())
                )
            });
        }
        Err(_) => panic!(
            "{}",
            waited(
                &t!(MESSAGES, "a-write-that-is-not-a-payment"),
                AT_ONCE.as_secs()
            )
        ),
    }
}
// ANCHOR_END: who_waits

// ANCHOR: lagging
#[tokio::test]
async fn a_retry_while_the_standby_lags_is_answered_from_the_primary() {
    let pair = pair_with(primary_settings()).await;
    pair.pause_replay().await;
    // The first request is paid by stage 8's route, whose COMMIT does not wait for
    // the standby: the key is on the primary, and not yet visible on the standby,
    // as during any replication lag.
    let local = pair.pool_with_settings(
        Server::Primary,
        PoolSize::of(2),
        &[("synchronous_commit", "local")],
    );
    let first = pay(serve_stage8(local).await, "order-1", &body(1)).await;
    first_paid(&first);
    let keys = "SELECT count(*) FROM idempotency_keys";
    let on_standby = pair.count(Server::Standby, keys).await;
    // A broken harness, not the learner's code: said in English.
    assert!(
        on_standby == 0,
        "harness: the standby was meant to lag behind the first payment, and it has \
         {on_standby} key(s)"
    );

    let addr = serve(app(&pair, Server::Primary, Duration::from_secs(2))).await;
    let retry = pay(addr, "order-1", &body(1)).await;
    harness::observe(
        "stage13.lagging_standby",
        &json!({ "retry": retry_word(&retry) }),
    );
    assert!(
        retry.is_replayed() && retry.reply() == first.reply(),
        "{}",
        t!(
            MESSAGES,
            "a-retry-is-answered-from-the-primary",
            got = shown(&retry)
        )
    );
    let payments = pair
        .count(Server::Primary, "SELECT count(*) FROM payments")
        .await;
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "one-payment-for-one-key", payments = payments)
    );
}
// ANCHOR_END: lagging
