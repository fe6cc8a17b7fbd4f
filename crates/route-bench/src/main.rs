//! What idempotency costs, side by side, in one run: `just bench-route`.
//!
//! Through HTTP, on one pool: a route with no idempotency (one INSERT), stage 6's
//! route (stage 5's transaction: the seed's shape), stage 10's one statement, and
//! each idempotent route with one hot key (replays). Beside them, the physical
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
mod pgbench;
mod routes;
mod servers;

use std::io::Write;

use error::BenchError;
use harness::reference_schema;
use load::{Keys, load};
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
    /// CPU microseconds per request, one per run: this process's, the server's.
    own_cpu: Vec<f64>,
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
    let addr = |route: Route| match route {
        Route::Plain => routes.plain,
        Route::Seed => routes.seed,
        Route::OneRoundTrip => routes.one_round_trip,
    };
    // A warm-up pass: every connection has prepared every statement before any
    // figure is taken.
    for (_, route, keys) in ROUTE_MODES {
        let tag = format!("warm-{index}-{route:?}");
        load(addr(route), keys, tag, REQUESTS / 4, CLIENTS).await?;
    }
    let mut route_figures = vec![Vec::new(); ROUTE_MODES.len()];
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
        let mut route_seconds = vec![0.0; ROUTE_MODES.len()];
        let mut pgbench_seconds = vec![0.0; scripts.len()];
        let mut route_cpu = vec![(0.0, 0.0); ROUTE_MODES.len()];
        let server_cpu = || {
            server
                .data_dir
                .as_deref()
                .and_then(cpu::server)
                .unwrap_or(0.0)
        };
        for slice in 0..SLICES {
            // A different order each slice, so that none always runs first.
            let mut order: Vec<usize> = (0..ROUTE_MODES.len()).collect();
            order.rotate_left((run + slice) % ROUTE_MODES.len());
            for mode in order {
                let (_, route, keys) = ROUTE_MODES[mode];
                let tag = format!("{index}-{run}-{slice}-{route:?}");
                let (own, pg) = (cpu::own(), server_cpu());
                let per_second = load(addr(route), keys, tag, per_slice, CLIENTS).await?;
                route_seconds[mode] += per_slice as f64 / per_second;
                route_cpu[mode].0 += cpu::own() - own;
                route_cpu[mode].1 += server_cpu() - pg;
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
        for ((figures, seconds), (own, pg)) in
            route_figures.iter_mut().zip(&route_seconds).zip(&route_cpu)
        {
            figures.push((total / seconds, micros(*own), micros(*pg)));
        }
        if server.pgbench.is_some() && server.conninfo.is_some() {
            for (figures, seconds) in pgbench_figures.iter_mut().zip(&pgbench_seconds) {
                figures.push((total / seconds, f64::NAN, f64::NAN));
            }
        }
    }
    let rows = |labels: Vec<String>, figures: Vec<Vec<(f64, f64, f64)>>| -> Vec<Row> {
        let base: Vec<f64> = figures
            .first()
            .map(|runs| runs.iter().map(|f| f.0).collect())
            .unwrap_or_default();
        labels
            .into_iter()
            .zip(figures)
            .filter(|(_, runs)| !runs.is_empty())
            .map(|(label, runs)| Row {
                ratio: runs.iter().zip(&base).map(|(f, b)| f.0 / b).collect(),
                per_second: runs.iter().map(|f| f.0).collect(),
                own_cpu: runs.iter().map(|f| f.1).collect(),
                server_cpu: runs.iter().map(|f| f.2).collect(),
                label,
            })
            .collect()
    };
    Ok(Measured {
        routes: rows(
            ROUTE_MODES
                .iter()
                .map(|(label, _, _)| (*label).to_owned())
                .collect(),
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

/// One server's figures: the routes' and pgbench's rows, and the two goals
/// (the one-round-trip route against the plain INSERT and against pgbench's same
/// statement; a replay never dearer than a new payment).
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
    let goals = measured.routes.get(2).map(|route| {
        let cte = measured.pgbench.get(2);
        json!({
            "vs_plain": spread(&route.ratio),
            "vs_pgbench": cte.map(|cte| spread(&per_run(&route.ratio, &cte.ratio))),
            "pgbench": cte.map(|cte| spread(&cte.ratio)),
            // A replay writes nothing: it should never cost more than a new payment.
            "replay_vs_new": measured
                .routes
                .get(4)
                .map(|replays| spread(&per_run(&replays.ratio, &route.ratio))),
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
