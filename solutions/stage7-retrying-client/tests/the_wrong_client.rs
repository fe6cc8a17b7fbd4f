//! The common mistake, shown: a client that makes a new Idempotency-Key for every
//! try pays twice when the first answer is lost after the server committed.

use std::time::Duration;

use harness::proxy::{Fault, FaultyProxy};
use harness::{PoolSize, TestDb, reference_schema};
use new_key_per_try::RetryPolicy;

// ANCHOR: pays_twice
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_key_per_try_pays_twice_when_the_answer_is_lost() {
    let db = TestDb::create(reference_schema()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let server = listener.local_addr().expect("an address");
    let router = stage6::router(db.pool(PoolSize::of(10)));
    tokio::spawn(async move { stage6::serve(listener, router).await });
    let proxy = FaultyProxy::start(server).await;
    proxy.inject([Fault::DropResponse]);

    let policy = RetryPolicy {
        attempts: 4,
        first_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(200),
        timeout: Duration::from_millis(500),
        budget: Duration::from_secs(10),
    };
    let client = new_key_per_try::PaymentsClient::new(&format!("http://{}", proxy.addr()), policy);
    let reply = client.pay(1, 100).await.expect("the retry is answered");

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
