//! Stage 8: one key per client, tested through a real server on an ephemeral port
//! of 127.0.0.1 and a real HTTP client, with two clients: A and B.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{Debug, Display};
use std::net::SocketAddr;
use std::time::Duration;

use harness::{
    Answer, Call, Outcome, PoolSize, Schema, TestDb, fire_concurrently, fire_while_first_is_held,
};
use harness::{Shown, catalogue, t};
use rstest::rstest;

// What these tests say, in the learner's language
// (tests/locales/*/stage8_key_per_client.ftl).
catalogue!(static MESSAGES = "locales", "stage8_key_per_client");

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

/// What a call returned: its answer, or its error's words.
fn returned<T: Debug, E: Display>(result: &Result<T, E>) -> String {
    match result {
        Ok(answer) => format!("{answer:?}"),
        Err(e) => e.to_string(),
    }
}

/// A refusal is an RFC 9457 problem: its content type says so.
fn is_a_problem(answer: &Answer) {
    assert!(
        answer.content_type == "application/problem+json",
        "{}",
        t!(
            MESSAGES,
            "a-refusal-is-a-problem",
            wanted = "application/problem+json",
            got = &answer.content_type
        )
    );
}

/// The problem's `type` is the workbook's URI for `kind`.
fn is_the_problem(answer: &Answer, kind: &str) {
    let wanted = format!("{}{kind}", payment_model::PROBLEM_BASE);
    assert!(
        answer.body["type"] == wanted,
        "{}",
        t!(
            MESSAGES,
            "the-problem-type-says-what-was-wrong",
            wanted = &wanted,
            got = answer.shown()
        )
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

/// A refused request pays nothing.
async fn nothing_was_paid(db: &TestDb) {
    let paid = db.payment_count().await;
    assert!(
        paid == 0,
        "{}",
        t!(MESSAGES, "a-refused-request-pays-nothing", payments = paid)
    );
}

/// Each client has one payment, or the test fails saying how many each has
/// (`said`: the message).
fn one_payment_each((a, b): (i64, i64), said: &str) {
    assert!(
        (a, b) == (1, 1),
        "{}",
        MESSAGES.say(said, &[("a", a.into()), ("b", b.into())])
    );
}

/// The stage's tables, from the package under test.
fn schema() -> Schema {
    Schema::new(stage8::MIGRATION_SOURCE, stage8::MIGRATION)
}

/// Two clients, with the tokens the tests send. The table stores SHA-256 of each.
const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('client-a', encode(sha256(convert_to('token-of-a', 'UTF8')), 'hex')),
    ('client-b', encode(sha256(convert_to('token-of-b', 'UTF8')), 'hex'))";
const A: Option<&str> = Some("Bearer token-of-a");
const B: Option<&str> = Some("Bearer token-of-b");

const BODY: &str = r#"{"orderId":1,"amount":100}"#;

/// The route's settings in these tests. Some tests hold a first request inside its
/// transaction on purpose, longer than the production wait of 250 ms: its
/// duplicates must wait for it here, not be told 409 (that is stage 5's lesson).
fn config() -> stage8::Config {
    stage8::Config {
        in_flight_wait: Duration::from_secs(10),
        ..stage8::Config::default()
    }
}

/// A fresh database with the two clients, and the route served on it.
async fn started(config: stage8::Config, pool: PoolSize) -> (TestDb, SocketAddr) {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let addr = serve(stage8::router_with(db.pool(pool), config)).await;
    (db, addr)
}

async fn serve(router: stage8::Router) -> SocketAddr {
    harness::serve(|listener| stage8::serve(listener, router)).await
}

async fn post(
    addr: SocketAddr,
    authorization: Option<&str>,
    key: Option<&str>,
    body: &str,
) -> Answer {
    Call::post(addr, "/payments", body)
        .authorization(authorization)
        .key(key)
        .send()
        .await
}

/// Payments made for each client, by name.
async fn payments_of(db: &TestDb) -> (i64, i64) {
    (
        db.count("SELECT count(*) FROM payments JOIN clients c ON c.id = client_id WHERE c.name = 'client-a'")
            .await,
        db.count("SELECT count(*) FROM payments JOIN clients c ON c.id = client_id WHERE c.name = 'client-b'")
            .await,
    )
}

// ANCHOR: refusals
#[rstest]
#[case::no_authorization(None, Some("key-1"), 401, "unauthenticated")]
#[case::unknown_token(
    Some("Bearer not-a-known-token"),
    Some("key-1"),
    401,
    "unauthenticated"
)]
#[case::another_scheme(Some("Basic dXNlcjpwYXNz"), Some("key-1"), 401, "unauthenticated")]
#[case::empty_token(Some("Bearer"), Some("key-1"), 401, "unauthenticated")]
#[case::no_token_and_no_key(None, None, 401, "unauthenticated")]
#[case::a_known_client_without_a_key(A, None, 400, "idempotency-key-missing")]
#[tokio::test]
async fn a_request_from_no_known_client_or_without_a_key_is_refused_and_stores_nothing(
    #[case] authorization: Option<&str>,
    #[case] key: Option<&str>,
    #[case] status: u16,
    #[case] problem_type: &str,
) {
    let (db, addr) = started(config(), PoolSize::of(10)).await;
    let answer = post(addr, authorization, key, BODY).await;
    assert!(
        answer.status == status,
        "{}",
        t!(
            MESSAGES,
            "a-request-is-refused",
            authorization = match authorization {
                Some(value) => t!(MESSAGES, "with-the-authorization", value = value),
                None => t!(MESSAGES, "with-no-authorization"),
            },
            key = match key {
                Some(key) => t!(MESSAGES, "with-the-key", key = key),
                None => t!(MESSAGES, "with-no-key"),
            },
            status = status,
            got = answer.shown()
        )
    );
    is_a_problem(&answer);
    is_the_problem(&answer, problem_type);
    if status == 401 {
        assert!(
            answer
                .challenge
                .as_deref()
                .is_some_and(|c| c.starts_with("Bearer")),
            "{}",
            t!(
                MESSAGES,
                "a-401-says-how-to-authenticate",
                got = answer.shown()
            )
        );
    }
    no_key_was_stored(&db).await;
    nothing_was_paid(&db).await;
}
// ANCHOR_END: refusals

#[tokio::test]
async fn a_body_over_the_limit_is_a_413_problem_and_stores_nothing() {
    let (db, addr) = started(config(), PoolSize::of(10)).await;
    // A valid payment from a known client, padded with spaces to 3 MB (axum reads at
    // most 2 MB): only its size is wrong.
    let body = format!("{BODY}{}", " ".repeat(3 * 1024 * 1024));
    let answer = post(addr, A, Some("key-1"), &body).await;
    assert!(
        answer.status == 413,
        "{}",
        t!(
            MESSAGES,
            "a-body-over-the-limit-is-a-413",
            megabytes = 3u32,
            limit = 2u32,
            got = answer.shown()
        )
    );
    is_a_problem(&answer);
    is_the_problem(&answer, "body-too-large");
    no_key_was_stored(&db).await;
    nothing_was_paid(&db).await;
}

/// Stage 6's bound on reading a body, on this stage's route too: a known client's
/// request whose body stops arriving is answered 408 and stores nothing.
#[tokio::test]
async fn a_body_that_stops_arriving_is_a_408_problem_and_stores_nothing() {
    let (db, addr) = started(config(), PoolSize::of(10)).await;
    let bound = stage6::BODY_READ_TIMEOUT + Duration::from_secs(5);
    let headers = [
        ("authorization", "Bearer token-of-a"),
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
                seconds = bound.as_secs()
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
    is_the_problem(answer, "body-timeout");
    assert!(
        stalled.closed,
        "{}",
        t!(MESSAGES, "the-server-closes-after-a-408")
    );
    no_key_was_stored(&db).await;
    nothing_was_paid(&db).await;
}

// ANCHOR: two_clients
#[tokio::test]
async fn the_same_key_from_two_clients_makes_two_payments() {
    let (db, addr) = started(config(), PoolSize::of(10)).await;
    let from_a = post(addr, A, Some("order-1"), BODY).await;
    let from_b = post(addr, B, Some("order-1"), BODY).await;
    assert!(
        (from_a.status, from_b.status) == (201, 201),
        "{}",
        t!(
            MESSAGES,
            "each-clients-first-request-pays",
            key = "order-1",
            a = from_a.shown(),
            b = from_b.shown()
        )
    );
    assert!(
        from_a.body["id"] != from_b.body["id"],
        "{}",
        t!(
            MESSAGES,
            "two-clients-two-payments",
            id = from_a.body["id"].to_string()
        )
    );
    one_payment_each(payments_of(&db).await, "one-payment-for-each-client");

    // Each client's repeat reads its own row: both rows hold the key "order-1".
    let again_a = post(addr, A, Some("order-1"), BODY).await;
    let again_b = post(addr, B, Some("order-1"), BODY).await;
    assert!(
        (&again_a.body, &again_b.body) == (&from_a.body, &from_b.body),
        "{}",
        t!(
            MESSAGES,
            "a-repeat-replays-its-own-clients-answer",
            a = from_a.body.to_string(),
            again_a = again_a.body.to_string(),
            b = from_b.body.to_string(),
            again_b = again_b.body.to_string()
        )
    );
    one_payment_each(payments_of(&db).await, "the-repeats-paid-nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_requests_with_one_key_from_each_of_two_clients_make_two_payments() {
    let (db, addr) = started(config(), PoolSize::of(10)).await;

    // Requests 0, 2, 4, ... are A's; 1, 3, 5, ... are B's. All 40 send the key "order-1".
    let answers = fire_concurrently(40, |i| async move {
        let client = if i % 2 == 0 { A } else { B };
        post(addr, client, Some("order-1"), BODY).await
    })
    .await;
    let (of_a, of_b): (Vec<_>, Vec<_>) = answers.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let of_a: Vec<&Answer> = of_a.into_iter().map(|(_, a)| a).collect();
    let of_b: Vec<&Answer> = of_b.into_iter().map(|(_, a)| a).collect();

    let payments = db.payment_count().await;
    harness::observe(
        "stage8.two_clients",
        &serde_json::json!({
            "payments": payments,
            "created": answers.iter().filter(|a| a.status == 201).count(),
        }),
    );
    for (name, mine) in [("A", &of_a), ("B", &of_b)] {
        assert!(
            mine.iter()
                .all(|a| a.status == 201 && a.body == mine[0].body),
            "{}",
            t!(
                MESSAGES,
                "a-clients-twenty-answers-are-one-201",
                name = name,
                statuses = statuses(mine),
                bodies = mine
                    .iter()
                    .map(|a| a.body.to_string())
                    .collect::<BTreeSet<_>>()
                    .len()
            )
        );
        let firsts = mine.iter().filter(|a| a.replayed.is_none()).count();
        assert!(
            firsts == 1,
            "{}",
            t!(
                MESSAGES,
                "one-of-a-clients-answers-is-the-first",
                name = name,
                firsts = firsts
            )
        );
    }
    assert!(
        of_a[0].body["id"] != of_b[0].body["id"],
        "{}",
        t!(
            MESSAGES,
            "a-and-b-each-get-their-own-payment",
            id = of_a[0].body["id"].to_string()
        )
    );
    assert!(
        payments == 2,
        "{}",
        t!(
            MESSAGES,
            "two-clients-one-key-each-two-payments",
            payments = payments
        )
    );
    let split = payments_of(&db).await;
    one_payment_each(split, "one-payment-for-each-client");
}
// ANCHOR_END: two_clients

/// How many answers came back with each status: `19 × 201, 1 × 500`.
fn statuses(answers: &[&Answer]) -> String {
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

// ANCHOR: no_leak
/// What B got when it sent A's key, in one word.
fn what_b_got(from_a: &Answer, from_b: &Answer) -> &'static str {
    if from_b.body == from_a.body {
        "A's answer"
    } else if from_b.status == 422 {
        "refused"
    } else if from_b.status == 201 {
        "own payment"
    } else {
        "other"
    }
}

#[rstest]
#[case::the_same_body(BODY)]
#[case::another_amount(r#"{"orderId":1,"amount":999}"#)]
#[tokio::test]
async fn client_b_sending_client_a_key_never_receives_a_answer(#[case] body_of_b: &str) {
    let (db, addr) = started(config(), PoolSize::of(10)).await;
    let from_a = post(addr, A, Some("order-1"), BODY).await;
    let from_b = post(addr, B, Some("order-1"), body_of_b).await;
    if body_of_b == BODY {
        harness::observe(
            "stage8.other_client",
            &serde_json::json!({ "second": what_b_got(&from_a, &from_b) }),
        );
    }
    assert!(
        from_a.status == 201,
        "{}",
        t!(
            MESSAGES,
            "as-first-request-pays",
            key = "order-1",
            got = from_a.shown()
        )
    );
    assert!(
        from_b.body != from_a.body,
        "{}",
        t!(MESSAGES, "b-never-receives-as-answer", got = from_b.shown())
    );
    assert!(
        from_b.status == 201,
        "{}",
        t!(MESSAGES, "bs-key-is-bs-own", got = from_b.shown())
    );
    assert!(
        from_b.replayed.is_none(),
        "{}",
        t!(MESSAGES, "bs-answer-is-no-replay", got = from_b.shown())
    );
    one_payment_each(payments_of(&db).await, "one-payment-for-each-client");
}
// ANCHOR_END: no_leak

// ANCHOR: replayed
#[tokio::test]
async fn a_replayed_answer_says_so_and_the_first_does_not() {
    let (db, addr) = started(config(), PoolSize::of(10)).await;
    let first = post(addr, A, Some("order-1"), BODY).await;
    let again = post(addr, A, Some("order-1"), BODY).await;
    let other_body = post(addr, A, Some("order-1"), r#"{"orderId":1,"amount":999}"#).await;
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
        first.replayed.is_none(),
        "{}",
        t!(
            MESSAGES,
            "the-first-answer-is-no-replay",
            got = first.shown()
        )
    );
    assert!(
        (again.status, &again.body) == (201, &first.body),
        "{}",
        t!(
            MESSAGES,
            "a-repeat-replays-the-201",
            first = first.shown(),
            again = again.shown()
        )
    );
    assert!(
        again.replayed.as_deref() == Some("true"),
        "{}",
        t!(MESSAGES, "a-replay-says-so", got = again.shown())
    );
    assert!(
        other_body.status == 422,
        "{}",
        t!(
            MESSAGES,
            "another-body-is-refused-with-422",
            got = other_body.shown()
        )
    );
    assert!(
        other_body.replayed.is_none(),
        "{}",
        t!(MESSAGES, "a-refusal-is-no-replay", got = other_body.shown())
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: replayed

#[tokio::test]
async fn only_the_reserving_insert_runs_under_the_bounded_wait() {
    let (db, addr) = started(config(), PoolSize::of(2)).await;
    // The database's own lock_timeout (an operator's choice), and a trigger that
    // records the lock_timeout the payment's INSERT runs under. The pool's
    // connections open at the first request, after this.
    db.execute(
        "DO $$ BEGIN
           EXECUTE format('ALTER DATABASE %I SET lock_timeout = %L', current_database(), '7s');
         END $$;
         CREATE TABLE lock_timeout_seen (setting TEXT NOT NULL);
         CREATE FUNCTION record_lock_timeout() RETURNS trigger LANGUAGE plpgsql AS $f$
         BEGIN
           INSERT INTO lock_timeout_seen VALUES (current_setting('lock_timeout'));
           RETURN NEW;
         END $f$;
         CREATE TRIGGER record_lock_timeout BEFORE INSERT ON payments
           FOR EACH ROW EXECUTE FUNCTION record_lock_timeout();",
    )
    .await;

    let answer = post(addr, A, Some("key-1"), BODY).await;

    assert!(
        answer.status == 201,
        "{}",
        t!(MESSAGES, "a-new-key-is-answered-201", got = answer.shown())
    );
    let mut conn = db.connect().await;
    let seen: Vec<String> = sqlx::query_scalar("SELECT setting FROM lock_timeout_seen")
        .fetch_all(&mut conn)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "the-triggers-table-can-be-read",
                    error = e.to_string()
                )
            )
        });
    assert!(
        seen == ["7s"],
        "{}",
        t!(
            MESSAGES,
            "the-payment-runs-under-the-databases-lock-timeout",
            seen = seen.join(", ")
        )
    );
}

// ANCHOR: serializable
/// Makes `serializable` the default isolation level of the test database: every
/// transaction the route starts runs under it.
const SERIALIZABLE: &str = "DO $$ BEGIN
    EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L',
                   current_database(), 'serializable');
END $$";

/// 20 requests with one key under `serializable`: the first is held inside its
/// payment until its 19 duplicates wait on its key, then let go.
async fn serializable_burst(config: stage8::Config) -> (TestDb, Outcome) {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    db.execute(SERIALIZABLE).await;
    let addr = serve(stage8::router_with(db.pool(PoolSize::of(20)), config)).await;
    let results = fire_while_first_is_held(&db, 1, 20, |_| async move {
        Ok(post(addr, A, Some("order-1"), BODY).await.reply())
    })
    .await;
    let outcome = Outcome::new(&results, db.payment_count().await);
    (db, outcome)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn under_serializable_isolation_the_duplicates_are_retried_into_replays() {
    let (_db, outcome) = serializable_burst(config()).await;
    outcome.record("stage8.serializable");
    println!("{}", outcome.table());
    let said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "one-key-one-payment-at-any-isolation-level",
            outcome = &said
        )
    );
    assert!(
        outcome.count(harness::ReplyKind::Status(201)) == 20,
        "{}",
        t!(
            MESSAGES,
            "the-duplicates-are-run-again-into-replays",
            outcome = &said
        )
    );
    assert!(
        outcome.distinct_bodies == 1,
        "{}",
        t!(MESSAGES, "the-same-payment-replayed", outcome = &said)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_one_attempt_serializable_isolation_fails_every_waiting_duplicate_with_a_500() {
    let (_db, outcome) = serializable_burst(stage8::Config {
        attempts: 1,
        ..config()
    })
    .await;
    outcome.record("stage8.serializable_without_retry");
    println!("{}", outcome.table());
    let said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "one-key-one-payment-at-any-isolation-level",
            outcome = &said
        )
    );
    assert!(
        (
            outcome.count(harness::ReplyKind::Status(201)),
            outcome.count(harness::ReplyKind::Status(500))
        ) == (1, 19),
        "{}",
        t!(
            MESSAGES,
            "with-one-attempt-the-duplicates-fail-with-a-500",
            outcome = &said
        )
    );
}
// ANCHOR_END: serializable

// ANCHOR: rolled_back_on_return
/// The database refuses client A's payment after its key was reserved. When
/// `create_payment` returns its error (the route's 500), its transaction must be
/// over, and the key free for a retry sent at once (stage 5).
#[tokio::test]
async fn a_failed_payment_has_rolled_back_when_create_payment_returns() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let a = stage8::ClientId(
        db.count("SELECT id FROM clients WHERE name = 'client-a'")
            .await,
    );
    let body = r#"{"orderId":13,"amount":100}"#;

    let seen = harness::failed_payment_as_it_returns(&db, async |pool| {
        stage8::create_payment(pool, a, "key-13", body, &config()).await
    })
    .await;

    assert!(
        seen.failed.is_err(),
        "{}",
        t!(
            MESSAGES,
            "a-failed-payment-fails-the-call",
            got = returned(&seen.failed)
        )
    );
    assert!(
        seen.in_a_transaction() == 0,
        "{}",
        t!(
            MESSAGES,
            "rolled-back-before-the-error-is-returned",
            sessions = seen.sessions.join(", ")
        )
    );
}
// ANCHOR_END: rolled_back_on_return

// ANCHOR: default_settings
/// The route `cargo workbook api --stage 8` serves: `stage8::router`, with the
/// default settings. A's first request is held in its payment (the harness's
/// gate); its duplicate waits the default 250 ms on the key, and is told 409,
/// "retry later", with `Retry-After`, instead of a 500 or a wait without end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_the_default_settings_a_duplicate_of_a_request_in_flight_is_told_409() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let addr = serve(stage8::router(db.pool(PoolSize::of(10)))).await;
    let gate = harness::PaymentGate::close(&db, 1).await;
    let first = tokio::spawn(post(addr, A, Some("key-1"), BODY));
    gate.wait_until_held_by(&db, 1, &first).await;

    let duplicate = Call::post(addr, "/payments", BODY)
        .authorization(A)
        .key(Some("key-1"))
        .within(Duration::from_secs(10))
        .send()
        .await;
    gate.open().await;
    let first = harness::within(
        Duration::from_secs(10),
        &t!(MESSAGES, "the-first-request"),
        first,
    )
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-first-requests-task-ends",
                error = e.to_string()
            )
        )
    });

    assert!(
        duplicate.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-duplicate-in-flight-is-told-409",
            got = duplicate.shown()
        )
    );
    is_the_problem(&duplicate, "request-in-flight");
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-pays-once-let-go",
            got = first.shown()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: default_settings

// ANCHOR: bounded_retry
/// A transaction that fails with a serialization failure is run again, at most
/// `config.attempts` times in all; one that fails with any other error is not run
/// again. The database refuses the payment for order 13, every time, with the
/// given SQLSTATE, and counts the runs (`harness::refuse_order_13`).
#[rstest]
#[case::a_serialization_failure("40001", 3)]
#[case::another_error("P0001", 1)]
#[tokio::test]
async fn only_a_serialization_failure_is_run_again_at_most_the_configured_attempts(
    #[case] sqlstate: &str,
    #[case] runs: i64,
) {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let a = stage8::ClientId(
        db.count("SELECT id FROM clients WHERE name = 'client-a'")
            .await,
    );
    harness::refuse_order_13(&db, sqlstate).await;
    let pool = db.pool(PoolSize::of(2));
    let config = stage8::Config {
        attempts: 3,
        ..config()
    };

    let result = harness::within(
        Duration::from_secs(20),
        "create_payment",
        stage8::create_payment(
            &pool,
            a,
            "key-13",
            r#"{"orderId":13,"amount":100}"#,
            &config,
        ),
    )
    .await;

    assert!(
        matches!(&result, Err(e) if e.sqlstate().as_deref() == Some(sqlstate)),
        "{}",
        t!(
            MESSAGES,
            "every-run-fails-so-create-payment-does",
            sqlstate = sqlstate,
            got = returned(&result)
        )
    );
    let ran = harness::refused_payments(&db).await;
    assert!(
        ran == runs,
        "{}",
        t!(
            MESSAGES,
            "the-transaction-runs-at-most-the-configured-attempts",
            sqlstate = sqlstate,
            runs = runs,
            ran = ran
        )
    );
}
// ANCHOR_END: bounded_retry
