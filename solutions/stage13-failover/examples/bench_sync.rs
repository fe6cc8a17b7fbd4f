//! What waiting for the standby costs, measured: the COMMIT's latency at each
//! `synchronous_commit` level, and the payments per second of the model answer's
//! `create_payment` with and without a synchronous standby, on a primary and its
//! standby started by the harness. `just bench-sync` runs it in release mode: the
//! figures go to stdout as JSON, and book/bench_tables.py turns them into the
//! table the book shows, in each of its languages.
//!
//! Both servers run on this machine, in memory, with `fsync=off`: the standby's
//! confirmation costs a round trip over a local socket and no disk flush. Between
//! two machines, add the network's round trip and a flush on each side: these
//! figures are the lower bound of that cost.
//!
//! A benchmark, not a test: nothing here asserts a figure.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use harness::{Pair, PoolSize, Schema, Server, ServerSettings};
use sqlx::Connection;
use stage13::{App, ClientId, Config};

/// Transactions one session commits at each level, per run: the latency.
const COMMITS: usize = 1000;
/// Concurrent callers of `create_payment`, and the payments they make per run.
const WORKERS: usize = 20;
const PAYMENTS: usize = 2000;
/// The levels whose COMMIT is timed, in the order of the table.
const LEVELS: [&str; 4] = ["local", "remote_write", "on", "remote_apply"];

const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES ('load', 'not-a-token-hash')";

fn schema() -> Schema {
    Schema::new(stage13::MIGRATION_SOURCE, stage13::MIGRATION)
}

/// Median, 99th percentile and mean, in microseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times[i].as_secs_f64() * 1e6
    };
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len() as f64;
    (at(0.5), at(0.99), mean * 1e6)
}

/// The machine's load average over 1, 5 and 15 minutes, as /proc/loadavg says it.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// `COMMITS` transactions of one INSERT each, at `level`; each COMMIT timed.
async fn commit_latency(pair: &Pair, level: &str, from: usize) -> (f64, f64, f64) {
    let mut conn = pair.connect(Server::Primary).await;
    let mut times = Vec::with_capacity(COMMITS);
    for i in 0..COMMITS {
        let mut tx = conn.begin().await.expect("BEGIN");
        sqlx::query("SELECT set_config('synchronous_commit', $1, true)")
            .bind(level)
            .execute(&mut *tx)
            .await
            .expect("SET LOCAL synchronous_commit");
        sqlx::query("INSERT INTO payments (client_id, order_id, amount) VALUES (1, $1, 100)")
            .bind((from + i) as i64)
            .execute(&mut *tx)
            .await
            .expect("INSERT");
        let started = Instant::now();
        tx.commit().await.expect("COMMIT");
        times.push(started.elapsed());
    }
    let _ = conn.close().await;
    percentiles(times)
}

/// `PAYMENTS` calls of `create_payment` from `WORKERS` tasks, each with a new key
/// (or all with one key answered before: replays); payments per second, and the
/// calls' latency.
async fn payments_per_second(app: &App, first: usize, replays: bool) -> (f64, f64, f64) {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (next, app) = (next.clone(), app.clone());
            tokio::spawn(async move {
                let mut times = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= PAYMENTS {
                        return times;
                    }
                    let n = if replays { first } else { first + i };
                    let key = format!("key-{n}");
                    let body = format!(r#"{{"orderId":{n},"amount":100}}"#);
                    let call = Instant::now();
                    let answer = stage13::create_payment(&app, ClientId(1), &key, &body)
                        .await
                        .expect("create_payment");
                    assert_eq!(answer.reply.status, 201, "{answer:?}");
                    times.push(call.elapsed());
                }
            })
        })
        .collect();
    let mut times = Vec::with_capacity(PAYMENTS);
    for worker in workers {
        times.extend(worker.await.expect("a worker"));
    }
    let per_second = PAYMENTS as f64 / started.elapsed().as_secs_f64();
    let (p50, p99, _) = percentiles(times);
    (per_second, p50, p99)
}

fn app(pair: &Pair) -> App {
    App {
        primary: pair.pool(Server::Primary, PoolSize::of(WORKERS as u32)),
        watchdog: pair.pool(Server::Primary, PoolSize::of(2)),
        reader: pair.pool(Server::Standby, PoolSize::of(2)),
        config: Config {
            commit_wait: Duration::from_secs(10),
            ..Config::default()
        },
    }
}

async fn started(settings: ServerSettings) -> Pair {
    let pair = Pair::start(settings, schema()).await;
    pair.execute(Server::Primary, CLIENTS).await;
    pair.catch_up().await;
    pair
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let synchronous =
        ServerSettings::new(stage13::PRIMARY_SETTINGS_SOURCE, stage13::PRIMARY_SETTINGS);
    let mut latency: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); LEVELS.len()];
    let mut loads = Vec::new();
    let mut throughput: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); 3];
    let mut description = String::new();
    for run in 0..runs {
        loads.push(load_average());
        // The model answer's settings: standby1 named, every write local unless
        // it asks. Each level in turn, starting from another one at each run.
        let pair = started(synchronous).await;
        description = pair.servers().description.clone();
        for k in 0..LEVELS.len() {
            let level = (k + run) % LEVELS.len();
            let from = (run * LEVELS.len() + level) * COMMITS + 1_000_000;
            latency[level].push(commit_latency(&pair, LEVELS[level], from).await);
        }
        let sync_app = app(&pair);
        throughput[1].push(payments_per_second(&sync_app, run * PAYMENTS, false).await);
        throughput[2].push(payments_per_second(&sync_app, run * PAYMENTS, true).await);
        drop(sync_app);
        drop(pair);
        // PostgreSQL's defaults: no standby named, the same route.
        let pair = started(ServerSettings::none()).await;
        throughput[0].push(payments_per_second(&app(&pair), run * PAYMENTS, false).await);
    }
    let spread = |values: Vec<f64>| {
        let mut v = values;
        v.sort_by(f64::total_cmp);
        let round = |x: f64| (x * 10.0).round() / 10.0;
        vec![round(v[0]), round(v[v.len() / 2]), round(v[v.len() - 1])]
    };
    let levels: Vec<serde_json::Value> = LEVELS
        .iter()
        .zip(latency)
        .map(|(level, runs)| {
            serde_json::json!({
                "level": level,
                "p50_us": spread(runs.iter().map(|r| r.0).collect()),
                "p99_us": spread(runs.iter().map(|r| r.1).collect()),
                "mean_us": spread(runs.iter().map(|r| r.2).collect()),
            })
        })
        .collect();
    let routes: Vec<serde_json::Value> = ["asynchronous", "synchronous", "replays"]
        .iter()
        .zip(throughput)
        .map(|(setup, runs)| {
            serde_json::json!({
                "setup": setup,
                "per_second": spread(runs.iter().map(|r| r.0).collect()),
                "p50_us": spread(runs.iter().map(|r| r.1).collect()),
                "p99_us": spread(runs.iter().map(|r| r.2).collect()),
            })
        })
        .collect();
    let figures = serde_json::json!({
        "runs": runs,
        "commits": COMMITS,
        "workers": WORKERS,
        "payments": PAYMENTS,
        "servers": description,
        "loads": loads,
        "levels": levels,
        "routes": routes,
    });
    println!("{figures:#}");
}
