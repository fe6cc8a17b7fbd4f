//! Stage 7: the retrying client, through a proxy that breaks the network on cue.
//! In every case: exactly one payment, and the client ends with the 201 the server
//! produced for the first try that reached it.

use std::net::SocketAddr;
use std::time::Duration;

use harness::proxy::{Fault, FaultyProxy};
use harness::{PoolSize, TestDb, reference_schema};
use rstest::rstest;
use stage7::{PayError, PaymentsClient, RetryPolicy};

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
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let server: SocketAddr = listener.local_addr().expect("the listener has an address");
    let router = stage6::router(db.pool(PoolSize::of(10)));
    tokio::spawn(async move { stage6::serve(listener, router).await });
    FaultyProxy::start(server).await
}

fn client(proxy: &FaultyProxy) -> PaymentsClient {
    client_with(proxy, POLICY)
}

fn client_with(proxy: &FaultyProxy, policy: RetryPolicy) -> PaymentsClient {
    PaymentsClient::new(&format!("http://{}", proxy.addr()), policy)
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

    let reply = harness::within(Duration::from_secs(20), "pay()", client(&proxy).pay(1, 100)).await;

    let exchanges = proxy.exchanges();
    let reply =
        reply.unwrap_or_else(|e| panic!("pay() should succeed on a retry after {fault:?}: {e}"));
    assert_eq!(reply.status, 201, "{reply:?}");
    assert!(
        exchanges.len() >= 2,
        "{fault:?} on the first try means at least one retry: {exchanges:#?}"
    );
    let payments = db.payment_count().await;
    harness::observe(
        &format!("stage7.{fault:?}"),
        &serde_json::json!({ "payments": payments, "tries": exchanges.len() }),
    );
    assert_eq!(
        payments, 1,
        "{fault:?}: however many tries reached the server, one payment"
    );
    let keys: Vec<_> = exchanges
        .iter()
        .map(|e| e.idempotency_key.clone())
        .collect();
    assert!(
        keys[0].is_some() && keys.iter().all(|k| k == &keys[0]),
        "every try must send the same Idempotency-Key, made once before the first try: {keys:?}"
    );
    // The answer the server produced the first time it saw the request, whether or
    // not that answer reached the client.
    let first_answer = exchanges
        .iter()
        .find(|e| e.reached_server)
        .and_then(|e| e.server_body.clone())
        .expect("some try reached the server");
    let first_answer: serde_json::Value =
        serde_json::from_str(&first_answer).expect("the server answers JSON");
    assert_eq!(
        reply.body, first_answer,
        "the client ends with the body of the one payment"
    );
}
// ANCHOR_END: faults

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refusal_is_not_retried() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    let reply = client(&proxy)
        .pay(1, 0)
        .await
        .expect("a refusal is an answer");
    assert_eq!(reply.status, 400, "an amount of 0 is refused: {reply:?}");
    assert_eq!(
        proxy.exchanges().len(),
        1,
        "a 4xx other than 408, 409 and 429 is final: retrying would get the same refusal"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_client_gives_up_after_four_tries() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::DropRequest; 5]);
    let result = client(&proxy).pay(1, 100).await;
    assert!(
        matches!(result, Err(PayError::GaveUp { attempts: 4, .. })),
        "{result:?}"
    );
    assert_eq!(
        proxy.exchanges().len(),
        4,
        "4 tries in all, the first included"
    );
    let made = db.payment_count().await;
    assert!(
        made == 0,
        "0 payments should have been made by now: there are {made}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_payments_are_two_keys() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    let client = client(&proxy);
    let first = client.pay(1, 100).await.expect("the first payment");
    let second = client.pay(1, 100).await.expect("the second payment");
    assert_ne!(
        first.body["id"], second.body["id"],
        "each call of pay() is a new operation with a key of its own"
    );
    let made = db.payment_count().await;
    assert!(
        made == 2,
        "2 payments should have been made by now: there are {made}"
    );
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
    let reply = harness::within(Duration::from_secs(20), "pay()", client(&proxy).pay(1, 100)).await;

    let reply = reply.unwrap_or_else(|e| {
        panic!("{fault:?} means \"not now\": pay() should retry it with the same key: {e}")
    });
    assert_eq!(reply.status, 201, "{reply:?}");
    let exchanges = proxy.exchanges();
    assert_eq!(
        exchanges.len(),
        2,
        "the {fault:?}, then the retry: {exchanges:#?}"
    );
    assert_eq!(
        exchanges[0].idempotency_key, exchanges[1].idempotency_key,
        "the retry sends the same key"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
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

    let result = harness::within(
        Duration::from_secs(20),
        "pay()",
        client_with(&proxy, policy).pay(1, 100),
    )
    .await;

    assert!(
        matches!(&result, Err(PayError::GaveUp { attempts: 1, last, .. }) if last.contains("HTTP 429")),
        "one try, then no wait past the budget: {result:?}"
    );
    assert_eq!(proxy.exchanges().len(), 1, "no second try");
    let made = db.payment_count().await;
    assert!(
        made == 0,
        "0 payments should have been made by now: there are {made}"
    );
}
// ANCHOR_END: come_back_later
