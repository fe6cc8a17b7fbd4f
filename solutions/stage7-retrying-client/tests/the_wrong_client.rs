//! The common mistakes, shown: a client that makes a new Idempotency-Key for
//! every try pays twice when the first answer is lost after the server committed;
//! so does a client that makes its key in memory when `pay` is called, once its
//! process dies and starts again.

use std::time::Duration;

use harness::proxy::{Fault, FaultyProxy};
use harness::{PoolSize, TestDb, reference_schema};
use new_key_per_try::{Payment, RetryPolicy};

/// Short delays and a short timeout, as in the stage's tests.
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
        .expect("a free port");
    let server = listener.local_addr().expect("an address");
    let router = stage6::router(db.pool(PoolSize::of(10)));
    tokio::spawn(async move { stage6::serve(listener, router).await });
    FaultyProxy::start(server).await
}

// ANCHOR: pays_twice
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_key_per_try_pays_twice_when_the_answer_is_lost() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::DropResponse]);

    let client = new_key_per_try::PaymentsClient::new(&format!("http://{}", proxy.addr()), POLICY);
    let reply = client
        .pay(&Payment::new(1, 100))
        .await
        .expect("the retry is answered");

    let payments = db.payment_count().await;
    harness::observe(
        "stage7.new_key_per_try",
        &serde_json::json!({ "payments": payments }),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(
        payments, 2,
        "the lost answer's payment, and the retry's: the customer paid twice"
    );
}
// ANCHOR_END: pays_twice

// ANCHOR: restart_pays_twice
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_kept_in_memory_pays_twice_when_the_process_starts_again() {
    let db = TestDb::create(reference_schema()).await;
    let proxy = server_behind_proxy(&db).await;
    proxy.inject([Fault::DropResponse]);
    let url = format!("http://{}", proxy.addr());
    let payment = Payment::new(1, 100);

    // The first process: one try, the payment commits, its answer is lost; the
    // process dies.
    let dying = key_in_memory::PaymentsClient::new(
        &url,
        RetryPolicy {
            attempts: 1,
            ..POLICY
        },
    );
    let died = dying.pay(&payment).await;
    assert!(died.is_err(), "the only try's answer was lost: {died:?}");
    // The process starts again and pays the same order.
    let restarted = key_in_memory::PaymentsClient::new(&url, POLICY);
    let reply = restarted.pay(&payment).await.expect("the order is paid");

    let payments = db.payment_count().await;
    harness::observe(
        "stage7.restarted_with_the_key_in_memory",
        &serde_json::json!({ "payments": payments }),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(
        payments, 2,
        "the first process's payment, and the restarted one's under a new key: the customer \
         paid twice"
    );
}
// ANCHOR_END: restart_pays_twice
