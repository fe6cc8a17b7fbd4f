//! Stage 12: an idempotency layer around routes that have no idempotency code of
//! their own, tested through a real server on 127.0.0.1 and a real HTTP client;
//! and its limit, a crash between the route's commit and the layer's store,
//! injected at that exact point.

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use harness::{
    Outcome, PaymentGate, PoolSize, ReplyKind, Schema, TestDb, fire_concurrently,
    fire_while_first_is_held, within,
};
use payment_model::Reply;
use rstest::rstest;
use serde_json::Value;
use stage12::{Config, CrashPoint, Router};
use tower::ServiceExt;

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

/// A fresh database with the two clients.
async fn database() -> TestDb {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    db
}

async fn serve(router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener has an address");
    tokio::spawn(async move {
        if let Err(e) = stage12::serve(listener, router).await {
            panic!("the server stopped: {e}");
        }
    });
    addr
}

/// What came back: status, the headers that matter here, and the JSON body.
#[derive(Debug, Clone, PartialEq)]
struct Answer {
    status: u16,
    content_type: String,
    /// `Idempotent-Replayed`, if present.
    replayed: Option<String>,
    location: Option<String>,
    body: Value,
}

impl Answer {
    fn reply(&self) -> Reply {
        Reply {
            status: self.status,
            body: self.body.clone(),
        }
    }

    fn of(status: u16, header: impl Fn(&str) -> Option<String>, text: &[u8]) -> Self {
        let body = serde_json::from_slice(text).unwrap_or_else(|_| {
            panic!(
                "the body is not JSON: {:?} (status {status})",
                String::from_utf8_lossy(text)
            )
        });
        Self {
            status,
            content_type: header("content-type").unwrap_or_default(),
            replayed: header("idempotent-replayed"),
            location: header("location"),
            body,
        }
    }
}

/// `POST path` over HTTP.
async fn post(
    addr: SocketAddr,
    path: &str,
    authorization: Option<&str>,
    key: Option<&str>,
    body: &str,
) -> Answer {
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) => panic!(
            "POST {path} got no HTTP answer ({e}); did the layer panic (a todo!() not yet written)?"
        ),
    };
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.bytes().await.expect("the body arrives");
    Answer::of(
        status,
        |name| Some(headers.get(name)?.to_str().ok()?.to_owned()),
        &text,
    )
}

/// `POST /payments` by client A with `key`, as a request value: for the tests
/// that call the router directly, to drop a request at an exact point.
fn payment_request(key: &str) -> Request {
    Request::post("/payments")
        .header("content-type", "application/json")
        .header("authorization", "Bearer token-of-a")
        .header("idempotency-key", key)
        .body(Body::from(BODY))
        .expect("a valid request")
}

/// Sends `request` through `router`, without a network in between.
async fn send(router: Router, request: Request) -> Answer {
    let response: Response = match router.oneshot(request).await {
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
    assert_eq!(
        (answer.status, answer.content_type.as_str()),
        (status, "application/problem+json"),
        "the layer refuses the request with a problem, before the route can pay: {answer:?}"
    );
    assert_eq!(
        answer.body["type"],
        format!("{}{problem_type}", payment_model::PROBLEM_BASE),
        "{answer:?}"
    );
    assert_eq!(
        db.payment_count().await,
        0,
        "the route did not run: a route behind the layer never pays without a key"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM idempotent_requests").await,
        0,
        "nothing was reserved"
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
    assert_eq!(
        outcome.payments, 20,
        "the route has no idempotency code: each request pays. {outcome}"
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
    assert_eq!(
        outcome.payments, 1,
        "the same route behind the layer pays once for 20 requests with one key. The \
         layer must reserve the key (a statement of its own, committed) before it runs \
         the route. Got: {outcome}"
    );
    assert_eq!(
        answers[0].status, 201,
        "the first request pays: {answers:?}"
    );
    assert_eq!(
        outcome.count(ReplyKind::Status(409)),
        REQUESTS - 1,
        "every duplicate arrived while the first was in flight (reserved, not yet \
         answered): each is told 409, retry later. Got: {outcome}"
    );

    let retry = post(
        serve(stage12::router(pool)).await,
        "/payments",
        A,
        Some("order-1"),
        BODY,
    )
    .await;
    assert_eq!(
        (retry.status, &retry.body, retry.replayed.as_deref()),
        (201, &answers[0].body, Some("true")),
        "once the first is answered, a retry gets its 201, marked as a replay: {retry:?}"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
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
    assert_eq!(
        refunds, 1,
        "20 POST /refunds with one key make one refund: {answers:?}"
    );
    let created: Vec<&Answer> = answers.iter().filter(|a| a.status == 201).collect();
    assert!(
        !created.is_empty() && created.iter().all(|a| a.body == created[0].body),
        "every 201 is the one refund's answer: {answers:?}"
    );
    assert!(
        answers.iter().all(|a| a.status == 201 || a.status == 409),
        "a duplicate gets the 201, or 409 while the first is in flight: {answers:?}"
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
    assert_eq!(first.status, 201, "{first:?}");
    assert_eq!(
        first.replayed, None,
        "the first answer is no replay: {first:?}"
    );
    assert!(first.location.is_some(), "the route says where: {first:?}");
    assert_eq!(
        (
            again.status,
            &again.body,
            &again.location,
            &again.content_type
        ),
        (201, &first.body, &first.location, &first.content_type),
        "the repeat gets the first answer again: status, body and the headers worth replaying, stored by the layer after the route answered; not a new payment"
    );
    assert_eq!(
        again.replayed.as_deref(),
        Some("true"),
        "a replay says so: {again:?}"
    );
    assert_eq!(db.payment_count().await, 1, "the repeat paid nothing");
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
    assert_eq!(first.status, 201, "{first:?}");
    assert_eq!(
        (second.status, &second.body["type"]),
        (
            422,
            &Value::from(format!("{}key-reused", payment_model::PROBLEM_BASE))
        ),
        "the key was used for another request (the fingerprint covers the method, the \
         path and the body): refuse it with 422. Got: {second:?}"
    );
    assert_eq!(payments, 1, "nothing more was paid");
    assert_eq!(
        db.count("SELECT count(*) FROM refunds").await,
        0,
        "nothing was refunded"
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
    assert_eq!(
        (again.status, &again.body),
        (201, &first.body),
        "the same request written with its fields in another order is the same request: \
         fingerprint the body normalised (stage 4's request_hash). Got: {again:?}"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
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
    assert_eq!(failed.status, 500, "{failed:?}");
    assert_eq!(
        (retry.status, retry.replayed.as_deref()),
        (201, None),
        "a route's 5xx is not stored: the key is released, and the retry runs the \
         route. Got: {retry:?}"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: failed_route

// ANCHOR: crash
/// Sends client A's payment with `key` through `router`, and makes it die at
/// `crash`: the request's future is dropped there, as a crashed server drops it.
async fn crash_at(crash: &CrashPoint, router: Router, key: &str) {
    let mut first = tokio::spawn(router.oneshot(payment_request(key)));
    let stopped = within(CRASH_BOUND, "the request to reach the crash point", async {
        tokio::select! {
            () = crash.reached() => true,
            _ = &mut first => false,
        }
    })
    .await;
    assert!(
        stopped,
        "the request ended without stopping at the crash point: call \
         `config.after_route`'s `pass()` after the route returns and before the answer \
         is stored"
    );
    first.abort();
    assert!(
        first.await.is_err_and(|e| e.is_cancelled()),
        "the request died at the crash point"
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
    // The lease passes (moved back an hour rather than waited for).
    db.execute("UPDATE idempotent_requests SET reserved_at = reserved_at - interval '1 hour'")
        .await;
    let after_the_lease = send(layer, payment_request("order-1")).await;
    let payments = db.payment_count().await;
    harness::observe(
        "stage12.crash_in_layer",
        &serde_json::json!({
            "payments": payments,
            "retry": retry.status,
            "after_lease": after_the_lease.status,
        }),
    );

    assert_eq!(
        paid_before_the_retry, 1,
        "the route committed its payment before the request died"
    );
    assert_eq!(
        retry.status, 409,
        "the key is reserved and has no answer: the layer cannot tell a request in \
         flight from a dead one, so it says 409. Got: {retry:?}"
    );
    assert_eq!(
        (after_the_lease.status, after_the_lease.replayed.as_deref()),
        (201, None),
        "past the lease the layer takes the key over and runs the route again: it has \
         no way to know that the route's effect was committed. Got: {after_the_lease:?}"
    );
    assert_eq!(
        payments, 2,
        "THE LIMIT, kept as the lesson: the effect committed in the route's transaction, \
         the answer was to be stored in the layer's; a crash between the two makes the \
         retry pay again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_route_still_running_past_its_lease_is_run_again_by_a_duplicate() {
    let db = database().await;
    let addr = serve(stage12::router(db.pool(PoolSize::of(5)))).await;
    let gate = PaymentGate::close(&db, 1).await;
    let first = tokio::spawn(post(addr, "/payments", A, Some("order-1"), BODY));
    gate.wait_until_held_by(&db, 1, &first).await;
    // The first request is slower than the lease (its reservation moved back an hour).
    db.execute("UPDATE idempotent_requests SET reserved_at = reserved_at - interval '1 hour'")
        .await;
    let duplicate = tokio::spawn(post(addr, "/payments", A, Some("order-1"), BODY));
    gate.wait_until_held_by(&db, 2, &duplicate).await;
    gate.open().await;
    let (first, duplicate) = within(CRASH_BOUND, "the two requests", async {
        (first.await, duplicate.await)
    })
    .await;
    let (first, duplicate) = (
        first.expect("the first request"),
        duplicate.expect("the duplicate"),
    );
    assert_eq!(
        (first.status, duplicate.status),
        (201, 201),
        "{first:?} {duplicate:?}"
    );
    assert_eq!(
        db.payment_count().await,
        2,
        "a reservation older than the lease is taken for a dead request's: the duplicate \
         takes the key over while the first is still running, and pays again. The lease \
         must be longer than any route can take"
    );
}

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
    assert_eq!(
        (retry.status, retry.replayed.as_deref()),
        (201, Some("true")),
        "the answer was committed with the payment: the retry replays it. Got: {retry:?}"
    );
    assert_eq!(
        payments, 1,
        "one payment: the key and the effect were written together"
    );
}
// ANCHOR_END: crash
