//! Stage 6: `POST /payments` over HTTP, tested through a real server on an
//! ephemeral port of 127.0.0.1 and a real HTTP client.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::LazyLock;
use std::time::Duration;

use harness::{Answer, Call, PoolSize, TestDb, fire_concurrently, reference_schema};
use harness::{Shown, catalogue, t};
use rstest::rstest;
use serde_json::Value;

// What these tests say, in the learner's language
// (tests/locales/*/stage6_http_route.ftl).
catalogue!(static MESSAGES = "locales", "stage6_http_route");

/// How many answers came back with each status: `19 × 201, 1 × 500`.
fn statuses(answers: &[Answer]) -> String {
    let mut counts = BTreeMap::new();
    for answer in answers {
        *counts.entry(answer.status).or_insert(0) += 1;
    }
    counts
        .iter()
        .map(|(status, n)| format!("{n} × {status}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Seconds as the messages show them, with the language's decimal separator.
fn seconds(d: Duration) -> String {
    MESSAGES.current().decimal(d.as_secs_f64(), 2)
}

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

/// A refusal is an RFC 9457 problem: its content type says so.
fn is_a_problem(content_type: &str) {
    assert!(
        content_type == "application/problem+json",
        "{}",
        t!(
            MESSAGES,
            "a-refusal-is-a-problem",
            wanted = "application/problem+json",
            got = content_type
        )
    );
}

/// A refused request pays nothing.
async fn nothing_was_paid(db: &TestDb) {
    let paid = db.payment_count().await;
    assert!(
        paid == 0,
        "{}",
        t!(MESSAGES, "a-refused-request-pays-nothing", payments = paid)
    );
}

/// A refused request stores no key.
async fn no_key_was_stored(db: &TestDb) {
    let keys = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert!(
        keys == 0,
        "{}",
        t!(MESSAGES, "a-refused-request-stores-no-key", keys = keys)
    );
}

/// The route, served on 127.0.0.1 for as long as the test runs.
async fn serve(db: &TestDb) -> SocketAddr {
    let router = stage6::router(db.pool(PoolSize::of(10)));
    harness::serve(|listener| stage6::serve(listener, router)).await
}

async fn post(addr: SocketAddr, key: Option<&str>, body: &str) -> Answer {
    Call::post(addr, "/payments", body).key(key).send().await
}

/// POST /payments with one `Idempotency-Key` field line per item of `keys`.
async fn post_with_key_lines(addr: SocketAddr, keys: &[&str], body: &str) -> Answer {
    Call::post(addr, "/payments", body).keys(keys).send().await
}

const BODY: &str = r#"{"orderId":1,"amount":100}"#;

// ANCHOR: burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_requests_over_http_create_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;

    let answers =
        fire_concurrently(20, |_| async move { post(addr, Some("key-1"), BODY).await }).await;

    let created = answers.iter().filter(|a| a.status == 201).count();
    assert!(
        created == 20,
        "{}",
        t!(
            MESSAGES,
            "every-request-gets-the-201",
            statuses = statuses(&answers)
        )
    );
    assert!(
        answers.iter().all(|a| a == &answers[0]),
        "{}",
        t!(
            MESSAGES,
            "the-twenty-answers-are-identical",
            first = answers[0].shown(),
            number = answers
                .iter()
                .position(|a| a != &answers[0])
                .map_or(0, |i| i + 1),
            other = answers
                .iter()
                .find(|a| *a != &answers[0])
                .map(Shown::shown)
                .unwrap_or_default()
        )
    );
    assert!(
        answers[0].content_type == "application/json",
        "{}",
        t!(
            MESSAGES,
            "a-payment-is-answered-in-json",
            wanted = "application/json",
            got = &answers[0].content_type
        )
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "{}",
        t!(MESSAGES, "one-key-one-payment", payments = made)
    );
    harness::observe(
        "stage6.burst",
        &serde_json::json!({ "payments": db.payment_count().await, "created": created }),
    );
}
// ANCHOR_END: burst

#[tokio::test]
async fn a_repeat_replays_the_stored_status_and_body() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let first = post(addr, Some("key-1"), BODY).await;
    let again = post(addr, Some("key-1"), BODY).await;
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-is-answered-201",
            got = first.shown()
        )
    );
    assert!(
        again == first,
        "{}",
        t!(
            MESSAGES,
            "a-repeat-gets-the-first-answer-again",
            first = first.shown(),
            again = again.shown()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}

/// In an sf-string, `\"` and `\\` are a quote and a backslash of the key: the key
/// stored is the text they spell.
#[tokio::test]
async fn a_quoted_key_is_stored_unescaped() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let sent = r#""k\"1\\2""#;
    let answer = post(addr, Some(sent), BODY).await;
    assert!(
        answer.status == 201,
        "{}",
        t!(
            MESSAGES,
            "a-quoted-key-is-accepted",
            sent = sent,
            got = answer.shown()
        )
    );
    let stored = db
        .count(r#"SELECT count(*) FROM idempotency_keys WHERE key = 'k"1\2'"#)
        .await;
    assert!(
        stored == 1,
        "{}",
        t!(
            MESSAGES,
            "a-quoted-key-is-stored-unescaped",
            sent = sent,
            key = r#"k"1\2"#
        )
    );
}

#[tokio::test]
async fn different_keys_make_different_payments() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let a = post(addr, Some("key-a"), BODY).await;
    let b = post(addr, Some("key-b"), BODY).await;
    assert!(
        (a.status, b.status) == (201, 201),
        "{}",
        t!(
            MESSAGES,
            "each-keys-first-request-pays",
            a = a.shown(),
            b = b.shown()
        )
    );
    assert!(
        a.body["id"] != b.body["id"],
        "{}",
        t!(
            MESSAGES,
            "two-keys-are-two-payments",
            id = a.body["id"].to_string()
        )
    );
    payments_made_by_now(db.payment_count().await, 2);
}

#[tokio::test]
async fn a_quoted_structured_field_key_is_the_same_key_as_the_bare_one() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let bare = post(addr, Some("key-1"), BODY).await;
    let quoted = post(addr, Some("\"key-1\""), BODY).await;
    assert!(
        bare.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-bare-key-is-answered-201",
            key = "key-1",
            got = bare.shown()
        )
    );
    assert!(
        quoted == bare,
        "{}",
        t!(
            MESSAGES,
            "a-quoted-key-is-the-bare-key",
            quoted = "\"key-1\"",
            key = "key-1",
            bare = bare.shown(),
            got = quoted.shown()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}

// ANCHOR: refusals
#[rstest]
#[case::missing_key(None, BODY, 400, "idempotency-key-missing")]
#[case::empty_key(Some(""), BODY, 400, "idempotency-key-missing")]
#[case::empty_quoted_key(Some("\"\""), BODY, 400, "idempotency-key-missing")]
#[case::key_too_long(Some(LONG_KEY.as_str()), BODY, 400, "idempotency-key-too-long")]
#[case::unterminated_quote(Some("\"key-1"), BODY, 400, "idempotency-key-malformed")]
#[case::key_with_a_parameter(Some("\"key-1\";p=1"), BODY, 400, "idempotency-key-malformed")]
#[case::bare_key_with_a_space(Some("key 1"), BODY, 400, "idempotency-key-malformed")]
#[case::bare_key_with_a_quote(Some("key\"1"), BODY, 400, "idempotency-key-malformed")]
#[case::bare_key_with_a_backslash(Some("key\\1"), BODY, 400, "idempotency-key-malformed")]
#[case::quoted_key_with_an_unknown_escape(
    Some(r#""key\x1""#),
    BODY,
    400,
    "idempotency-key-malformed"
)]
#[case::not_json(Some("key-1"), "amount=100", 400, "invalid-body")]
#[case::missing_field(Some("key-1"), r#"{"orderId":1}"#, 400, "invalid-body")]
#[case::zero_amount(Some("key-1"), r#"{"orderId":1,"amount":0}"#, 400, "invalid-body")]
#[case::negative_amount(Some("key-1"), r#"{"orderId":1,"amount":-5}"#, 400, "invalid-body")]
#[tokio::test]
async fn a_bad_request_is_refused_with_a_problem_and_touches_nothing(
    #[case] key: Option<&str>,
    #[case] body: &str,
    #[case] status: u16,
    #[case] problem_type: &str,
) {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let answer = post(addr, key, body).await;
    assert!(
        answer.status == status,
        "{}",
        t!(
            MESSAGES,
            "a-bad-request-is-refused",
            key = match key {
                Some(key) => t!(MESSAGES, "with-the-key", key = key),
                None => t!(MESSAGES, "with-no-key"),
            },
            body = body,
            status = status,
            got = answer.shown()
        )
    );
    is_a_problem(&answer.content_type);
    let wanted = format!("{}{problem_type}", payment_model::PROBLEM_BASE);
    assert!(
        answer.body["type"] == wanted,
        "{}",
        t!(
            MESSAGES,
            "the-problem-type-says-what-was-wrong",
            wanted = &wanted,
            got = answer.body["type"].to_string()
        )
    );
    assert!(
        answer.body["status"] == status,
        "{}",
        t!(
            MESSAGES,
            "a-problem-repeats-its-status",
            status = status,
            got = answer.body["status"].to_string()
        )
    );
    assert!(
        answer.body["title"].is_string() && answer.body["detail"].is_string(),
        "{}",
        t!(
            MESSAGES,
            "a-problem-has-a-title-and-a-detail",
            body = answer.body.to_string()
        )
    );
    no_key_was_stored(&db).await;
    nothing_was_paid(&db).await;
}
// ANCHOR_END: refusals

#[tokio::test]
async fn a_key_sent_in_two_field_lines_is_refused_and_touches_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    // Even the same key twice: combined, the field is `"key-1", "key-1"`, a list.
    let answer = post_with_key_lines(addr, &["\"key-1\"", "\"key-1\""], BODY).await;
    assert!(
        answer.status == 400,
        "{}",
        t!(
            MESSAGES,
            "a-key-in-two-field-lines-is-refused",
            got = answer.shown()
        )
    );
    let wanted = format!("{}idempotency-key-malformed", payment_model::PROBLEM_BASE);
    assert!(
        answer.body["type"] == wanted,
        "{}",
        t!(
            MESSAGES,
            "the-problem-type-says-what-was-wrong",
            wanted = &wanted,
            got = answer.body["type"].to_string()
        )
    );
    nothing_was_paid(&db).await;
}

/// One character over the limit.
static LONG_KEY: LazyLock<String> = LazyLock::new(|| "k".repeat(stage6::MAX_KEY_LENGTH + 1));

#[tokio::test]
async fn a_key_of_exactly_the_limit_is_accepted() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let answer = post(addr, Some(&"k".repeat(stage6::MAX_KEY_LENGTH)), BODY).await;
    assert!(
        answer.status == 201,
        "{}",
        t!(
            MESSAGES,
            "a-key-of-the-limit-is-accepted",
            length = stage6::MAX_KEY_LENGTH,
            got = answer.shown()
        )
    );
}

#[tokio::test]
async fn the_same_key_with_another_body_is_a_422_problem() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let first = post(addr, Some("key-1"), BODY).await;
    let other = post(addr, Some("key-1"), r#"{"orderId":1,"amount":999}"#).await;
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-is-answered-201",
            got = first.shown()
        )
    );
    assert!(
        other.status == 422,
        "{}",
        t!(
            MESSAGES,
            "another-body-is-refused-with-422",
            got = other.shown()
        )
    );
    is_a_problem(&other.content_type);
    assert_problem_type(&other.body, "key-reused");
    payments_made_by_now(db.payment_count().await, 1);
}

/// The problem's `type` should be the workbook's URI for `kind`.
fn assert_problem_type(problem: &Value, kind: &str) {
    let expected = format!("{}{kind}", payment_model::PROBLEM_BASE);
    assert!(
        problem["type"] == expected.as_str(),
        "{}",
        t!(
            MESSAGES,
            "the-problem-type-says-what-was-wrong",
            wanted = &expected,
            got = problem["type"].to_string()
        )
    );
}

/// The status, content type, `Allow` header and JSON body of any request.
async fn raw(request: reqwest::RequestBuilder) -> (u16, String, Option<String>, Value) {
    let response = request.send().await.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-request-gets-an-answer",
                error = e.to_string()
            )
        )
    });
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (content_type, allow) = (header("content-type").unwrap_or_default(), header("allow"));
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(MESSAGES, "the-answers-body-arrives", error = e.to_string())
        )
    });
    let body = serde_json::from_str(&text).unwrap_or_else(|_| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-answers-body-is-json",
                status = status,
                text = format!("{text:?}")
            )
        )
    });
    (status, content_type, allow, body)
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_413_problem_and_touches_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    // A valid payment padded with whitespace to 3 MB: only its size is wrong.
    let mut body = BODY.to_owned();
    body.push_str(&" ".repeat(3 * 1024 * 1024));
    let request = reqwest::Client::new()
        .post(format!("http://{addr}/payments"))
        .header("idempotency-key", "key-1")
        .header("content-type", "application/json")
        .body(body);
    let (status, content_type, _, problem) = raw(request).await;
    assert!(
        status == 413,
        "{}",
        t!(
            MESSAGES,
            "a-body-over-the-limit-is-a-413",
            megabytes = 3u32,
            status = status,
            body = problem.to_string()
        )
    );
    is_a_problem(&content_type);
    assert_problem_type(&problem, "body-too-large");
    assert!(
        problem["status"] == 413,
        "{}",
        t!(
            MESSAGES,
            "a-problem-repeats-its-status",
            status = 413u16,
            got = problem["status"].to_string()
        )
    );
    nothing_was_paid(&db).await;
}

// ANCHOR: stalled_body
/// A client sends its head and the first KB of a 5 MB body, then nothing more:
/// stuck, or hostile (300 such connections would each hold a task and a socket).
/// The route waits for a body at most `stage6::BODY_READ_TIMEOUT`, then answers
/// 408, closes the connection, and has stored nothing.
#[tokio::test]
async fn a_body_that_stops_arriving_is_a_408_problem_and_stores_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let bound = stage6::BODY_READ_TIMEOUT + Duration::from_secs(5);
    let headers = [
        ("idempotency-key", "key-1"),
        ("content-type", "application/json"),
    ];
    let stalled =
        harness::post_a_body_that_stops(addr, "/payments", &headers, 5 << 20, 1024, bound).await;

    let Some(answer) = &stalled.answer else {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "no-answer-after-the-body-stopped",
                seconds = bound.as_secs(),
                closed = stalled.closed.to_string(),
                timeout = "stage6::BODY_READ_TIMEOUT"
            )
        )
    };
    assert!(
        answer.status == 408,
        "{}",
        t!(
            MESSAGES,
            "a-body-that-stops-arriving-is-a-408",
            got = answer.shown()
        )
    );
    is_a_problem(&answer.content_type);
    assert_problem_type(&answer.body, "body-timeout");
    assert!(
        stalled.closed && stalled.connection.as_deref() == Some("close"),
        "{}",
        t!(
            MESSAGES,
            "the-server-closes-after-a-408",
            closed = stalled.closed.to_string(),
            connection = stalled
                .connection
                .clone()
                .unwrap_or_else(|| t!(MESSAGES, "no-such-header"))
        )
    );
    let least = stage6::BODY_READ_TIMEOUT - Duration::from_millis(250);
    assert!(
        stalled.after >= least,
        "{}",
        t!(
            MESSAGES,
            "answered-before-the-client-had-its-time",
            after = seconds(stalled.after),
            timeout = seconds(stage6::BODY_READ_TIMEOUT)
        )
    );
    no_key_was_stored(&db).await;
    nothing_was_paid(&db).await;
}
// ANCHOR_END: stalled_body

#[tokio::test]
async fn another_method_is_a_405_problem_that_says_post() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let request = reqwest::Client::new().get(format!("http://{addr}/payments"));
    let (status, content_type, allow, problem) = raw(request).await;
    assert!(
        status == 405,
        "{}",
        t!(
            MESSAGES,
            "another-method-is-a-405",
            request = "GET /payments",
            status = status,
            body = problem.to_string()
        )
    );
    is_a_problem(&content_type);
    assert!(
        allow.as_deref() == Some("POST"),
        "{}",
        t!(
            MESSAGES,
            "the-allow-header-says-post",
            wanted = "POST",
            got = allow.unwrap_or_else(|| t!(MESSAGES, "no-such-header"))
        )
    );
    assert_problem_type(&problem, "method-not-allowed");
}

#[tokio::test]
async fn another_path_is_a_404_problem() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let request = reqwest::Client::new().post(format!("http://{addr}/refunds"));
    let (status, content_type, _, problem) = raw(request).await;
    assert!(
        status == 404,
        "{}",
        t!(
            MESSAGES,
            "another-path-is-a-404",
            request = "POST /refunds",
            status = status,
            body = problem.to_string()
        )
    );
    is_a_problem(&content_type);
    assert_problem_type(&problem, "not-found");
}
