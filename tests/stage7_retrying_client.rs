//! Stage 7: the retrying client, through a proxy that breaks the network on cue.
//! In every case: exactly one payment, and the client ends with the 201 the server
//! produced for the first try that reached it; also when the client gives up and
//! is called again, and when its process starts again and reads the key it kept
//! with the order.

use std::net::SocketAddr;
use std::time::{Duration, SystemTime};

use harness::proxy::{Exchange, Fault, FaultyProxy};
use harness::{Call, PaymentGate, PoolSize, Schema, Shown, TestDb, reference_schema};
use harness::{catalogue, t};
use payment_model::Reply;
use rstest::rstest;
use stage7::{PayError, Payment, PaymentsClient, RetryPolicy, retry_after};

// What these tests say, in the learner's language
// (tests/locales/*/stage7_retrying_client.ftl).
catalogue!(static MESSAGES = "locales", "stage7_retrying_client");

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

/// What the proxy did to a try, in words.
fn fault_said(fault: Fault) -> String {
    match fault {
        Fault::Pass => t!(MESSAGES, "fault-pass"),
        Fault::DropRequest => t!(MESSAGES, "fault-drop-request"),
        Fault::DropResponse => t!(MESSAGES, "fault-drop-response"),
        Fault::HoldResponseUntilClientGivesUp => t!(MESSAGES, "fault-hold-response"),
        Fault::Answer503 => t!(MESSAGES, "fault-answer", status = 503u16),
        Fault::Answer408 => t!(MESSAGES, "fault-answer", status = 408u16),
        Fault::Answer429 { retry_after } => t!(
            MESSAGES,
            "fault-answer-429",
            status = 429u16,
            retry_after = retry_after
        ),
        Fault::ReplaceResponseWithHtml => t!(MESSAGES, "fault-html-page"),
        Fault::HoldRequestUntilReleased => t!(MESSAGES, "fault-hold-request"),
    }
}

/// The tries the proxy saw, one line each: what it did, the key sent, what the
/// server answered.
fn tries(exchanges: &[Exchange]) -> String {
    let lines: Vec<String> = exchanges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            t!(
                MESSAGES,
                "a-try",
                number = i + 1,
                fault = fault_said(e.fault),
                key = e
                    .idempotency_key
                    .clone()
                    .unwrap_or_else(|| t!(MESSAGES, "no-key-sent")),
                server = match (e.reached_server, e.server_status) {
                    (true, Some(status)) => t!(MESSAGES, "the-server-answered", status = status),
                    (true, None) => t!(MESSAGES, "the-server-did-not-answer"),
                    (false, _) => t!(MESSAGES, "the-server-never-saw-it"),
                }
            )
        })
        .collect();
    if lines.is_empty() {
        t!(MESSAGES, "no-try")
    } else {
        format!("\n  {}", lines.join("\n  "))
    }
}

/// What `pay` returned: the answer, or its error's words.
fn returned(result: &Result<Reply, PayError>) -> String {
    match result {
        Ok(reply) => reply.shown(),
        Err(e) => e.to_string(),
    }
}

/// Short delays and a short timeout: the tests exercise the retries, not patience.
const POLICY: RetryPolicy = RetryPolicy {
    attempts: 4,
    first_delay: Duration::from_millis(20),
    max_delay: Duration::from_millis(200),
    timeout: Duration::from_millis(500),
    budget: Duration::from_secs(10),
};

/// Stage 6's server, behind a fresh fault-injecting proxy.
async fn server_behind_proxy(db: &TestDb) -> FaultyProxy {
    FaultyProxy::start(server(db).await).await
}

/// Stage 6's server, on an ephemeral port of 127.0.0.1.
async fn server(db: &TestDb) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let server: SocketAddr = listener.local_addr().expect("the listener has an address");
    let router = stage6::router(db.pool(PoolSize::of(10)));
    tokio::spawn(async move { stage6::serve(listener, router).await });
    server
}

fn client(proxy: &FaultyProxy) -> PaymentsClient {
    client_with(proxy, POLICY)
}

fn client_with(proxy: &FaultyProxy, policy: RetryPolicy) -> PaymentsClient {
    PaymentsClient::new(&format!("http://{}", proxy.addr()), policy)
}

/// Sun, 06 Nov 1994 08:49:37 GMT, the example date of RFC 9110 §5.6.7.
const RFC_EXAMPLE_DATE: &str = "Sun, 06 Nov 1994 08:49:37 GMT";

/// The instant [`RFC_EXAMPLE_DATE`] names.
fn rfc_example_date() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)
}

#[rstest]
#[case::seconds("120", 120)]
#[case::no_seconds("0", 0)]
#[case::spaces_around_the_seconds(" 7 ", 7)]
fn a_retry_after_in_seconds_asks_for_that_many_seconds(#[case] value: &str, #[case] seconds: u64) {
    let got = retry_after(value, SystemTime::now());
    assert!(
        got == Some(Duration::from_secs(seconds)),
        "{}",
        t!(
            MESSAGES,
            "retry-after-in-seconds",
            value = format!("{value:?}"),
            seconds = seconds,
            got = format!("{got:?}")
        )
    );
}

/// A date 90 s ahead asks for those 90 s; a date already past, for no wait.
#[rstest]
#[case::ahead(rfc_example_date() - Duration::from_secs(90), 90)]
#[case::already_past(rfc_example_date() + Duration::from_secs(3600), 0)]
fn a_retry_after_date_asks_for_the_time_until_it(#[case] now: SystemTime, #[case] seconds: u64) {
    let got = retry_after(RFC_EXAMPLE_DATE, now);
    assert!(
        got == Some(Duration::from_secs(seconds)),
        "{}",
        t!(
            MESSAGES,
            "retry-after-as-a-date",
            value = RFC_EXAMPLE_DATE,
            seconds = seconds,
            got = format!("{got:?}")
        )
    );
}

#[test]
fn a_retry_after_that_is_neither_seconds_nor_a_date_is_ignored() {
    for value in ["", "soon", "-5", "1.5", "+5"] {
        let got = retry_after(value, SystemTime::now());
        assert!(
            got.is_none(),
            "{}",
            t!(
                MESSAGES,
                "retry-after-neither",
                value = format!("{value:?}"),
                got = format!("{got:?}")
            )
        );
    }
}

#[test]
fn the_backoff_doubles_with_each_try_within_its_jitter() {
    let first_delay = 200u64;
    let client = PaymentsClient::new(
        "http://127.0.0.1:1",
        RetryPolicy {
            first_delay: Duration::from_millis(first_delay),
            ..RetryPolicy::default()
        },
    );
    for attempt in 1..=4u32 {
        // 200 ms × 2^(attempt-1), times a factor in [0.5, 1.5).
        let base = first_delay << (attempt - 1);
        let (low, high) = (base / 2, base * 3 / 2);
        // Many draws: a wrong formula whose range only overlaps the right one
        // falls outside it in most of them.
        for _ in 0..200 {
            let wait = client.backoff(attempt).as_millis();
            assert!(
                (u128::from(low)..u128::from(high)).contains(&wait),
                "{}",
                t!(
                    MESSAGES,
                    "the-backoff-doubles-within-its-jitter",
                    attempt = attempt,
                    first = first_delay,
                    low = low,
                    high = high,
                    got = wait.to_string()
                )
            );
        }
    }
}

#[test]
fn the_wait_is_what_the_server_asked_for_capped_at_max_delay() {
    let max_delay = 10u64;
    let client = PaymentsClient::new(
        "http://127.0.0.1:1",
        RetryPolicy {
            max_delay: Duration::from_secs(max_delay),
            ..RetryPolicy::default()
        },
    );
    for (asked, wanted) in [(3u64, 3u64), (3600, max_delay)] {
        let got = client.wait_before_next_try(1, Some(Duration::from_secs(asked)));
        assert!(
            got == Duration::from_secs(wanted),
            "{}",
            t!(
                MESSAGES,
                "the-wait-is-what-the-server-asked-for",
                asked = asked,
                max = max_delay,
                wanted = wanted,
                got = format!("{got:?}")
            )
        );
    }
    // Without Retry-After: the backoff, 200 ms × [0.5, 1.5) for the first retry.
    let got = client.wait_before_next_try(1, None);
    assert!(
        got >= Duration::from_millis(100) && got < Duration::from_millis(300),
        "{}",
        t!(
            MESSAGES,
            "without-retry-after-the-wait-is-the-backoff",
            low = 100u64,
            high = 300u64,
            got = format!("{got:?}")
        )
    );
}

// ANCHOR: faults
#[rstest]
#[case::answer_lost_after_the_commit(Fault::DropResponse)]
#[case::request_lost_before_the_server(Fault::DropRequest)]
#[case::answer_later_than_the_client_timeout(Fault::HoldResponseUntilClientGivesUp)]
#[case::server_unavailable(Fault::Answer503)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_broken_first_try_is_retried_into_exactly_one_payment(#[case] fault: Fault) {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([fault]);

    let payment = Payment::new(1, 100);
    let reply = harness::within(
        Duration::from_secs(20),
        "pay()",
        client(&proxy).pay(&payment),
    )
    .await;

    let exchanges = proxy.exchanges();
    let reply = reply.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "pay-succeeds-on-a-retry",
                fault = fault_said(fault),
                error = e.to_string(),
                tries = tries(&exchanges)
            )
        )
    });
    assert!(
        reply.status == 201,
        "{}",
        t!(
            MESSAGES,
            "pay-ends-with-the-payments-201",
            fault = fault_said(fault),
            got = reply.shown()
        )
    );
    assert!(
        exchanges.len() >= 2,
        "{}",
        t!(
            MESSAGES,
            "a-broken-first-try-is-retried",
            fault = fault_said(fault),
            count = exchanges.len(),
            tries = tries(&exchanges)
        )
    );
    let payments = db.payment_count().await;
    harness::observe(
        &format!("stage7.{fault:?}"),
        &serde_json::json!({ "payments": payments, "tries": exchanges.len() }),
    );
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "however-many-tries-one-payment",
            fault = fault_said(fault),
            payments = payments,
            tries = tries(&exchanges)
        )
    );
    let keys: Vec<_> = exchanges
        .iter()
        .map(|e| e.idempotency_key.clone())
        .collect();
    assert!(
        keys.iter()
            .all(|k| k.as_deref() == Some(payment.key.as_str())),
        "{}",
        t!(
            MESSAGES,
            "every-try-sends-the-payments-key",
            key = &payment.key,
            tries = tries(&exchanges)
        )
    );
    // The answer the server produced the first time it saw the request, whether or
    // not that answer reached the client.
    let first_answer = exchanges
        .iter()
        .find(|e| e.reached_server)
        .and_then(|e| e.server_body.clone())
        .unwrap_or_else(|| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "no-try-reached-the-server",
                    tries = tries(&exchanges)
                )
            )
        });
    let first_answer: serde_json::Value =
        serde_json::from_str(&first_answer).expect("the server answers JSON");
    assert!(
        reply.body == first_answer,
        "{}",
        t!(
            MESSAGES,
            "the-client-ends-with-the-one-payments-body",
            first = first_answer.to_string(),
            got = reply.body.to_string()
        )
    );
}
// ANCHOR_END: faults

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refusal_is_not_retried() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    let reply = client(&proxy)
        .pay(&Payment::new(1, 0))
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(MESSAGES, "a-refusal-is-an-answer", error = e.to_string())
            )
        });
    assert!(
        reply.status == 400,
        "{}",
        t!(MESSAGES, "an-amount-of-0-is-refused", got = reply.shown())
    );
    let exchanges = proxy.exchanges();
    assert!(
        exchanges.len() == 1,
        "{}",
        t!(
            MESSAGES,
            "a-refusal-is-not-retried",
            count = exchanges.len(),
            tries = tries(&exchanges)
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_client_gives_up_after_four_tries() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::DropRequest; 5]);
    let payment = Payment::new(1, 100);
    let result = client(&proxy).pay(&payment).await;
    assert!(
        matches!(&result, Err(PayError::GaveUp { attempts: 4, key, .. }) if *key == payment.key),
        "{}",
        t!(
            MESSAGES,
            "pay-gives-up-after-four-tries",
            key = &payment.key,
            got = format!("{result:?}")
        )
    );
    let exchanges = proxy.exchanges();
    assert!(
        exchanges.len() == 4,
        "{}",
        t!(
            MESSAGES,
            "four-tries-in-all",
            count = exchanges.len(),
            tries = tries(&exchanges)
        )
    );
    payments_made_by_now(db.payment_count().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_payments_are_two_keys() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    let client = client(&proxy);
    let first = client.pay(&Payment::new(1, 100)).await.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(MESSAGES, "the-first-payment-is-made", error = e.to_string())
        )
    });
    let second = client.pay(&Payment::new(1, 100)).await.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-second-payment-is-made",
                error = e.to_string()
            )
        )
    });
    assert!(
        first.body["id"] != second.body["id"],
        "{}",
        t!(
            MESSAGES,
            "each-payment-new-has-a-key-of-its-own",
            id = first.body["id"].to_string(),
            tries = tries(&proxy.exchanges())
        )
    );
    payments_made_by_now(db.payment_count().await, 2);
}

// ANCHOR: come_back_later
/// 408 and 429 are not refusals of the request: they say "not now". Retried with
/// the same key, they end in one payment. `Retry-After` is honoured in both of its
/// forms (delay-seconds and HTTP-date), never longer than `max_delay`.
#[rstest]
#[case::request_timeout(Fault::Answer408)]
#[case::too_many_requests_retry_in_seconds(Fault::Answer429 { retry_after: "0" })]
#[case::too_many_requests_retry_at_a_past_date(Fault::Answer429 { retry_after: "Sun, 06 Nov 1994 08:49:37 GMT" })]
#[case::too_many_requests_retry_after_an_hour_capped(Fault::Answer429 { retry_after: "3600" })]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_408_or_429_is_retried_into_exactly_one_payment(#[case] fault: Fault) {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([fault]);

    // An hour asked for, 200 ms waited: `max_delay` caps it, so this test ends at once.
    let payment = Payment::new(1, 100);
    let reply = harness::within(
        Duration::from_secs(20),
        "pay()",
        client(&proxy).pay(&payment),
    )
    .await;

    let reply = reply.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "not-now-is-retried",
                fault = fault_said(fault),
                error = e.to_string(),
                tries = tries(&proxy.exchanges())
            )
        )
    });
    assert!(
        reply.status == 201,
        "{}",
        t!(
            MESSAGES,
            "pay-ends-with-the-payments-201",
            fault = fault_said(fault),
            got = reply.shown()
        )
    );
    let exchanges = proxy.exchanges();
    assert!(
        exchanges.len() == 2,
        "{}",
        t!(
            MESSAGES,
            "the-answer-then-the-retry",
            fault = fault_said(fault),
            count = exchanges.len(),
            tries = tries(&exchanges)
        )
    );
    assert!(
        exchanges[0].idempotency_key == exchanges[1].idempotency_key,
        "{}",
        t!(
            MESSAGES,
            "the-retry-sends-the-same-key",
            tries = tries(&exchanges)
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wait_that_would_overrun_the_budget_is_not_waited() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::Answer429 {
        retry_after: "3600",
    }]);
    // The server asks for an hour; the client may wait that long between tries,
    // but not beyond its budget of 1 s: it gives up now instead of sleeping.
    let policy = RetryPolicy {
        max_delay: Duration::from_secs(7200),
        budget: Duration::from_secs(1),
        ..POLICY
    };

    let payment = Payment::new(1, 100);
    let result = harness::within(
        Duration::from_secs(20),
        "pay()",
        client_with(&proxy, policy).pay(&payment),
    )
    .await;

    assert!(
        matches!(&result, Err(PayError::GaveUp { attempts: 1, last, .. }) if last.contains("HTTP 429")),
        "{}",
        t!(
            MESSAGES,
            "no-wait-past-the-budget",
            retry_after = "3600",
            budget = MESSAGES.current().decimal(policy.budget.as_secs_f64(), 0),
            got = format!("{result:?}")
        )
    );
    let exchanges = proxy.exchanges();
    assert!(
        exchanges.len() == 1,
        "{}",
        t!(
            MESSAGES,
            "no-second-try-past-the-budget",
            count = exchanges.len(),
            tries = tries(&exchanges)
        )
    );
    payments_made_by_now(db.payment_count().await, 0);
}
// ANCHOR_END: come_back_later

/// The answer the server produced the first time a try reached it, whether or not
/// it reached the client.
fn first_server_answer(proxy: &FaultyProxy) -> serde_json::Value {
    let exchanges = proxy.exchanges();
    let first = exchanges
        .iter()
        .find(|e| e.reached_server)
        .and_then(|e| e.server_body.clone())
        .unwrap_or_else(|| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "no-try-reached-the-server",
                    tries = tries(&exchanges)
                )
            )
        });
    serde_json::from_str(&first).expect("the server answers JSON")
}

/// Whether every try the proxy saw sent `key`.
fn every_try_sent(proxy: &FaultyProxy, key: &str) -> bool {
    proxy
        .exchanges()
        .iter()
        .all(|e| e.idempotency_key.as_deref() == Some(key))
}

// ANCHOR: in_flight
/// A first request with the payment's key is held in its transaction at the
/// server (another process of the caller sent it, say). The client's try waits
/// the server's bounded 250 ms on the key and is told 409: "still in flight,
/// retry later", which says nothing of the payment. The client retries; the proxy
/// holds that retry until the first request has committed, and the retry is
/// played the first request's 201.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_409_is_retried_until_the_request_in_flight_with_the_key_has_answered() {
    let db = TestDb::create(reference_schema()).await;
    let server = server(&db).await;
    let proxy = FaultyProxy::start(server).await;
    let payment = Payment::new(1, 100);
    let bound = Duration::from_secs(20);

    let gate = PaymentGate::close(&db, 1).await;
    let first = Call::post(server, "/payments", &payment.request.to_body())
        .key(Some(&payment.key))
        .within(bound)
        .send();
    let first = tokio::spawn(first);
    gate.wait_until_held_by(&db, 1, &first).await;

    // The client's first try reaches the server while the key is held; its
    // second, if it makes one, waits in the proxy.
    proxy.inject([Fault::Pass, Fault::HoldRequestUntilReleased]);
    let client = client_with(
        &proxy,
        RetryPolicy {
            timeout: bound,
            ..POLICY
        },
    );
    let mut paying = tokio::spawn({
        let payment = payment.clone();
        async move { client.pay(&payment).await }
    });
    let ended_early = harness::within(bound, &t!(MESSAGES, "waiting-for-the-second-try"), async {
        tokio::select! {
            () = proxy.until_held(1) => None,
            ended = &mut paying => Some(ended),
        }
    })
    .await;
    gate.open().await;
    let first = harness::within(bound, &t!(MESSAGES, "the-first-request"), first)
        .await
        .expect("the first request's task does not panic");
    proxy.release();
    let paid = match ended_early {
        Some(ended) => ended,
        None => harness::within(bound, "pay()", paying).await,
    };
    // What the client's first try was told, whatever `pay` made of it afterwards.
    let exchanges = proxy.exchanges();
    let first_try = exchanges.first().and_then(|e| e.server_status);
    if let Some(status) = first_try {
        harness::observe(
            "stage7.in_flight",
            &serde_json::json!({ "first_try": status }),
        );
    }
    let reply = paid
        .unwrap_or_else(|e| panic!("{}", t!(MESSAGES, "pay-panicked", error = e.to_string())))
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "pay-ends-with-the-first-requests-201",
                    error = e.to_string(),
                    tries = tries(&proxy.exchanges())
                )
            )
        });

    assert!(
        first_try == Some(409),
        "{}",
        t!(
            MESSAGES,
            "the-first-try-is-told-409",
            tries = tries(&exchanges)
        )
    );
    assert!(
        reply.status == 201 && reply.body == first.body,
        "{}",
        t!(
            MESSAGES,
            "a-409-is-retried-with-the-same-key",
            got = reply.shown(),
            first = first.reply().shown()
        )
    );
    assert!(
        every_try_sent(&proxy, &payment.key),
        "{}",
        t!(
            MESSAGES,
            "every-try-sends-the-payments-key",
            key = &payment.key,
            tries = tries(&exchanges)
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: in_flight

// ANCHOR: resume
/// The client gives up with the outcome unknown: its first try's payment
/// committed and the answer was lost, and its three retries never reached the
/// server. The caller pays again with the key the error handed back: still one
/// payment, and the first try's 201.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn after_giving_up_the_caller_pays_again_with_the_same_key_into_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([
        Fault::DropResponse,
        Fault::DropRequest,
        Fault::DropRequest,
        Fault::DropRequest,
    ]);
    let client = client(&proxy);
    let payment = Payment::new(1, 100);

    let gave_up = harness::within(Duration::from_secs(20), "pay()", client.pay(&payment)).await;
    let error = match gave_up {
        Err(error @ PayError::GaveUp { attempts: 4, .. }) => error,
        other => panic!(
            "{}",
            t!(
                MESSAGES,
                "pay-gives-up-after-four-unanswered-tries",
                got = format!("{other:?}")
            )
        ),
    };
    assert!(
        error.key() == payment.key,
        "{}",
        t!(
            MESSAGES,
            "the-error-hands-back-the-key",
            key = &payment.key,
            got = error.key()
        )
    );
    let again = Payment::resume(error.key(), 1, 100);
    let reply = harness::within(
        Duration::from_secs(20),
        &t!(MESSAGES, "pay-again"),
        client.pay(&again),
    )
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(MESSAGES, "paying-again-is-answered", error = e.to_string())
        )
    });

    let made = db.payment_count().await;
    assert!(
        made == 1,
        "{}",
        t!(
            MESSAGES,
            "paying-again-with-the-key-replays-the-payment",
            payments = made
        )
    );
    assert!(
        reply.status == 201,
        "{}",
        t!(MESSAGES, "paying-again-ends-in-201", got = reply.shown())
    );
    let first = first_server_answer(&proxy);
    assert!(
        reply.body == first,
        "{}",
        t!(
            MESSAGES,
            "the-caller-ends-with-the-one-payments-body",
            first = first.to_string(),
            got = reply.body.to_string()
        )
    );
    assert!(
        every_try_sent(&proxy, &payment.key),
        "{}",
        t!(
            MESSAGES,
            "every-try-of-both-calls-sends-the-payments-key",
            key = &payment.key,
            tries = tries(&proxy.exchanges())
        )
    );
}
// ANCHOR_END: resume

/// A gateway answers the client with a page of its own after the server paid:
/// the answer cannot be read, and says nothing of the payment. The error hands
/// back the key; paid again with it, the payment is replayed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_answer_that_is_not_json_hands_back_the_key_and_paying_again_replays() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::ReplaceResponseWithHtml]);
    let client = client(&proxy);
    let payment = Payment::new(1, 100);

    let unreadable = harness::within(Duration::from_secs(20), "pay()", client.pay(&payment)).await;
    let error = match unreadable {
        Err(error @ PayError::NotJson { status: 200, .. }) => error,
        other => panic!(
            "{}",
            t!(
                MESSAGES,
                "an-html-page-is-not-an-answer",
                got = format!("{other:?}")
            )
        ),
    };
    assert!(
        error.key() == payment.key,
        "{}",
        t!(
            MESSAGES,
            "the-error-hands-back-the-key",
            key = &payment.key,
            got = error.key()
        )
    );
    let again = Payment::resume(error.key(), 1, 100);
    let reply = harness::within(
        Duration::from_secs(20),
        &t!(MESSAGES, "pay-again"),
        client.pay(&again),
    )
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(MESSAGES, "paying-again-is-answered", error = e.to_string())
        )
    });
    assert!(
        reply.status == 201,
        "{}",
        t!(MESSAGES, "paying-again-ends-in-201", got = reply.shown())
    );
    let first = first_server_answer(&proxy);
    assert!(
        reply.body == first,
        "{}",
        t!(
            MESSAGES,
            "paying-again-replays-the-first-answer",
            first = first.to_string(),
            got = reply.body.to_string()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}

// ANCHOR: keep_the_key
/// The caller's side: its orders, each with the key of its payment, in the
/// caller's own database.
const ORDERS: Schema = Schema::new(
    "tests/stage7_retrying_client.rs",
    "CREATE TABLE orders (
         id BIGINT PRIMARY KEY,
         amount INT NOT NULL,
         payment_key TEXT NOT NULL
     );",
);

/// Creates order `order_id` and its payment, whose key is stored in the order's
/// row in the same statement: kept before the first try.
async fn create_order(orders: &TestDb, order_id: i64, amount: i32) -> Payment {
    let payment = Payment::new(order_id, amount);
    let mut conn = orders.connect().await;
    sqlx::query("INSERT INTO orders (id, amount, payment_key) VALUES ($1, $2, $3)")
        .bind(order_id)
        .bind(amount)
        .bind(&payment.key)
        .execute(&mut conn)
        .await
        .expect("the order is stored");
    payment
}

/// The payment of order `order_id`, as a process started again reads it back.
async fn payment_of(orders: &TestDb, order_id: i64) -> Payment {
    let mut conn = orders.connect().await;
    let (amount, key): (i32, String) =
        sqlx::query_as("SELECT amount, payment_key FROM orders WHERE id = $1")
            .bind(order_id)
            .fetch_one(&mut conn)
            .await
            .expect("the order is stored");
    Payment::resume(key, order_id, amount)
}
// ANCHOR_END: keep_the_key

// ANCHOR: restart
/// The first process stores the order with its payment's key, makes one try
/// (the payment commits, its answer is lost), and dies with everything it held
/// in memory. A process started again reads the order back and pays it: one
/// payment, and that payment's 201.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_client_started_again_pays_once_with_the_key_kept_with_the_order() {
    let db = TestDb::create(reference_schema()).await;
    let orders = TestDb::create(ORDERS).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::DropResponse]);

    {
        let payment = create_order(&orders, 1, 100).await;
        // One try in its policy: the process dies right after it.
        let dying = client_with(
            &proxy,
            RetryPolicy {
                attempts: 1,
                ..POLICY
            },
        );
        let died = harness::within(Duration::from_secs(20), "pay()", dying.pay(&payment)).await;
        assert!(
            died.is_err(),
            "{}",
            t!(
                MESSAGES,
                "the-only-tries-answer-was-lost",
                got = returned(&died)
            )
        );
    }
    let payment = payment_of(&orders, 1).await;
    let restarted = client(&proxy);
    let reply = harness::within(Duration::from_secs(20), "pay()", restarted.pay(&payment))
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "the-restarted-client-is-answered",
                    error = e.to_string()
                )
            )
        });

    let made = db.payment_count().await;
    harness::observe("stage7.restart", &serde_json::json!({ "payments": made }));
    assert!(
        made == 1,
        "{}",
        t!(
            MESSAGES,
            "the-restarted-process-sends-the-kept-key",
            payments = made
        )
    );
    assert!(
        reply.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-restarted-client-ends-in-201",
            got = reply.shown()
        )
    );
    let first = first_server_answer(&proxy);
    assert!(
        reply.body == first,
        "{}",
        t!(
            MESSAGES,
            "the-restarted-client-ends-with-the-one-payments-body",
            first = first.to_string(),
            got = reply.body.to_string()
        )
    );
    assert!(
        every_try_sent(&proxy, &payment.key),
        "{}",
        t!(
            MESSAGES,
            "every-try-of-both-processes-sends-the-kept-key",
            key = &payment.key,
            tries = tries(&proxy.exchanges())
        )
    );
}
// ANCHOR_END: restart
