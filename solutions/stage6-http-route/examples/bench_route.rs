//! What idempotency costs, measured: requests per second through `POST /payments`
//! with a new key per request, with one hot key (every request after the first is
//! a replay), and through a route with no idempotency at all (one INSERT), in one
//! run, on one server. `just bench-route` runs it (in release mode).
//!
//! Bounded: each mode sends `REQUESTS` requests from `WORKERS` concurrent clients.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use harness::{PoolSize, TestDb, reference_schema};
use payment_model::PaymentRequest;
use sqlx::PgPool;

const REQUESTS: usize = 4000;
const WORKERS: usize = 20;

/// The same work without the key: parse, one INSERT, answer.
async fn plain(State(pool): State<PgPool>, body: String) -> (StatusCode, String) {
    let Ok(request) = PaymentRequest::parse(&body) else {
        return (StatusCode::BAD_REQUEST, String::new());
    };
    let inserted: Result<i64, _> =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&pool)
            .await;
    match inserted {
        Ok(id) => (
            StatusCode::CREATED,
            payment_model::Reply::created(id, &request).body.to_string(),
        ),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, String::new()),
    }
}

async fn serve(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

/// Sends `REQUESTS` requests from `WORKERS` clients; returns requests per second.
async fn load(url: String, key: impl Fn(usize) -> Option<String> + Send + Sync + 'static) -> f64 {
    let next = Arc::new(AtomicUsize::new(0));
    let key = Arc::new(key);
    let started = Instant::now();
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (next, key, url) = (next.clone(), key.clone(), url.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let body = PaymentRequest {
                    order_id: 1,
                    amount: 100,
                }
                .to_body();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= REQUESTS {
                        return;
                    }
                    let mut request = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body.clone());
                    if let Some(key) = key(i) {
                        request = request.header("idempotency-key", key);
                    }
                    match request.send().await {
                        Ok(response) if response.status().is_success() => {}
                        other => panic!("request {i} failed: {other:?}"),
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a worker finished");
    }
    REQUESTS as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(WORKERS as u32)).await;
    let idempotent = serve(stage6::router(pool.clone())).await;
    let plain = serve(
        axum::Router::new()
            .route("/payments", post(plain))
            .with_state(pool),
    )
    .await;

    // A warm-up pass, so that connection set-up is not measured.
    load(format!("http://{plain}/payments"), |_| None).await;
    let plain_rps = load(format!("http://{plain}/payments"), |_| None).await;
    let distinct_rps = load(format!("http://{idempotent}/payments"), |i| {
        Some(format!("distinct-{i}"))
    })
    .await;
    let hot_rps = load(format!("http://{idempotent}/payments"), |_| {
        Some("hot-key".to_owned())
    })
    .await;

    println!(
        "{REQUESTS} requests per mode, {WORKERS} concurrent clients, one PostgreSQL (fsync off), 2 cores\n"
    );
    println!("| route | requests/s | vs no idempotency |");
    println!("|---|---|---|");
    println!("| no idempotency (one INSERT) | {plain_rps:.0} | 1.00 |");
    println!(
        "| POST /payments, a new key per request | {distinct_rps:.0} | {:.2} |",
        distinct_rps / plain_rps
    );
    println!(
        "| POST /payments, one hot key (replays) | {hot_rps:.0} | {:.2} |",
        hot_rps / plain_rps
    );
}
