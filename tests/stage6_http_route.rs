//! Stage 6: `POST /payments` over HTTP, tested through a real server on an
//! ephemeral port of 127.0.0.1 and a real HTTP client.

use std::net::SocketAddr;
use std::sync::LazyLock;
use std::time::Duration;

use harness::{Answer, Call, PoolSize, TestDb, fire_concurrently, reference_schema};
use rstest::rstest;
use serde_json::Value;

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
    assert_eq!(created, 20, "all 20 get a 201: {answers:?}");
    assert!(
        answers.iter().all(|a| a == &answers[0]),
        "all 20 answers are identical, status, type and body: {answers:?}"
    );
    assert!(
        answers[0].content_type == "application/json",
        "the answer's content type should be \"application/json\": it is {:?}",
        answers[0].content_type
    );
    assert_eq!(db.payment_count().await, 1, "one key, one payment");
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
        "the first request should be answered 201: it was answered {}",
        first.status
    );
    assert_eq!(again, first, "the repeat gets the first answer again");
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}

/// In an sf-string, `\"` and `\\` are a quote and a backslash of the key: the key
/// stored is the text they spell.
#[tokio::test]
async fn a_quoted_key_is_stored_unescaped() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let answer = post(addr, Some(r#""k\"1\\2""#), BODY).await;
    assert_eq!(answer.status, 201, "{answer:?}");
    let stored = db
        .count(r#"SELECT count(*) FROM idempotency_keys WHERE key = 'k"1\2'"#)
        .await;
    assert!(
        stored == 1,
        "Idempotency-Key: \"k\\\"1\\\\2\" is the key k\"1\\2 (the escapes undone): no key row \
         holds that text"
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
        "each key's first request pays: {a:?}, {b:?}"
    );
    assert_ne!(
        a.body["id"], b.body["id"],
        "two keys are two payments, even with the same body: the route must pass each request's \
         own key to create_payment"
    );
    let made = db.payment_count().await;
    assert!(
        made == 2,
        "2 payments should have been made by now: there are {made}"
    );
}

#[tokio::test]
async fn a_quoted_structured_field_key_is_the_same_key_as_the_bare_one() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let bare = post(addr, Some("key-1"), BODY).await;
    let quoted = post(addr, Some("\"key-1\""), BODY).await;
    assert!(
        bare.status == 201,
        "the bare request should be answered 201: it was answered {}",
        bare.status
    );
    assert_eq!(
        quoted, bare,
        "Idempotency-Key: \"key-1\" (an sf-string) is the key key-1"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
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
    assert_eq!(answer.status, status, "{answer:?}");
    assert_eq!(
        answer.content_type, "application/problem+json",
        "refusals are RFC 9457 problems"
    );
    assert_eq!(
        answer.body["type"],
        format!("{}{problem_type}", payment_model::PROBLEM_BASE),
        "the problem type says what was wrong: {answer:?}"
    );
    assert_eq!(
        answer.body["status"], status,
        "a problem repeats its status"
    );
    assert!(
        answer.body["title"].is_string() && answer.body["detail"].is_string(),
        "{answer:?}"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM idempotency_keys").await,
        0,
        "no key was stored"
    );
    assert_eq!(db.payment_count().await, 0, "nothing was paid");
}
// ANCHOR_END: refusals

#[tokio::test]
async fn a_key_sent_in_two_field_lines_is_refused_and_touches_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    // Even the same key twice: combined, the field is `"key-1", "key-1"`, a list.
    let answer = post_with_key_lines(addr, &["\"key-1\"", "\"key-1\""], BODY).await;
    assert_eq!(answer.status, 400, "{answer:?}");
    assert_eq!(
        answer.body["type"],
        format!("{}idempotency-key-malformed", payment_model::PROBLEM_BASE),
        "{answer:?}"
    );
    assert_eq!(db.payment_count().await, 0, "nothing was paid");
}

/// One character over the limit.
static LONG_KEY: LazyLock<String> = LazyLock::new(|| "k".repeat(stage6::MAX_KEY_LENGTH + 1));

#[tokio::test]
async fn a_key_of_exactly_the_limit_is_accepted() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let answer = post(addr, Some(&"k".repeat(stage6::MAX_KEY_LENGTH)), BODY).await;
    assert_eq!(
        answer.status,
        201,
        "{} characters is allowed: {answer:?}",
        stage6::MAX_KEY_LENGTH
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
        "the first request should be answered 201: it was answered {}",
        first.status
    );
    assert_eq!(other.status, 422, "{other:?}");
    assert!(
        other.content_type == "application/problem+json",
        "the answer's content type should be \"application/problem+json\": it is {:?}",
        other.content_type
    );
    assert_problem_type(&other.body, "key-reused");
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}

/// The problem's `type` should be the workbook's URI for `kind`.
fn assert_problem_type(problem: &Value, kind: &str) {
    let expected = format!("{}{kind}", payment_model::PROBLEM_BASE);
    assert!(
        problem["type"] == expected.as_str(),
        "the problem's type should be {expected}: it is {}",
        problem["type"]
    );
}

/// The status, content type, `Allow` header and JSON body of any request.
async fn raw(request: reqwest::RequestBuilder) -> (u16, String, Option<String>, Value) {
    let response = request.send().await.expect("an HTTP answer");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (content_type, allow) = (header("content-type").unwrap_or_default(), header("allow"));
    let status = response.status().as_u16();
    let text = response.text().await.expect("the body arrives");
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("the body is not JSON: {text:?} (status {status})"));
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
    assert_eq!(status, 413, "{problem}");
    assert!(
        content_type == "application/problem+json",
        "the answer's content type should be \"application/problem+json\": it is {:?}",
        content_type
    );
    assert_problem_type(&problem, "body-too-large");
    assert!(
        problem["status"] == 413,
        "the problem's status should be 413: it is {}",
        problem["status"]
    );
    assert_eq!(db.payment_count().await, 0, "nothing was paid");
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
            "no answer {bound:?} after the body stopped arriving (connection closed: {}): the \
             route waits for the rest of the body for ever. Bound the body's read \
             (stage6::BODY_READ_TIMEOUT)",
            stalled.closed
        )
    };
    assert_eq!(
        answer.status, 408,
        "a body that stops arriving is a 408 Request Timeout: {answer:?}"
    );
    assert!(
        answer.content_type == "application/problem+json",
        "the answer's content type should be \"application/problem+json\": it is {:?}",
        answer.content_type
    );
    assert_problem_type(&answer.body, "body-timeout");
    assert!(
        stalled.closed && stalled.connection.as_deref() == Some("close"),
        "the rest of the body may still come, and the next request could not be told from it: \
         the answer says `Connection: close` and the server closes (closed: {}, Connection: {:?})",
        stalled.closed,
        stalled.connection
    );
    let least = stage6::BODY_READ_TIMEOUT - Duration::from_millis(250);
    assert!(
        stalled.after >= least,
        "answered {:?} after the body stopped: before the client had its {:?} to send it",
        stalled.after,
        stage6::BODY_READ_TIMEOUT
    );
    assert_eq!(
        db.count("SELECT count(*) FROM idempotency_keys").await,
        0,
        "no key was stored"
    );
    assert_eq!(db.payment_count().await, 0, "nothing was paid");
}
// ANCHOR_END: stalled_body

#[tokio::test]
async fn another_method_is_a_405_problem_that_says_post() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let request = reqwest::Client::new().get(format!("http://{addr}/payments"));
    let (status, content_type, allow, problem) = raw(request).await;
    assert_eq!(status, 405, "{problem}");
    assert!(
        content_type == "application/problem+json",
        "the answer's content type should be \"application/problem+json\": it is {:?}",
        content_type
    );
    assert!(
        allow.as_deref() == Some("POST"),
        "the answer's Allow header should be POST: it is {:?}",
        allow.as_deref()
    );
    assert_problem_type(&problem, "method-not-allowed");
}

#[tokio::test]
async fn another_path_is_a_404_problem() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(&db).await;
    let request = reqwest::Client::new().post(format!("http://{addr}/refunds"));
    let (status, content_type, _, problem) = raw(request).await;
    assert_eq!(status, 404, "{problem}");
    assert!(
        content_type == "application/problem+json",
        "the answer's content type should be \"application/problem+json\": it is {:?}",
        content_type
    );
    assert_problem_type(&problem, "not-found");
}
