//! What the reaper costs the requests, measured: `POST /payments` latency under a
//! steady load of new payments, without reaping, then while the reaper deletes
//! 1,000,000 expired keys, in one run on one server. `just bench-reap` runs it (in
//! release mode): the figures go to stdout as JSON, and book/bench_tables.py turns them
//! into the table the book shows, in each of its languages.
//!
//! A benchmark, not a test: nothing here asserts a figure.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use harness::{PoolSize, Schema, TestDb};

/// Expired keys to reap.
const EXPIRED: i64 = 1_000_000;
/// Concurrent clients sending new payments.
const WORKERS: usize = 8;
/// Requests of the measurement without reaping.
const BASELINE_REQUESTS: usize = 4000;
/// The goal: p99 while reaping at most this many times p99 without.
const P99_GOAL: f64 = 2.0;

const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('old', 'not-a-token-hash'),
    ('load', encode(sha256(convert_to('token-of-load', 'UTF8')), 'hex'))";

/// A million keys of the client 'old', answered two days ago, in one statement.
const EXPIRED_KEYS: &str = "INSERT INTO idempotency_keys
        (client_id, key, body_hash, status, response, created_at)
    SELECT 1, 'old-' || g, 'hash', 201, '{\"id\": \"0\"}'::jsonb,
           now() - interval '2 days' + g * interval '1 millisecond'
    FROM generate_series(1, 1000000) g";

async fn serve(router: stage9::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { stage9::serve(listener, router).await });
    addr
}

/// Sends new payments from `WORKERS` clients until `enough(sent)`; returns each
/// request's latency.
async fn load(
    addr: SocketAddr,
    first_key: usize,
    enough: Arc<dyn Fn(usize) -> bool + Send + Sync>,
) -> Vec<Duration> {
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (next, enough) = (next.clone(), enough.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut latencies = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if enough(i) {
                        return latencies;
                    }
                    let started = Instant::now();
                    let response = http
                        .post(format!("http://{addr}/payments"))
                        .header("content-type", "application/json")
                        .header("authorization", "Bearer token-of-load")
                        .header("idempotency-key", format!("new-{}", first_key + i))
                        .body(r#"{"orderId":1,"amount":100}"#)
                        .send()
                        .await;
                    match response {
                        Ok(response) if response.status().as_u16() == 201 => {}
                        Ok(response) => panic!("a request got {}", response.status()),
                        Err(e) => panic!("a request failed: {e}"),
                    }
                    latencies.push(started.elapsed());
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await.expect("a worker ends"));
    }
    all
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Row {
    requests: usize,
    p50: Duration,
    p99: Duration,
    per_second: f64,
}

impl Row {
    fn figures(&self) -> serde_json::Value {
        serde_json::json!({
            "requests": self.requests,
            "p50_ms": ms(self.p50),
            "p99_ms": ms(self.p99),
            "per_second": self.per_second,
        })
    }
}

fn row(mut latencies: Vec<Duration>, took: Duration) -> Row {
    latencies.sort();
    Row {
        requests: latencies.len(),
        p50: percentile(&latencies, 50.0),
        p99: percentile(&latencies, 99.0),
        per_second: latencies.len() as f64 / took.as_secs_f64(),
    }
}

#[tokio::main]
async fn main() {
    let db = TestDb::create(Schema::new(stage9::MIGRATION_SOURCE, stage9::MIGRATION)).await;
    db.execute(CLIENTS).await;
    let filled = Instant::now();
    db.execute(EXPIRED_KEYS).await;
    db.execute("ANALYZE idempotency_keys").await;
    eprintln!(
        "bench_reap: {EXPIRED} expired keys inserted in {:.1} s",
        filled.elapsed().as_secs_f64()
    );
    let config = stage9::Config::default();
    let addr = serve(stage9::router_with(db.pool(PoolSize::of(10)), config)).await;

    // Warm-up: connections opened, code paths hot.
    load(addr, 0, Arc::new(|i| i >= 500)).await;

    let started = Instant::now();
    let baseline = load(addr, 1_000_000, Arc::new(|i| i >= BASELINE_REQUESTS)).await;
    let without = row(baseline, started.elapsed());

    let done = Arc::new(AtomicBool::new(false));
    let reaper = {
        let (pool, done) = (db.pool(PoolSize::of(1)), done.clone());
        tokio::spawn(async move {
            let started = Instant::now();
            let reaped = stage9::reap_expired_keys(&pool, &config).await;
            done.store(true, Ordering::SeqCst);
            (reaped, started.elapsed())
        })
    };
    let started = Instant::now();
    let during = {
        let done = done.clone();
        load(
            addr,
            2_000_000,
            Arc::new(move |_| done.load(Ordering::SeqCst)),
        )
        .await
    };
    let load_took = started.elapsed();
    let (reaped, reap_took) = reaper.await.expect("the reaper ends");
    let reaped = reaped.expect("the reaper runs");
    let with = row(during, load_took);
    let figures = serde_json::json!({
        "clients": WORKERS,
        "without_reaping": without.figures(),
        "while_reaping": with.figures(),
        "reaped": {
            "keys": reaped.keys,
            "batches": reaped.batches,
            "batch": config.reap_batch,
            "seconds": reap_took.as_secs_f64(),
        },
        "p99_ratio": with.p99.as_secs_f64() / without.p99.as_secs_f64(),
        "p99_goal": P99_GOAL,
        "keys_per_second": reaped.keys as f64 / reap_took.as_secs_f64(),
    });
    println!("{figures:#}");
}
