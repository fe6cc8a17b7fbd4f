//! Stage 12: an idempotency layer around routes that have no idempotency code of
//! their own, tested through a real server on 127.0.0.1 and a real HTTP client;
//! and its limit, a crash between the route's commit and the layer's store,
//! injected at that exact point.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use harness::{
    Answer, Call, Outcome, PaymentGate, PoolSize, ReplyKind, Schema, TestDb, WireRelay,
    fire_concurrently, fire_while_first_is_held, wait_for_lock_waiters,
    wait_for_table_lock_waiters, within,
};
use harness::{catalogue, t};
use payment_model::Reply;
use rstest::rstest;
use serde_json::Value;
use sqlx::{Connection, Executor};
use stage12::{Config, CrashPoint, Router};
use tokio::task::JoinHandle;
use tower::ServiceExt;

// What these tests say, in the learner's language
// (tests/locales/*/stage12_middleware.ftl).
catalogue!(static MESSAGES = "locales", "stage12_middleware");

/// The stage's tables, from the package under test.
fn schema() -> Schema {
    Schema::new(stage12::MIGRATION_SOURCE, stage12::MIGRATION)
}

/// Two clients, with the tokens the tests send (stage 8's). The table stores SHA-256 of each.
const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('client-a', encode(sha256(convert_to('token-of-a', 'UTF8')), 'hex')),
    ('client-b', encode(sha256(convert_to('token-of-b', 'UTF8')), 'hex'))";
const A: Option<&str> = Some("Bearer token-of-a");

const BODY: &str = r#"{"orderId":1,"amount":100}"#;
const REQUESTS: usize = 20;

/// How long a request may take to reach the crash point.
const CRASH_BOUND: Duration = Duration::from_secs(10);

/// `made` payments must be `wanted`, or the test fails saying how many there are.
fn payments_made_by_now(made: i64, wanted: i64) {
    assert!(
        made == wanted,
        "{}",
        t!(
            MESSAGES,
            "payments-made-by-now",
            wanted = wanted,
            payments = made
        )
    );
}

/// A fresh database with the two clients.
async fn database() -> TestDb {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    db
}

async fn serve(router: Router) -> SocketAddr {
    // `traced`: under the runner, the server's work for each request of a burst
    // goes into that request's timeline.
    harness::serve(|listener| stage12::serve(listener, harness::traced(router))).await
}

/// `POST path` over HTTP.
async fn post(
    addr: SocketAddr,
    path: &str,
    authorization: Option<&str>,
    key: Option<&str>,
    body: &str,
) -> Answer {
    call(addr, reqwest::Method::POST, path, authorization, key, body).await
}

/// `method path` over HTTP.
async fn call(
    addr: SocketAddr,
    method: reqwest::Method,
    path: &str,
    authorization: Option<&str>,
    key: Option<&str>,
    body: &str,
) -> Answer {
    Call::new(addr, method, path, body)
        .authorization(authorization)
        .key(key)
        .send()
        .await
}

/// `POST /payments` by client A with `key`, as a request value: for the tests
/// that call the router directly, to drop a request at an exact point.
fn payment_request(key: &str) -> Request {
    payment_request_to("/payments", "application/json", key)
}

/// The same payment, sent to `uri` with `content_type`.
fn payment_request_to(uri: &str, content_type: &str, key: &str) -> Request {
    request_to(uri, content_type, key, BODY)
}

/// `POST /payments` by client A with `key` and `body`.
fn payment_request_with(key: &str, body: &'static str) -> Request {
    request_to("/payments", "application/json", key, body)
}

fn request_to(uri: &str, content_type: &str, key: &str, body: &'static str) -> Request {
    Request::post(uri)
        .header("content-type", content_type)
        .header("authorization", "Bearer token-of-a")
        .header("idempotency-key", key)
        .body(Body::from(body))
        .expect("a valid request")
}

/// The API with the layer over `layer_pool`, and the routes over `route_pool`:
/// for the tests that break the route's connection and not the layer's.
fn api_with_route_pool(layer_pool: sqlx::PgPool, route_pool: sqlx::PgPool) -> Router {
    stage12::router_with_layer(
        route_pool,
        stage12::idempotency_layer(layer_pool, Config::default()),
    )
}

/// Every reservation's lease passes: moved back an hour rather than waited for.
async fn the_lease_passes(db: &TestDb) {
    db.execute("UPDATE idempotent_requests SET reserved_at = reserved_at - interval '1 hour'")
        .await;
}

/// From now on, the route's payment INSERT fails with a PostgreSQL ERROR (so
/// nothing is committed) while the table `refusing` has a row.
async fn install_refusals(db: &TestDb) {
    db.execute(
        "CREATE TABLE refusing ();
         CREATE FUNCTION refuse_payment() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF EXISTS (SELECT FROM refusing) THEN
             RAISE EXCEPTION 'the payment is refused, for the test';
           END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_payment BEFORE INSERT ON payments
           FOR EACH ROW EXECUTE FUNCTION refuse_payment();",
    )
    .await;
}

async fn refuse_payments(db: &TestDb) {
    db.execute("INSERT INTO refusing DEFAULT VALUES").await;
}

async fn accept_payments(db: &TestDb) {
    db.execute("DELETE FROM refusing").await;
}

/// Sends `request` through `router` in a task of its own, and returns once it
/// has stopped at `pause` (`config.after_route`): its route has answered, and its
/// answer is neither stored nor its key released.
async fn stopped_after_its_route(
    pause: &CrashPoint,
    router: Router,
    request: Request,
) -> JoinHandle<Answer> {
    let mut request = tokio::spawn(send(router, request));
    let reaching = t!(MESSAGES, "the-request-on-its-way-to-the-crash-point");
    let stopped = within(CRASH_BOUND, &reaching, async {
        tokio::select! {
            () = pause.reached() => true,
            _ = &mut request => false,
        }
    })
    .await;
    assert!(
        stopped,
        "{}",
        t!(
            MESSAGES,
            "the-request-ended-without-stopping-at-the-crash-point"
        )
    );
    request
}

/// How long a request through the layer may take, a request stopped at a crash
/// point included (the tests resume or drop it within seconds).
const REQUEST_BOUND: Duration = Duration::from_secs(30);

/// Sends `request` through `router`, without a network in between, within
/// [`REQUEST_BOUND`].
async fn send(router: Router, request: Request) -> Answer {
    let answering = t!(MESSAGES, "a-request-through-the-layer");
    let response: Response = match within(REQUEST_BOUND, &answering, router.oneshot(request)).await
    {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let (head, body) = response.into_parts();
    let text = axum::body::to_bytes(body, usize::MAX)
        .await
        .expect("the body arrives");
    Answer::of(
        head.status.as_u16(),
        |name| Some(head.headers.get(name)?.to_str().ok()?.to_owned()),
        &text,
    )
}

/// The answer of `request` (its name in the messages), sent in a task of its
/// own: a panic in the layer (a `todo!()` not yet written) fails the test saying
/// whose request it ended.
fn answer_of(request: &str, joined: Result<Answer, tokio::task::JoinError>) -> Answer {
    joined.unwrap_or_else(|error| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "a-request-ended-without-an-answer",
                request = request,
                error = error.to_string()
            )
        )
    })
}

/// What a retry got, in the words of the predictions' answer keys: `409`, `paid`
/// (a 201 of its own), `replayed` (a stored 201), `replayed-500`, or the status.
fn what_a_retry_got(retry: &Answer) -> String {
    match (retry.status, retry.replayed.as_deref()) {
        (409, _) => "409".to_owned(),
        (201, Some("true")) => "replayed".to_owned(),
        (201, _) => "paid".to_owned(),
        (status, Some("true")) => format!("replayed-{status}"),
        (status, _) => status.to_string(),
    }
}

/// `cargo workbook api --stage 12`'s program (tests/stage12_api.rs).
#[path = "stage12_api.rs"]
mod stage12_api;

#[tokio::test]
async fn the_api_command_shows_the_table_the_layer_keeps_its_keys_in() {
    let api = stage12_api::api();
    let db = TestDb::create(Schema::new(api.schema.source, api.schema.sql)).await;
    db.execute(CLIENTS).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener's address");
    let _serving = stage12_api::api_server::start(&api, listener, db.pool(PoolSize::of(5)));
    let paid = post(addr, "/payments", A, Some("order-1"), BODY).await;
    let mut conn = db.connect().await;
    let keys: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {} WHERE key = 'order-1'",
        api.keys_table
    )))
    .fetch_one(&mut conn)
    .await
    .expect("the table the api shows exists");
    assert!(
        paid.status == 201,
        "{}",
        t!(MESSAGES, "the-api-pays", got = format!("{paid:?}"))
    );
    assert!(
        keys == 1,
        "{}",
        t!(
            MESSAGES,
            "the-api-shows-the-layers-keys",
            table = api.keys_table,
            keys = keys
        )
    );
}

// ANCHOR: refusals
#[rstest]
#[case::no_client(None, Some("key-1"), 401, "unauthenticated")]
#[case::no_key(A, None, 400, "idempotency-key-missing")]
#[case::malformed_key(A, Some("\"unclosed"), 400, "idempotency-key-malformed")]
#[tokio::test]
async fn a_request_without_a_client_or_a_valid_key_is_refused_before_the_route_runs(
    #[case] authorization: Option<&str>,
    #[case] key: Option<&str>,
    #[case] status: u16,
    #[case] problem_type: &str,
) {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let answer = post(addr, "/payments", authorization, key, BODY).await;
    let got = format!("{answer:?}");
    assert!(
        (answer.status, answer.content_type.as_str()) == (status, "application/problem+json"),
        "{}",
        t!(
            MESSAGES,
            "the-layer-refuses-with-a-problem",
            status = status,
            got = &got
        )
    );
    let expected_type = format!("{}{problem_type}", payment_model::PROBLEM_BASE);
    assert!(
        answer.body["type"] == expected_type,
        "{}",
        t!(
            MESSAGES,
            "the-problem-says-why",
            expected = &expected_type,
            got = &got
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 0,
        "{}",
        t!(
            MESSAGES,
            "the-route-never-pays-without-a-key",
            payments = payments
        )
    );
    let reserved = db.count("SELECT count(*) FROM idempotent_requests").await;
    assert!(
        reserved == 0,
        "{}",
        t!(
            MESSAGES,
            "a-refused-request-reserves-nothing",
            keys = reserved
        )
    );
}

#[tokio::test]
async fn a_body_larger_than_the_layer_reads_is_refused_with_413_and_reserves_nothing() {
    let db = database().await;
    let config = Config {
        max_body_bytes: 16,
        ..Config::default()
    };
    let layer = stage12::router_with(db.pool(PoolSize::of(5)), config);
    let answer = send(layer, payment_request("order-1")).await;
    assert!(
        (answer.status, &answer.body["type"])
            == (
                413,
                &Value::from(format!("{}body-too-large", payment_model::PROBLEM_BASE))
            ),
        "{}",
        t!(
            MESSAGES,
            "a-body-too-large-is-refused-with-413",
            bytes = BODY.len(),
            got = format!("{answer:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 0,
        "{}",
        t!(
            MESSAGES,
            "a-refused-request-pays-nothing",
            payments = payments
        )
    );
    let reserved = db.count("SELECT count(*) FROM idempotent_requests").await;
    assert!(
        reserved == 0,
        "{}",
        t!(
            MESSAGES,
            "a-refused-request-reserves-nothing",
            keys = reserved
        )
    );
}

#[tokio::test]
async fn a_key_that_cannot_be_reserved_is_a_500_and_the_route_does_not_run() {
    let db = database().await;
    // The layer's table is gone: the reservation fails with an ERROR.
    db.execute("ALTER TABLE idempotent_requests RENAME TO idempotent_requests_elsewhere")
        .await;
    let answer = send(
        stage12::router(db.pool(PoolSize::of(5))),
        payment_request("order-1"),
    )
    .await;
    assert!(
        (answer.status, answer.content_type.as_str()) == (500, "application/problem+json"),
        "{}",
        t!(
            MESSAGES,
            "a-key-that-cannot-be-reserved-is-a-500",
            got = format!("{answer:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 0,
        "{}",
        t!(
            MESSAGES,
            "no-route-runs-without-a-reservation",
            payments = payments
        )
    );
}
// ANCHOR_END: refusals

/// 20 `POST /payments` from client A with one key, the first held in the route's
/// payment INSERT (at the harness's payment gate) until the 19 others have arrived.
async fn held_burst(db: &TestDb, router: Router) -> (Vec<Reply>, Outcome) {
    let addr = serve(router).await;
    let results = fire_while_first_is_held(db, 1, REQUESTS, |_| async move {
        Ok(post(addr, "/payments", A, Some("order-1"), BODY)
            .await
            .reply())
    })
    .await;
    let outcome = Outcome::new(&results, db.payment_count().await);
    (results.into_iter().flatten().collect(), outcome)
}

// ANCHOR: bare_route
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_the_layer_twenty_requests_with_one_key_make_twenty_payments() {
    let db = database().await;
    let (_, outcome) = held_burst(&db, stage12::bare_router(db.pool(PoolSize::of(20)))).await;
    outcome.record("stage12.bare_burst");
    println!("{}", outcome.table());
    assert!(
        outcome.payments == 20,
        "{}",
        t!(
            MESSAGES,
            "without-the-layer-each-request-pays",
            outcome = outcome.to_string()
        )
    );
}
// ANCHOR_END: bare_route

// ANCHOR: burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_requests_with_one_key_make_one_payment_through_the_layer() {
    let db = database().await;
    let pool = db.pool(PoolSize::of(20));
    let (answers, outcome) = held_burst(&db, stage12::router(pool.clone())).await;
    outcome.record("stage12.burst");
    println!("{}", outcome.table());
    let said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "behind-the-layer-twenty-requests-pay-once",
            outcome = &said
        )
    );
    assert!(
        answers[0].status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-of-the-burst-pays",
            got = format!("{answers:?}")
        )
    );
    let told_409 = outcome.count(ReplyKind::Status(409));
    assert!(
        told_409 == REQUESTS - 1,
        "{}",
        t!(
            MESSAGES,
            "every-duplicate-in-flight-is-told-409",
            count = told_409,
            outcome = &said
        )
    );

    let retry = post(
        serve(stage12::router(pool)).await,
        "/payments",
        A,
        Some("order-1"),
        BODY,
    )
    .await;
    assert!(
        (retry.status, &retry.body, retry.replayed.as_deref())
            == (201, &answers[0].body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "once-answered-a-retry-gets-the-201-replayed",
            first = format!("{:?}", answers[0]),
            got = format!("{retry:?}")
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: burst

// ANCHOR: second_route
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_second_route_gets_idempotency_with_one_line() {
    let db = database().await;
    db.execute(
        "INSERT INTO payments (client_id, order_id, amount)
         SELECT id, 1, 100 FROM clients WHERE name = 'client-a'",
    )
    .await;
    let payment_id = db.count("SELECT id FROM payments").await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(20)))).await;
    let refund = serde_json::json!({ "paymentId": payment_id, "amount": 40 }).to_string();

    let answers = fire_concurrently(REQUESTS, |_| {
        let refund = refund.clone();
        async move { post(addr, "/refunds", A, Some("refund-1"), &refund).await }
    })
    .await;

    let refunds = db.count("SELECT count(*) FROM refunds").await;
    let got = format!("{answers:?}");
    assert!(
        refunds == 1,
        "{}",
        t!(
            MESSAGES,
            "twenty-refunds-with-one-key-make-one",
            refunds = refunds,
            got = &got
        )
    );
    let created: Vec<&Answer> = answers.iter().filter(|a| a.status == 201).collect();
    assert!(
        !created.is_empty() && created.iter().all(|a| a.body == created[0].body),
        "{}",
        t!(MESSAGES, "every-201-is-the-one-refunds-answer", got = &got)
    );
    assert!(
        answers.iter().all(|a| a.status == 201 || a.status == 409),
        "{}",
        t!(
            MESSAGES,
            "a-duplicate-refund-gets-the-201-or-409",
            got = &got
        )
    );
}
// ANCHOR_END: second_route

// ANCHOR: replay
#[tokio::test]
async fn a_repeat_replays_the_status_the_location_and_the_body_and_says_so() {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let first = post(addr, "/payments", A, Some("order-1"), BODY).await;
    let again = post(addr, "/payments", A, Some("order-1"), BODY).await;
    let first_got = format!("{first:?}");
    assert!(
        first.status == 201,
        "{}",
        t!(MESSAGES, "a-new-key-is-answered-201", got = &first_got)
    );
    assert!(
        first.replayed.is_none(),
        "{}",
        t!(MESSAGES, "the-first-answer-is-no-replay", got = &first_got)
    );
    assert!(
        first.location.is_some(),
        "{}",
        t!(MESSAGES, "the-route-says-where", got = &first_got)
    );
    assert!(
        (
            again.status,
            &again.body,
            &again.location,
            &again.content_type
        ) == (201, &first.body, &first.location, &first.content_type),
        "{}",
        t!(
            MESSAGES,
            "the-repeat-gets-the-first-answer-again",
            first = &first_got,
            got = format!("{again:?}")
        )
    );
    assert!(
        again.replayed.as_deref() == Some("true"),
        "{}",
        t!(MESSAGES, "a-replay-says-so", got = format!("{again:?}"))
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "the-repeat-paid-nothing", payments = payments)
    );
}
// ANCHOR_END: replay

// ANCHOR: other_request
#[rstest]
#[case::another_amount("/payments", r#"{"orderId":1,"amount":999}"#)]
#[case::another_route("/refunds", r#"{"paymentId":1,"amount":100}"#)]
#[tokio::test]
async fn the_same_key_with_another_request_is_refused_with_422(
    #[case] path: &str,
    #[case] body: &str,
) {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let first = post(addr, "/payments", A, Some("order-1"), BODY).await;
    let second = post(addr, path, A, Some("order-1"), body).await;
    let payments = db.payment_count().await;
    if path == "/payments" {
        let mut seen = harness::second_request(&first.reply(), &second.reply(), payments);
        seen["payments"] = payments.into();
        harness::observe("stage12.other_body", &seen);
    }
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "a-new-key-is-answered-201",
            got = format!("{first:?}")
        )
    );
    assert!(
        (second.status, &second.body["type"])
            == (
                422,
                &Value::from(format!("{}key-reused", payment_model::PROBLEM_BASE))
            ),
        "{}",
        t!(
            MESSAGES,
            "another-request-with-the-key-is-refused-with-422",
            path = path,
            body = body,
            got = format!("{second:?}")
        )
    );
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-refused-request-paid-nothing",
            payments = payments
        )
    );
    let refunds = db.count("SELECT count(*) FROM refunds").await;
    assert!(
        refunds == 0,
        "{}",
        t!(
            MESSAGES,
            "the-refused-request-refunded-nothing",
            refunds = refunds
        )
    );
}

#[tokio::test]
async fn the_same_body_written_differently_replays_the_201() {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let first = post(addr, "/payments", A, Some("order-1"), BODY).await;
    let again = post(
        addr,
        "/payments",
        A,
        Some("order-1"),
        r#"{ "amount": 100, "orderId": 1 }"#,
    )
    .await;
    assert!(
        (again.status, &again.body) == (201, &first.body),
        "{}",
        t!(
            MESSAGES,
            "the-same-body-written-differently-is-the-same-request",
            first = format!("{first:?}"),
            got = format!("{again:?}")
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: other_request

// ANCHOR: failed_route
#[tokio::test]
async fn a_failed_route_releases_its_key_so_a_retry_runs_it_again() {
    let db = database().await;
    db.execute(
        "CREATE FUNCTION refuse_payment() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'the payment is refused, for the test'; END $$;
         CREATE TRIGGER refuse_payment BEFORE INSERT ON payments
           FOR EACH ROW EXECUTE FUNCTION refuse_payment();",
    )
    .await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let failed = post(addr, "/payments", A, Some("order-1"), BODY).await;
    db.execute("DROP TRIGGER refuse_payment ON payments").await;
    let retry = post(addr, "/payments", A, Some("order-1"), BODY).await;
    assert!(
        failed.status == 500,
        "{}",
        t!(
            MESSAGES,
            "a-refused-payment-is-answered-500",
            got = format!("{failed:?}")
        )
    );
    assert!(
        (retry.status, retry.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "a-failed-route-frees-its-key",
            got = format!("{retry:?}")
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: failed_route

// ANCHOR: kept_or_freed
/// What the layer does with the key once the route has answered: keeps the
/// answer (a retry replays it, and the route never runs again for the key), or
/// frees the key (a retry runs the route again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Kept,
    Freed,
}

/// A route with no idempotency code of its own that answers `status` the first
/// time and 201 after, and counts how often it ran.
fn route_answering(status: u16, runs: Arc<AtomicUsize>) -> axum::routing::MethodRouter {
    axum::routing::post(move || async move {
        let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
        let status = if run == 1 { status } else { 201 };
        let status = StatusCode::from_u16(status).expect("a status");
        (status, axum::Json(serde_json::json!({ "run": run }))).into_response()
    })
}

#[rstest]
#[case::created(201, Key::Kept)]
#[case::bad_request(400, Key::Kept)]
#[case::not_found(404, Key::Kept)]
#[case::unprocessable(422, Key::Kept)]
#[case::internal_error(500, Key::Kept)]
#[case::bad_gateway(502, Key::Kept)]
#[case::request_timeout(408, Key::Freed)]
#[case::conflict(409, Key::Freed)]
#[case::too_early(425, Key::Freed)]
#[case::too_many_requests(429, Key::Freed)]
#[case::service_unavailable(503, Key::Freed)]
#[tokio::test]
async fn the_status_of_the_routes_answer_says_whether_it_is_kept_or_its_key_freed(
    #[case] status: u16,
    #[case] expected: Key,
) {
    let db = database().await;
    let runs = Arc::new(AtomicUsize::new(0));
    let layer = stage12::idempotency_layer(db.pool(PoolSize::of(5)), Config::default());
    let api = Router::new().route(
        "/payments",
        route_answering(status, runs.clone()).route_layer(layer),
    );
    let first = send(api.clone(), payment_request("order-1")).await;
    let retry = send(api, payment_request("order-1")).await;
    let seen = if retry.is_replayed() && runs.load(Ordering::SeqCst) == 1 {
        Key::Kept
    } else {
        Key::Freed
    };
    assert!(
        first.status == status,
        "{}",
        t!(
            MESSAGES,
            "the-layer-sends-the-routes-status",
            status = status,
            got = format!("{first:?}")
        )
    );
    let (first, got) = (format!("{first:?}"), format!("{retry:?}"));
    assert!(
        seen == expected,
        "{}",
        match expected {
            Key::Freed => t!(
                MESSAGES,
                "a-not-done-status-frees-the-key",
                status = status,
                first = &first,
                got = &got
            ),
            Key::Kept => t!(
                MESSAGES,
                "any-other-status-is-kept-and-replayed",
                status = status,
                first = &first,
                got = &got
            ),
        }
    );
}

#[tokio::test]
async fn a_body_that_fails_validation_frees_its_key_for_the_corrected_request() {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let invalid = post(addr, "/payments", A, Some("order-1"), r#"{"orderId":1}"#).await;
    let corrected = post(addr, "/payments", A, Some("order-1"), BODY).await;
    assert!(
        (invalid.status, &invalid.body["type"])
            == (
                400,
                &Value::from(format!("{}invalid-body", payment_model::PROBLEM_BASE))
            ),
        "{}",
        t!(
            MESSAGES,
            "a-body-without-an-amount-is-refused-by-the-route",
            got = format!("{invalid:?}")
        )
    );
    assert!(
        (corrected.status, corrected.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "a-refused-body-frees-its-key",
            got = format!("{corrected:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-corrected-request-is-the-only-payment",
            payments = payments
        )
    );
}
// ANCHOR_END: kept_or_freed

// ANCHOR: outcome_unknown
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lost_commit_acknowledgement_keeps_the_key_so_the_retry_does_not_pay_again() {
    let db = database().await;
    // The route's connections go through a relay that loses the server's answer
    // to the first payment INSERT, once the server has committed it.
    let relay = WireRelay::losing_the_answer_to(db.options(), "INSERT INTO payments").await;
    let api = api_with_route_pool(db.pool(PoolSize::of(5)), relay.pool(PoolSize::of(5)));

    let first = send(api.clone(), payment_request("order-1")).await;
    let paid = db.payment_count().await;
    let retry = send(api, payment_request("order-1")).await;
    harness::observe(
        "stage12.lost_acknowledgement",
        &serde_json::json!({
            "payments": db.payment_count().await,
            "retry_gets": what_a_retry_got(&retry),
        }),
    );

    assert!(
        relay.lost_an_answer(),
        "{}",
        t!(
            MESSAGES,
            "the-relay-lost-the-inserts-answer",
            got = format!("{first:?}")
        )
    );
    assert!(
        paid == 1,
        "{}",
        t!(
            MESSAGES,
            "postgresql-committed-the-payment-before-its-answer-was-lost",
            payments = paid
        )
    );
    assert!(
        first.status == 500,
        "{}",
        t!(
            MESSAGES,
            "a-broken-connection-is-answered-500",
            got = format!("{first:?}")
        )
    );
    assert!(
        (retry.status, &retry.body, retry.replayed.as_deref()) == (500, &first.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "an-unknown-outcome-is-kept-as-the-keys-answer",
            first = format!("{first:?}"),
            got = format!("{retry:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "one-payment-not-two", payments = payments)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_route_whose_session_ends_mid_payment_keeps_its_key_answered_outcome_unknown() {
    let db = database().await;
    let gate = PaymentGate::close(&db, 1).await;
    let api = stage12::router(db.pool(PoolSize::of(5)));
    let first = tokio::spawn(send(api.clone(), payment_request("order-1")));
    gate.wait_until_held_by(&db, 1, &first).await;
    // The session of the held payment is ended, as a server shutdown or an
    // administrator ends it: PostgreSQL says FATAL, and closes the connection.
    db.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_locks
         WHERE locktype = 'advisory' AND NOT granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .await;
    let first = within(
        CRASH_BOUND,
        &t!(MESSAGES, "the-request-whose-session-ended"),
        first,
    )
    .await;
    let first = answer_of(&t!(MESSAGES, "the-first-request"), first);
    gate.open().await;
    let retry = send(api, payment_request("order-1")).await;

    assert!(
        first.status == 500,
        "{}",
        t!(
            MESSAGES,
            "a-session-ended-mid-payment-is-answered-500",
            got = format!("{first:?}")
        )
    );
    assert!(
        (retry.status, &retry.body, retry.replayed.as_deref()) == (500, &first.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "a-fatal-keeps-the-500",
            first = format!("{first:?}"),
            got = format!("{retry:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 0,
        "{}",
        t!(MESSAGES, "the-price-of-not-knowing", payments = payments)
    );
}

/// How the route is left without a connection.
#[derive(Debug, Clone, Copy)]
enum NoConnection {
    /// Every connection of its pool is taken, past the pool's acquire timeout.
    AllTaken,
    /// Its pool was closed.
    Closed,
}

#[rstest]
#[case::pool_timed_out(NoConnection::AllTaken)]
#[case::pool_closed(NoConnection::Closed)]
#[tokio::test]
async fn a_route_that_gets_no_connection_frees_its_key(#[case] how: NoConnection) {
    let db = database().await;
    let layer_pool = db.pool(PoolSize::of(5));
    let route_pool = db.pool(PoolSize {
        max_connections: 1,
        acquire_timeout: Duration::from_millis(200),
    });
    let held = match how {
        NoConnection::AllTaken => Some(route_pool.acquire().await.expect("a connection")),
        NoConnection::Closed => {
            route_pool.close().await;
            None
        }
    };
    let first = send(
        api_with_route_pool(layer_pool.clone(), route_pool),
        payment_request("order-1"),
    )
    .await;
    drop(held);
    let retry = send(
        api_with_route_pool(layer_pool, db.pool(PoolSize::of(5))),
        payment_request("order-1"),
    )
    .await;
    let how = match how {
        NoConnection::AllTaken => t!(MESSAGES, "every-connection-of-its-pool-taken"),
        NoConnection::Closed => t!(MESSAGES, "its-pool-closed"),
    };
    assert!(
        first.status == 500,
        "{}",
        t!(
            MESSAGES,
            "a-route-without-a-connection-is-answered-500",
            how = &how,
            got = format!("{first:?}")
        )
    );
    assert!(
        (retry.status, retry.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "a-route-that-got-no-connection-frees-its-key",
            how = &how,
            got = format!("{retry:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-retrys-is-the-only-payment",
            payments = payments
        )
    );
}
// ANCHOR_END: outcome_unknown

// ANCHOR: route_layer
#[tokio::test]
async fn a_get_with_a_key_is_told_405_and_leaves_the_key_to_the_post() {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let get = call(
        addr,
        reqwest::Method::GET,
        "/payments",
        A,
        Some("order-1"),
        "",
    )
    .await;
    let reserved = db.count("SELECT count(*) FROM idempotent_requests").await;
    let post = post(addr, "/payments", A, Some("order-1"), BODY).await;
    assert!(
        get.status == 405,
        "{}",
        t!(
            MESSAGES,
            "no-route-answers-get-payments",
            got = format!("{get:?}")
        )
    );
    assert!(
        reserved == 0,
        "{}",
        t!(
            MESSAGES,
            "a-request-no-route-answers-reserves-no-key",
            keys = reserved
        )
    );
    assert!(
        (post.status, post.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "the-post-is-the-keys-first-request",
            got = format!("{post:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "the-post-paid-once", payments = payments)
    );
}
// ANCHOR_END: route_layer

// ANCHOR: answer_not_kept
#[tokio::test]
async fn an_answer_too_large_to_keep_is_sent_and_its_retries_are_told_it_was_not_kept() {
    let db = database().await;
    let config = Config {
        max_answer_bytes: 16,
        ..Config::default()
    };
    let layer = stage12::router_with(db.pool(PoolSize::of(5)), config);
    let first = send(layer.clone(), payment_request("order-1")).await;
    let retry = send(layer.clone(), payment_request("order-1")).await;
    // Even once the lease has passed.
    the_lease_passes(&db).await;
    let after_the_lease = send(layer, payment_request("order-1")).await;
    let retry_gets = match (retry.status, retry.replayed.as_deref()) {
        (410, _) => "not-kept",
        (201, Some("true")) => "replayed",
        (201, _) => "paid",
        (409, _) => "409",
        _ => "other",
    };
    harness::observe(
        "stage12.answer_not_kept",
        &serde_json::json!({
            "retry_gets": retry_gets,
            "payments": db.payment_count().await,
        }),
    );
    assert!(
        (first.status, first.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "an-answer-too-large-to-keep-is-sent",
            got = format!("{first:?}")
        )
    );
    assert!(
        first.location.is_some() && first.body["id"].is_string(),
        "{}",
        t!(
            MESSAGES,
            "the-whole-answer-arrives",
            got = format!("{first:?}")
        )
    );
    for again in [&retry, &after_the_lease] {
        assert!(
            (again.status, &again.body["type"])
                == (
                    410,
                    &Value::from(format!("{}answer-not-kept", payment_model::PROBLEM_BASE))
                ),
            "{}",
            t!(
                MESSAGES,
                "a-retry-is-told-the-answer-was-not-kept",
                got = format!("{again:?}")
            )
        );
    }
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "an-answered-key-never-runs-the-route-again",
            payments = payments
        )
    );
}
// ANCHOR_END: answer_not_kept

// ANCHOR: fingerprint_limits
#[rstest]
#[case::another_query_string("/payments?amount=999", "application/json")]
#[case::another_content_type("/payments", "text/plain")]
#[tokio::test]
async fn the_fingerprint_ignores_the_query_string_and_the_headers(
    #[case] uri: &str,
    #[case] content_type: &str,
) {
    let db = database().await;
    let layer = stage12::router(db.pool(PoolSize::of(5)));
    let first = send(layer.clone(), payment_request("order-1")).await;
    let again = send(layer, payment_request_to(uri, content_type, "order-1")).await;
    assert!(
        (again.status, &again.body, again.replayed.as_deref()) == (201, &first.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "the-fingerprint-ignores-the-query-string-and-the-headers",
            uri = uri,
            content_type = content_type,
            first = format!("{first:?}"),
            got = format!("{again:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-replayed-request-paid-nothing-more",
            payments = payments
        )
    );
}
// ANCHOR_END: fingerprint_limits

// ANCHOR: crash
/// Sends client A's payment with `key` through `router`, and makes it die at
/// `crash`: the request's future is dropped there, as a crashed server drops it.
async fn crash_at(crash: &CrashPoint, router: Router, key: &str) {
    let first = stopped_after_its_route(crash, router, payment_request(key)).await;
    first.abort();
    assert!(
        first.await.is_err_and(|e| e.is_cancelled()),
        "{}",
        t!(MESSAGES, "the-request-died-at-the-crash-point")
    );
}

#[tokio::test]
async fn a_crash_after_the_route_commits_and_before_the_layer_stores_makes_the_retry_pay_again() {
    let db = database().await;
    let crash = CrashPoint::armed();
    let config = Config {
        after_route: Some(crash.clone()),
        ..Config::default()
    };
    let layer = stage12::router_with(db.pool(PoolSize::of(5)), config);

    crash_at(&crash, layer.clone(), "order-1").await;
    let paid_before_the_retry = db.payment_count().await;
    let retry = send(layer.clone(), payment_request("order-1")).await;
    the_lease_passes(&db).await;
    let after_the_lease = send(layer, payment_request("order-1")).await;
    let payments = db.payment_count().await;
    harness::observe(
        "stage12.crash_in_layer",
        &serde_json::json!({
            "payments": payments,
            "retry": retry.status,
            "after_lease": after_the_lease.status,
            "retries": format!(
                "{}-{}",
                what_a_retry_got(&retry),
                what_a_retry_got(&after_the_lease)
            ),
        }),
    );

    assert!(
        paid_before_the_retry == 1,
        "{}",
        t!(
            MESSAGES,
            "the-route-committed-before-the-request-died",
            payments = paid_before_the_retry
        )
    );
    assert!(
        retry.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-reserved-key-without-an-answer-is-409",
            got = format!("{retry:?}")
        )
    );
    assert!(
        (after_the_lease.status, after_the_lease.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "past-the-lease-the-layer-takes-the-key-over",
            got = format!("{after_the_lease:?}")
        )
    );
    assert!(
        payments == 2,
        "{}",
        t!(
            MESSAGES,
            "the-limit-a-crash-in-the-gap-pays-again",
            payments = payments
        )
    );
}

// ANCHOR: lease
#[tokio::test]
async fn a_request_past_its_lease_is_run_again_by_a_duplicate_and_cannot_change_its_answer() {
    let db = database().await;
    let pause = CrashPoint::armed();
    let config = Config {
        after_route: Some(pause.clone()),
        ..Config::default()
    };
    let layer = stage12::router_with(db.pool(PoolSize::of(5)), config);

    // The first request pays, and stops before it stores its answer.
    let first = stopped_after_its_route(&pause, layer.clone(), payment_request("order-1")).await;
    // It is slower than its lease: a duplicate takes the key over, pays, and
    // stores its answer.
    the_lease_passes(&db).await;
    let duplicate = send(layer.clone(), payment_request("order-1")).await;
    // Then the first request wakes, and tries to store its own answer.
    pause.resume();
    let first = within(CRASH_BOUND, &t!(MESSAGES, "the-first-request"), first).await;
    let first = answer_of(&t!(MESSAGES, "the-first-request"), first);
    let retry = send(layer, payment_request("order-1")).await;
    let payments = db.payment_count().await;
    let retry_gets = if retry.body == duplicate.body {
        "duplicate"
    } else if retry.status == 201 {
        "first"
    } else {
        "refused"
    };
    harness::observe(
        "stage12.stale_store",
        &serde_json::json!({ "payments": payments, "retry_gets": retry_gets }),
    );

    assert!(
        (duplicate.status, duplicate.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "past-the-lease-the-duplicate-takes-the-key-over",
            got = format!("{duplicate:?}")
        )
    );
    assert!(
        payments == 2,
        "{}",
        t!(
            MESSAGES,
            "the-leases-cost-a-slow-route-is-run-again",
            payments = payments
        )
    );
    assert!(
        (retry.status, &retry.body, retry.replayed.as_deref())
            == (201, &duplicate.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "the-keys-answer-is-its-lease-holders",
            duplicate = format!("{duplicate:?}"),
            got = format!("{retry:?}")
        )
    );
    assert!(
        (first.status, &first.body) == (201, &duplicate.body),
        "{}",
        t!(
            MESSAGES,
            "a-request-that-lost-its-lease-answers-what-the-key-says",
            duplicate = format!("{duplicate:?}"),
            got = format!("{first:?}")
        )
    );
}
// ANCHOR_END: lease

#[tokio::test]
async fn the_same_crash_against_the_in_route_design_pays_once() {
    let db = database().await;
    let crash = CrashPoint::armed();
    // Stage 8's route: the key, the payment and the answer in one transaction. The
    // request dies at the same point: after the route returned, before the answer
    // leaves the server.
    let at_the_crash = crash.clone();
    let in_route = stage8::router(db.pool(PoolSize::of(5))).layer(axum::middleware::map_response(
        move |response: Response| {
            let crash = at_the_crash.clone();
            async move {
                crash.pass().await;
                response
            }
        },
    ));

    crash_at(&crash, in_route.clone(), "order-1").await;
    let retry = send(in_route, payment_request("order-1")).await;
    let payments = db.payment_count().await;
    harness::observe(
        "stage12.crash_in_route",
        &serde_json::json!({ "payments": payments, "retry": retry.status }),
    );
    assert!(
        (retry.status, retry.replayed.as_deref()) == (201, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "in-the-route-the-answer-was-committed-with-the-payment",
            got = format!("{retry:?}")
        )
    );
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "in-the-route-one-payment", payments = payments)
    );
}
// ANCHOR_END: crash

// ANCHOR: lease_enforced
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_route_still_running_when_its_lease_ends_is_answered_outcome_unknown_and_never_run_again()
{
    let db = database().await;
    let config = Config {
        lease: Duration::from_millis(300),
        ..Config::default()
    };
    let api = stage12::router_with(db.pool(PoolSize::of(5)), config);
    // The route is held in its payment INSERT, for longer than the lease.
    let gate = PaymentGate::close(&db, 1).await;
    let first = tokio::spawn(send(api.clone(), payment_request("order-1")));
    gate.wait_until_held_by(&db, 1, &first).await;
    let first = within(
        CRASH_BOUND,
        &t!(
            MESSAGES,
            "the-answer-to-a-request-whose-route-outlives-its-lease"
        ),
        first,
    )
    .await;
    let first = answer_of(&t!(MESSAGES, "the-first-request"), first);
    // The lease has ended: a duplicate that found the key unanswered would take
    // it over and run the route again (it would wait at the gate too).
    let duplicate = within(
        CRASH_BOUND,
        &t!(MESSAGES, "the-duplicates-answer"),
        send(api, payment_request("order-1")),
    )
    .await;
    gate.open().await;

    assert!(
        (first.status, &first.body["type"])
            == (
                500,
                &Value::from(format!("{}outcome-unknown", payment_model::PROBLEM_BASE))
            ),
        "{}",
        t!(
            MESSAGES,
            "a-route-past-its-lease-is-answered-outcome-unknown",
            got = format!("{first:?}")
        )
    );
    assert!(
        (
            duplicate.status,
            &duplicate.body,
            duplicate.replayed.as_deref()
        ) == (500, &first.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "the-key-keeps-the-outcome-unknown",
            first = format!("{first:?}"),
            got = format!("{duplicate:?}")
        )
    );
}
// ANCHOR_END: lease_enforced

// ANCHOR: takeover_same_request
#[tokio::test]
async fn a_dead_reservation_is_taken_over_only_by_the_same_request() {
    let db = database().await;
    let crash = CrashPoint::armed();
    let config = Config {
        after_route: Some(crash.clone()),
        ..Config::default()
    };
    let layer = stage12::router_with(db.pool(PoolSize::of(5)), config);
    crash_at(&crash, layer.clone(), "order-1").await;
    the_lease_passes(&db).await;

    let other = send(
        layer.clone(),
        payment_request_with("order-1", r#"{"orderId":1,"amount":999}"#),
    )
    .await;
    let retry = send(layer, payment_request("order-1")).await;

    assert!(
        other.status == 422,
        "{}",
        t!(
            MESSAGES,
            "another-request-never-takes-a-dead-reservation-over",
            got = format!("{other:?}")
        )
    );
    assert!(
        (
            retry.status,
            &retry.body["amount"],
            retry.replayed.as_deref()
        ) == (201, &Value::from(100), None),
        "{}",
        t!(
            MESSAGES,
            "the-clients-own-retry-takes-the-key-over",
            got = format!("{retry:?}")
        )
    );
}
// ANCHOR_END: takeover_same_request

// ANCHOR: token_never_reused
/// A stale request, and a key reserved again after it:
/// 1. A's route answers (pays, or fails and makes nothing), and A stops before it
///    stores or releases: it is slower than its lease;
/// 2. B takes the key over; its payment fails, and B releases the key;
/// 3. C reserves the key afresh, and is held in its payment;
/// 4. A wakes, and stores or releases with the lease it was given.
struct StaleRequest {
    api: Router,
    gate: PaymentGate,
    a: Answer,
    b: Answer,
    c: JoinHandle<Answer>,
}

async fn a_stale_request_after_its_key_was_reserved_again(
    db: &TestDb,
    a_pays: bool,
) -> StaleRequest {
    install_refusals(db).await;
    if !a_pays {
        refuse_payments(db).await;
    }
    let pause = CrashPoint::armed();
    let config = Config {
        after_route: Some(pause.clone()),
        ..Config::default()
    };
    let api = stage12::router_with(db.pool(PoolSize::of(5)), config);
    let a = stopped_after_its_route(&pause, api.clone(), payment_request("order-1")).await;

    the_lease_passes(db).await;
    refuse_payments(db).await;
    let b = send(api.clone(), payment_request("order-1")).await;

    accept_payments(db).await;
    let gate = PaymentGate::close(db, 1).await;
    let c = tokio::spawn(send(api.clone(), payment_request("order-1")));
    gate.wait_until_held_by(db, 1, &c).await;

    pause.resume();
    let a = within(CRASH_BOUND, &t!(MESSAGES, "the-stale-request"), a).await;
    let a = answer_of(&t!(MESSAGES, "the-stale-request"), a);
    StaleRequest { api, gate, a, b, c }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stale_release_cannot_free_the_key_once_it_is_reserved_again() {
    let db = database().await;
    let StaleRequest { api, gate, a, b, c } =
        a_stale_request_after_its_key_was_reserved_again(&db, false).await;
    // D, a duplicate, while C is in flight: told 409, or (if A freed C's key) it
    // reserves the key and is held at the gate beside C.
    let mut d = tokio::spawn(send(api, payment_request("order-1")));
    let d_answered_first = tokio::select! {
        answered = &mut d => Some(answer_of(&t!(MESSAGES, "request-d"), answered)),
        () = gate.wait_until_held(&db, 2) => None,
    };
    gate.open().await;
    let c = within(CRASH_BOUND, &t!(MESSAGES, "request-c"), c).await;
    let c = answer_of(&t!(MESSAGES, "request-c"), c);
    let d = match d_answered_first {
        Some(d) => d,
        None => answer_of(
            &t!(MESSAGES, "request-d"),
            within(CRASH_BOUND, &t!(MESSAGES, "request-d"), d).await,
        ),
    };
    let payments = db.payment_count().await;

    assert!(
        b.status == 500,
        "{}",
        t!(MESSAGES, "bs-payment-was-refused", got = format!("{b:?}"))
    );
    assert!(
        d.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-stale-release-must-not-free-cs-key",
            got = format!("{d:?}")
        )
    );
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "c-alone-paid", payments = payments)
    );
    assert!(
        (c.status, c.replayed.as_deref()) == (201, None),
        "{}",
        t!(MESSAGES, "c-held-the-key-and-paid", got = format!("{c:?}"))
    );
    assert!(
        a.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-lost-its-key-its-release-changes-nothing",
            got = format!("{a:?}")
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stale_store_cannot_answer_for_the_key_once_it_is_reserved_again() {
    let db = database().await;
    let StaleRequest { api, gate, a, b, c } =
        a_stale_request_after_its_key_was_reserved_again(&db, true).await;
    gate.open().await;
    let c = within(CRASH_BOUND, &t!(MESSAGES, "request-c"), c).await;
    let c = answer_of(&t!(MESSAGES, "request-c"), c);
    let retry = send(api, payment_request("order-1")).await;

    assert!(
        b.status == 500,
        "{}",
        t!(MESSAGES, "bs-payment-was-refused", got = format!("{b:?}"))
    );
    assert!(
        (c.status, c.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "a-stale-store-must-not-answer-for-cs-key",
            c = format!("{c:?}"),
            a = format!("{a:?}")
        )
    );
    assert!(
        (retry.status, &retry.body, retry.replayed.as_deref()) == (201, &c.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "the-keys-answer-is-cs",
            c = format!("{c:?}"),
            got = format!("{retry:?}")
        )
    );
    assert!(
        a.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-lost-its-key-its-store-changes-nothing",
            got = format!("{a:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 2,
        "{}",
        t!(MESSAGES, "a-and-c-both-paid", payments = payments)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stale_release_queued_behind_a_take_over_changes_nothing() {
    let db = database().await;
    install_refusals(&db).await;
    refuse_payments(&db).await;
    let pause = CrashPoint::armed();
    let config = Config {
        after_route: Some(pause.clone()),
        ..Config::default()
    };
    let api = stage12::router_with(db.pool(PoolSize::of(5)), config);
    // A's payment fails (nothing done); A stops before it releases the key, and
    // its lease passes.
    let a = stopped_after_its_route(&pause, api.clone(), payment_request("order-1")).await;
    the_lease_passes(&db).await;
    accept_payments(&db).await;
    // A test transaction holds the key's row: B's take-over queues on it, and
    // A's release queues behind B's take-over.
    let mut holder = db.connect().await;
    let mut row_lock = holder.begin().await.expect("a transaction");
    row_lock
        .execute("SELECT * FROM idempotent_requests FOR UPDATE")
        .await
        .expect("the row lock");
    let gate = PaymentGate::close(&db, 1).await;
    let b = tokio::spawn(send(api.clone(), payment_request("order-1")));
    wait_for_lock_waiters(&db, 1).await;
    pause.resume();
    wait_for_lock_waiters(&db, 2).await;
    row_lock.commit().await.expect("the row lock ends");
    // B takes the key over and is held in its payment; A's release, checked
    // again against the row B changed, matches nothing.
    gate.wait_until_held_by(&db, 1, &b).await;
    let a = within(CRASH_BOUND, &t!(MESSAGES, "the-stale-request"), a).await;
    let a = answer_of(&t!(MESSAGES, "the-stale-request"), a);
    let d = within(
        CRASH_BOUND,
        &t!(MESSAGES, "the-duplicates-answer"),
        send(api, payment_request("order-1")),
    )
    .await;
    gate.open().await;
    let b = within(CRASH_BOUND, &t!(MESSAGES, "request-b"), b).await;
    let b = answer_of(&t!(MESSAGES, "request-b"), b);

    assert!(
        a.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-release-queued-behind-a-take-over-deletes-nothing",
            got = format!("{a:?}")
        )
    );
    assert!(
        d.status == 409,
        "{}",
        t!(
            MESSAGES,
            "b-holds-the-key-a-duplicate-is-told-409",
            got = format!("{d:?}")
        )
    );
    assert!(
        (b.status, b.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "b-took-the-key-over-and-paid",
            got = format!("{b:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(MESSAGES, "b-alone-paid", payments = payments)
    );
}
// ANCHOR_END: token_never_reused

// ANCHOR: clean_up_then_take_over
/// A clean-up (a job that deletes dead reservations, or stage 9's reaper) and a
/// take-over meet on the key's row: the clean-up deletes it first, and the
/// take-over's INSERT, queued behind the deletion, makes the row again. Its lease
/// comes from the sequence: one the stale request never held.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_take_over_queued_behind_a_clean_up_owns_the_key_the_stale_request_cannot_answer_for() {
    let db = database().await;
    let pause = CrashPoint::armed();
    let config = Config {
        after_route: Some(pause.clone()),
        ..Config::default()
    };
    let api = stage12::router_with(db.pool(PoolSize::of(5)), config);
    // A pays, and stops before it stores its answer; its lease passes.
    let a = stopped_after_its_route(&pause, api.clone(), payment_request("order-1")).await;
    the_lease_passes(&db).await;
    // The clean-up deletes the dead reservation, and has not committed yet.
    let mut cleaner = db.connect().await;
    let mut clean_up = cleaner.begin().await.expect("a transaction");
    clean_up
        .execute("DELETE FROM idempotent_requests")
        .await
        .expect("the clean-up");
    // B, the client's retry, queues behind the deletion; once it commits, B's
    // INSERT finds no row and makes one, and B is held in its payment.
    let gate = PaymentGate::close(&db, 1).await;
    let b = tokio::spawn(send(api.clone(), payment_request("order-1")));
    wait_for_lock_waiters(&db, 1).await;
    clean_up.commit().await.expect("the clean-up commits");
    gate.wait_until_held_by(&db, 1, &b).await;
    // A wakes and stores its answer with the lease it was given.
    pause.resume();
    let a = within(CRASH_BOUND, &t!(MESSAGES, "the-stale-request"), a).await;
    let a = answer_of(&t!(MESSAGES, "the-stale-request"), a);
    gate.open().await;
    let b = within(CRASH_BOUND, &t!(MESSAGES, "request-b"), b).await;
    let b = answer_of(&t!(MESSAGES, "request-b"), b);
    let retry = send(api, payment_request("order-1")).await;

    assert!(
        a.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-stale-store-must-not-match-a-row-made-again",
            got = format!("{a:?}")
        )
    );
    assert!(
        (b.status, b.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "b-owns-the-key-after-the-clean-up",
            got = format!("{b:?}")
        )
    );
    assert!(
        (retry.status, &retry.body, retry.replayed.as_deref()) == (201, &b.body, Some("true")),
        "{}",
        t!(
            MESSAGES,
            "the-keys-answer-is-bs",
            b = format!("{b:?}"),
            got = format!("{retry:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 2,
        "{}",
        t!(MESSAGES, "a-and-b-both-paid", payments = payments)
    );
}
// ANCHOR_END: clean_up_then_take_over

// ANCHOR: read_after_release
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_freed_between_the_reservation_and_the_read_is_reserved_again() {
    let db = database().await;
    // The key is reserved by a request in flight (its row, as the layer writes it).
    let fingerprint = stage12::fingerprint(&Method::POST, "/payments", BODY);
    let mut arrange = db.connect().await;
    sqlx::query(
        "INSERT INTO idempotent_requests (client_id, key, fingerprint)
         SELECT id, 'order-1', $1 FROM clients WHERE name = 'client-a'",
    )
    .bind(&fingerprint)
    .execute(&mut arrange)
    .await
    .expect("the reservation");
    // A test transaction locks the key's row: the duplicate's reservation waits on it.
    let mut row_lock = arrange.begin().await.expect("a transaction");
    row_lock
        .execute("SELECT * FROM idempotent_requests FOR UPDATE")
        .await
        .expect("the row lock");
    let api = stage12::router(db.pool(PoolSize::of(5)));
    let duplicate = tokio::spawn(send(api, payment_request("order-1")));
    wait_for_lock_waiters(&db, 1).await;
    // Another transaction asks for the whole table, and queues behind both: when
    // the duplicate's reservation ends (the key is in flight: no lease), the
    // duplicate's read of the row queues behind it in turn.
    let (locked, table_locked) = tokio::sync::oneshot::channel();
    let (delete, deleting) = tokio::sync::oneshot::channel::<()>();
    let mut release = db.connect().await;
    let releaser = tokio::spawn(async move {
        let mut tx = release.begin().await.expect("a transaction");
        tx.execute("LOCK TABLE idempotent_requests IN ACCESS EXCLUSIVE MODE")
            .await
            .expect("the table lock");
        let _ = locked.send(());
        let _ = deleting.await;
        // The key's request failed and releases the key (or a clean-up deletes it).
        tx.execute("DELETE FROM idempotent_requests")
            .await
            .expect("the release");
        tx.commit().await.expect("the release commits");
    });
    wait_for_table_lock_waiters(&db, 1).await;
    row_lock.commit().await.expect("the row lock ends");
    within(CRASH_BOUND, &t!(MESSAGES, "the-table-lock"), table_locked)
        .await
        .expect("the table lock");
    wait_for_table_lock_waiters(&db, 1).await;
    let _ = delete.send(());
    within(CRASH_BOUND, &t!(MESSAGES, "the-release"), releaser)
        .await
        .expect("the release");
    let duplicate = within(
        CRASH_BOUND,
        &t!(MESSAGES, "the-duplicates-answer"),
        duplicate,
    )
    .await;
    let duplicate = answer_of(&t!(MESSAGES, "the-duplicate"), duplicate);

    assert!(
        (duplicate.status, duplicate.replayed.as_deref()) == (201, None),
        "{}",
        t!(
            MESSAGES,
            "a-key-freed-before-the-read-is-reserved-again",
            got = format!("{duplicate:?}")
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-request-that-reserved-the-key-again-is-its-only-payment",
            payments = payments
        )
    );
}
// ANCHOR_END: read_after_release
