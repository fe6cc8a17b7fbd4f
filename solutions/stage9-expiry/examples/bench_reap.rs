//! What the reaper costs the requests, measured: `POST /payments` latency under a
//! steady load of new payments, without reaping, then while the reaper deletes
//! 1,000,000 expired keys, in one run on one server. `just bench-reap` runs it (in
//! release mode) and writes the table the book shows.
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

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

struct Row {
    what: String,
    requests: usize,
    p50: Duration,
    p99: Duration,
    per_second: f64,
}

fn row(what: String, mut latencies: Vec<Duration>, took: Duration) -> Row {
    latencies.sort();
    Row {
        what,
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
    let without = row("without reaping".to_owned(), baseline, started.elapsed());

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
    let with = row(
        format!(
            "while the reaper deletes {} keys ({} batches of at most {}, {:.1} s)",
            reaped.keys,
            reaped.batches,
            config.reap_batch,
            reap_took.as_secs_f64()
        ),
        during,
        load_took,
    );

    println!("| Load: {WORKERS} clients, new payments | requests | p50 | p99 | requests/s |");
    println!("|---|---|---|---|---|");
    for r in [&without, &with] {
        println!(
            "| {} | {} | {} | {} | {:.0} |",
            r.what,
            r.requests,
            ms(r.p50),
            ms(r.p99),
            r.per_second
        );
    }
    println!();
    println!(
        "p99 while reaping / p99 without: **{:.2}x** (goal: at most 2x). The reaper deleted {:.0} keys per second.",
        with.p99.as_secs_f64() / without.p99.as_secs_f64(),
        reaped.keys as f64 / reap_took.as_secs_f64()
    );
}
