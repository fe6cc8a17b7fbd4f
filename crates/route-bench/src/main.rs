//! What idempotency costs, side by side, in one run: `just bench-route`.
//!
//! Through HTTP, on one pool: a route with no idempotency (one INSERT), stage 6's
//! route (stage 5's transaction: the seed's shape), stage 10's one statement, and
//! each idempotent route with one hot key (replays). Beside them, the peers a
//! reader would pick instead: the article's servers in Python, TypeScript, Go and
//! Java (`servers/`), each on a database of its own on the same server, with the
//! same clients, body and keys. And the physical
//! limit: `pgbench -M prepared` with the same three statement shapes, against the
//! same server, with as many clients. Ratios are taken within one run, against the
//! plain INSERT of that run; several runs give min / median / max.
//!
//! Bounded: every mode sends a fixed number of requests (pgbench a fixed number
//! of transactions). The figures go to stdout as JSON (min / median / max over the
//! runs, each ratio taken within one run), progress to stderr; book/bench_tables.py
//! turns them into the book's table, in each of its languages.

mod cpu;
mod error;
mod load;
mod peers;
mod pgbench;
mod routes;
mod servers;

use std::io::Write;

use error::BenchError;
use harness::reference_schema;
use load::{Keys, Target, load};
use serde_json::{Value, json};
use servers::Server;

/// Concurrent HTTP clients, pool connections and pgbench clients.
const CLIENTS: usize = 20;
/// Requests per route mode, transactions per pgbench script, per run.
const REQUESTS: usize = 8000;
/// Each run's requests go in this many slices, the modes taking turns.
const SLICES: usize = 4;
const DEFAULT_RUNS: usize = 5;

/// The figures of one row, one per run.
struct Row {
    /// What was measured: a route mode's or a pgbench script's id.
    label: String,
    per_second: Vec<f64>,
    ratio: Vec<f64>,
    /// CPU microseconds per request, one per run: this process's, the peer's
    /// server process's (0 for our routes, which this process serves), PostgreSQL's.
    own_cpu: Vec<f64>,
    app_cpu: Vec<f64>,
    server_cpu: Vec<f64>,
}

/// What was measured on one server.
struct Measured {
    routes: Vec<Row>,
    pgbench: Vec<Row>,
    loads: Vec<String>,
}

/// The route modes, by the id the book's table names them with (book/bench_tables.py):
/// no idempotency (one INSERT); the seed's shape (stage 6's route, stage 5's
/// transaction) and stage 10's one statement, each with a new key per request and with
/// one hot key (replays).
const ROUTE_MODES: [(&str, Route, Keys); 5] = [
    ("plain", Route::Plain, Keys::None),
    ("seed", Route::Seed, Keys::Distinct),
    ("one-round-trip", Route::OneRoundTrip, Keys::Distinct),
    ("seed-hot", Route::Seed, Keys::Hot),
    ("one-round-trip-hot", Route::OneRoundTrip, Keys::Hot),
];

#[derive(Debug, Clone, Copy)]
enum Route {
    Plain,
    Seed,
    OneRoundTrip,
}

/// One row's load: where it goes, with which keys, and the process that serves it
/// when that is not this one (a peer's).
struct Mode {
    label: String,
    target: Target,
    keys: Keys,
    app: Option<u32>,
}

/// Our routes' modes, then each peer with a new key per request and with one hot key.
fn modes(routes: &routes::Routes, peers: &[peers::Peer]) -> Vec<Mode> {
    let ours = ROUTE_MODES.iter().map(|(label, route, keys)| {
        let addr = match route {
            Route::Plain => routes.plain,
            Route::Seed => routes.seed,
            Route::OneRoundTrip => routes.one_round_trip,
        };
        Mode {
            label: (*label).to_owned(),
            target: Target {
                url: format!("http://{addr}/payments"),
                body: payment_model::PaymentRequest {
                    order_id: 1,
                    amount: 100,
                }
                .to_body(),
            },
            keys: *keys,
            app: None,
        }
    });
    let theirs = peers.iter().flat_map(|peer| {
        [("", Keys::Distinct), ("-hot", Keys::Hot)].map(|(suffix, keys)| Mode {
            label: format!("peer-{}{suffix}", peer.name),
            target: peer.target.clone(),
            keys,
            app: Some(peer.pid()),
        })
    });
    ours.chain(theirs).collect()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if let Err(e) = run().await {
        let _ = writeln!(std::io::stderr(), "bench-route: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), BenchError> {
    let runs = match std::env::args().nth(1) {
        None => DEFAULT_RUNS,
        Some(n) => n.parse().ok().filter(|n| *n > 0).ok_or(BenchError::Usage {
            default: DEFAULT_RUNS,
        })?,
    };
    let servers = servers::servers(reference_schema()).await?;
    let scripts = pgbench::scripts();
    let mut measured = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        measured.push(server_figures(
            server,
            &measure(index, server, runs, &scripts).await?,
        ));
    }
    let figures = json!({
        "requests": REQUESTS,
        "slices": SLICES,
        "clients": CLIENTS,
        "runs": runs,
        "servers": measured,
    });
    println!("{figures:#}");
    Ok(())
}

async fn measure(
    index: usize,
    server: &Server,
    runs: usize,
    scripts: &[(&'static str, String)],
) -> Result<Measured, BenchError> {
    let pool = servers::warm_pool(&server.options, CLIENTS as u32).await?;
    let routes = routes::Routes::serve(pool).await?;
    let modes = modes(&routes, &server.peers);
    // A warm-up pass: every connection has prepared every statement (and every
    // peer's runtime has compiled its hot paths) before any figure is taken.
    for mode in &modes {
        let tag = format!("warm-{index}-{}", mode.label);
        load(&mode.target, mode.keys, tag, REQUESTS / 4, CLIENTS).await?;
    }
    let mut route_figures = vec![Vec::new(); modes.len()];
    let mut pgbench_figures = vec![Vec::new(); scripts.len()];
    let mut loads = Vec::new();
    let per_slice = REQUESTS / SLICES;
    for run in 0..runs {
        loads.push(load_average());
        progress(&format!(
            "{} server: run {} of {runs}",
            server.setup,
            run + 1
        ));
        // Each mode's requests in slices, the modes taking turns, so that a burst
        // of load from elsewhere on the machine falls on all of them alike.
        let mut route_seconds = vec![0.0; modes.len()];
        let mut pgbench_seconds = vec![0.0; scripts.len()];
        let mut route_cpu = vec![(0.0, 0.0, 0.0); modes.len()];
        let server_cpu = || {
            server
                .data_dir
                .as_deref()
                .and_then(cpu::server)
                .unwrap_or(0.0)
        };
        let app_cpu = |mode: &Mode| mode.app.map(cpu::process).unwrap_or(0.0);
        for slice in 0..SLICES {
            // A different order each slice, so that none always runs first.
            let mut order: Vec<usize> = (0..modes.len()).collect();
            order.rotate_left((run + slice) % modes.len());
            for i in order {
                let mode = &modes[i];
                let tag = format!("{index}-{run}-{slice}-{}", mode.label);
                let (own, app, pg) = (cpu::own(), app_cpu(mode), server_cpu());
                let per_second = load(&mode.target, mode.keys, tag, per_slice, CLIENTS).await?;
                route_seconds[i] += per_slice as f64 / per_second;
                route_cpu[i].0 += cpu::own() - own;
                route_cpu[i].1 += app_cpu(mode) - app;
                route_cpu[i].2 += server_cpu() - pg;
            }
            if let (Some(pgbench), Some(conninfo)) = (&server.pgbench, &server.conninfo) {
                for (i, (_, script)) in scripts.iter().enumerate() {
                    let (pgbench, conninfo, script) =
                        (pgbench.clone(), conninfo.clone(), script.clone());
                    let tps = tokio::task::spawn_blocking(move || {
                        pgbench::run(&pgbench, &conninfo, &script, CLIENTS, per_slice)
                    })
                    .await
                    .map_err(BenchError::Task)??;
                    pgbench_seconds[i] += per_slice as f64 / tps;
                }
            }
        }
        let total = (per_slice * SLICES) as f64;
        let micros = |seconds: f64| seconds * 1e6 / total;
        for ((figures, seconds), (own, app, pg)) in
            route_figures.iter_mut().zip(&route_seconds).zip(&route_cpu)
        {
            figures.push(Figures {
                per_second: total / seconds,
                own_cpu: micros(*own),
                app_cpu: micros(*app),
                server_cpu: micros(*pg),
            });
        }
        if server.pgbench.is_some() && server.conninfo.is_some() {
            for (figures, seconds) in pgbench_figures.iter_mut().zip(&pgbench_seconds) {
                figures.push(Figures {
                    per_second: total / seconds,
                    own_cpu: f64::NAN,
                    app_cpu: f64::NAN,
                    server_cpu: f64::NAN,
                });
            }
        }
    }
    let rows = |labels: Vec<String>, figures: Vec<Vec<Figures>>| -> Vec<Row> {
        let base: Vec<f64> = figures
            .first()
            .map(|runs| runs.iter().map(|f| f.per_second).collect())
            .unwrap_or_default();
        labels
            .into_iter()
            .zip(figures)
            .filter(|(_, runs)| !runs.is_empty())
            .map(|(label, runs)| Row {
                ratio: runs
                    .iter()
                    .zip(&base)
                    .map(|(f, b)| f.per_second / b)
                    .collect(),
                per_second: runs.iter().map(|f| f.per_second).collect(),
                own_cpu: runs.iter().map(|f| f.own_cpu).collect(),
                app_cpu: runs.iter().map(|f| f.app_cpu).collect(),
                server_cpu: runs.iter().map(|f| f.server_cpu).collect(),
                label,
            })
            .collect()
    };
    Ok(Measured {
        routes: rows(
            modes.into_iter().map(|mode| mode.label).collect(),
            route_figures,
        ),
        pgbench: rows(
            scripts
                .iter()
                .map(|(label, _)| (*label).to_owned())
                .collect(),
            pgbench_figures,
        ),
        loads,
    })
}

/// One mode's figures in one run.
#[derive(Debug, Clone, Copy)]
struct Figures {
    per_second: f64,
    own_cpu: f64,
    app_cpu: f64,
    server_cpu: f64,
}

fn progress(line: &str) {
    let _ = writeln!(std::io::stderr(), "bench-route: {line}");
}

/// The 1-, 5- and 15-minute load averages, as `uptime` shows them.
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

/// [min, median, max] of one figure over the runs.
fn spread(values: &[f64]) -> Value {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    json!([
        sorted[0],
        sorted[sorted.len() / 2],
        sorted[sorted.len() - 1]
    ])
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Run by run, `a / b`.
fn per_run(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| a / b).collect()
}

/// One server's figures: the routes' (the peers' among them) and pgbench's rows, and
/// the goals (the one-round-trip route against the plain INSERT, against pgbench's
/// same statement and against each peer; a replay never dearer than a new payment).
fn server_figures(server: &Server, measured: &Measured) -> Value {
    let routes: Vec<Value> = measured
        .routes
        .iter()
        .map(|row| {
            json!({
                "what": row.label,
                "per_second": spread(&row.per_second),
                "ratio": spread(&row.ratio),
                "own_cpu_us": median(&row.own_cpu),
                // A peer's server process; ours are served by the bench's own.
                "app_cpu_us": row.label.starts_with("peer-").then(|| median(&row.app_cpu)),
                // Read from the server's processes only when the bench started it.
                "server_cpu_us": server.data_dir.as_ref().map(|_| median(&row.server_cpu)),
            })
        })
        .collect();
    // pgbench opens its clients' connections on every run: their backends' start-up
    // would count in the server's CPU, so none is given.
    let pgbench: Vec<Value> = measured
        .pgbench
        .iter()
        .map(|row| {
            json!({
                "what": row.label,
                "per_second": spread(&row.per_second),
                "ratio": spread(&row.ratio),
            })
        })
        .collect();
    let row = |label: &str| measured.routes.iter().find(|row| row.label == label);
    let goals = row("one-round-trip").map(|route| {
        let cte = measured.pgbench.get(2);
        json!({
            "vs_plain": spread(&route.ratio),
            "vs_pgbench": cte.map(|cte| spread(&per_run(&route.ratio, &cte.ratio))),
            "pgbench": cte.map(|cte| spread(&cte.ratio)),
            // A replay writes nothing: it should never cost more than a new payment.
            "replay_vs_new": row("one-round-trip-hot")
                .map(|replays| spread(&per_run(&replays.ratio, &route.ratio))),
            // The one round trip against each peer, run by run, a new key per request.
            "vs_peers": peers::PEERS
                .iter()
                .filter_map(|name| {
                    let peer = row(&format!("peer-{name}"))?;
                    Some(json!({
                        "peer": name,
                        "ratio": spread(&per_run(&route.ratio, &peer.ratio)),
                    }))
                })
                .collect::<Vec<_>>(),
        })
    });
    json!({
        "setup": server.setup,
        "postgres": server.postgres,
        "settings": server.settings,
        "data_on": server.data_on,
        "routes": routes,
        "pgbench": pgbench,
        "loads": measured.loads,
        "goals": goals,
    })
}
