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
    Answer, Call, Outcome, PoolSize, ReplyKind, Schema, TestDb, fire_concurrently,
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
    Request::post(uri)
        .header("content-type", content_type)
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
    assert_eq!(get.status, 405, "no route answers GET /payments: {get:?}");
    assert_eq!(
        reserved, 0,
        "a request no route answers reserves no key: the layer runs only for a request a \
         route answers (`MethodRouter::route_layer`; `MethodRouter::layer` also wraps \
         the 405)"
    );
    assert_eq!(
        (post.status, post.replayed.as_deref()),
        (201, None),
        "the POST with the key is the key's first request, and pays: {post:?}"
    );
    assert_eq!(db.payment_count().await, 1);
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
    // Even once the lease has passed (moved back an hour rather than waited for).
    db.execute("UPDATE idempotent_requests SET reserved_at = reserved_at - interval '1 hour'")
        .await;
    let after_the_lease = send(layer, payment_request("order-1")).await;
    assert_eq!(
        (first.status, first.replayed.as_deref()),
        (201, None),
        "the payment was made: its answer is sent, however large, and not a 500 that \
         would invite a retry. Got: {first:?}"
    );
    assert!(
        first.location.is_some() && first.body["id"].is_string(),
        "the whole answer arrives: {first:?}"
    );
    for again in [&retry, &after_the_lease] {
        assert_eq!(
            (again.status, &again.body["type"]),
            (
                410,
                &Value::from(format!("{}answer-not-kept", payment_model::PROBLEM_BASE))
            ),
            "the key was answered, and its answer was too large to keep: a retry is told \
             so (410, not 409, which a client retries forever). Got: {again:?}"
        );
    }
    assert_eq!(
        db.payment_count().await,
        1,
        "the key is answered: no retry runs the route again, even past the lease"
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
    assert_eq!(
        (again.status, &again.body, again.replayed.as_deref()),
        (201, &first.body, Some("true")),
        "A LIMIT, kept as the lesson: the fingerprint is the method, the path and the \
         body; a query string or a header (Content-Type, an API version) that changes \
         the request is not in it, and the first answer is replayed. Got: {again:?}"
    );
    assert_eq!(db.payment_count().await, 1);
}
// ANCHOR_END: fingerprint_limits

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
    let mut first = tokio::spawn(send(layer.clone(), payment_request("order-1")));
    let stopped = within(CRASH_BOUND, "the first request to pay", async {
        tokio::select! {
            () = pause.reached() => true,
            _ = &mut first => false,
        }
    })
    .await;
    assert!(
        stopped,
        "the first request ended without stopping at `config.after_route`: call its \
         `pass()` after the route returns and before the answer is stored"
    );
    // It is slower than its lease (its reservation moved back an hour): a duplicate
    // takes the key over, pays, and stores its answer.
    db.execute("UPDATE idempotent_requests SET reserved_at = reserved_at - interval '1 hour'")
        .await;
    let duplicate = send(layer.clone(), payment_request("order-1")).await;
    // Then the first request wakes, and tries to store its own answer.
    pause.resume();
    let first = within(CRASH_BOUND, "the first request to finish", first)
        .await
        .expect("the first request");
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

    assert_eq!(
        (duplicate.status, duplicate.replayed.as_deref()),
        (201, None),
        "past the lease, the duplicate takes the key over and runs the route: {duplicate:?}"
    );
    assert_eq!(
        payments, 2,
        "the lease's cost, kept as the lesson: a route still running past its lease is \
         run again, so the lease must be longer than any route can take"
    );
    assert_eq!(
        (retry.status, &retry.body, retry.replayed.as_deref()),
        (201, &duplicate.body, Some("true")),
        "the key's answer is the one its lease holder stored, and never changes: the \
         first request's store must name its lease (a fencing token) and change nothing \
         once the key was taken over. Got: {retry:?}, the duplicate's {duplicate:?}"
    );
    assert_eq!(
        (first.status, &first.body),
        (201, &duplicate.body),
        "the first request lost its lease: it answers what the key says, like any \
         duplicate, so that every answer for the key is the same. Got: {first:?}"
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
