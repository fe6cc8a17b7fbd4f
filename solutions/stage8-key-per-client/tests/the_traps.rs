//! The trap of stage 8, proven real: with a global key, client B sending a key
//! client A already used receives A's stored answer.

use std::net::SocketAddr;

use harness::{PoolSize, Schema, TestDb};
use serde_json::Value;

const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('client-a', encode(sha256(convert_to('token-of-a', 'UTF8')), 'hex')),
    ('client-b', encode(sha256(convert_to('token-of-b', 'UTF8')), 'hex'))";
const BODY: &str = r#"{"orderId":1,"amount":100}"#;

async fn post(addr: SocketAddr, token: &str) -> (u16, Option<String>, Value) {
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/payments"))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .header("idempotency-key", "order-1")
        .body(BODY)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let replayed = response
        .headers()
        .get("idempotent-replayed")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response.json().await.expect("a JSON body");
    (status, replayed, body)
}

// ANCHOR: leak
#[tokio::test]
async fn with_a_global_key_client_b_receives_client_a_payment() {
    let db = TestDb::create(Schema::new(
        stage8::global_key::MIGRATION_SOURCE,
        stage8::global_key::MIGRATION,
    ))
    .await;
    db.execute(CLIENTS).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let router = stage8::global_key::router_with(db.pool(PoolSize::of(5)), Default::default());
    tokio::spawn(async move { stage8::serve(listener, router).await });

    let from_a = post(addr, "token-of-a").await;
    let from_b = post(addr, "token-of-b").await;
    let second = if from_b.2 == from_a.2 {
        "A's answer"
    } else {
        "own payment"
    };
    harness::observe(
        "stage8.other_client_global_key",
        &serde_json::json!({ "second": second }),
    );
    assert_eq!(from_a.0, 201);
    assert_eq!(
        from_b,
        (201, Some("true".to_owned()), from_a.2.clone()),
        "B is played A's stored answer: A's payment id and amount"
    );
    assert_eq!(
        db.payment_count().await,
        1,
        "B paid nothing, and was told it did"
    );
}
// ANCHOR_END: leak
