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
//! of transactions). The markdown goes to stdout, progress to stderr.

mod cpu;
mod load;
mod pgbench;
mod routes;
mod servers;

use std::io::Write;

use harness::reference_schema;
use load::{Keys, load};
use servers::Server;

/// Concurrent HTTP clients, pool connections and pgbench clients.
const CLIENTS: usize = 20;
/// Requests per route mode, transactions per pgbench script, per run.
const REQUESTS: usize = 8000;
/// Each run's requests go in this many slices, the modes taking turns.
const SLICES: usize = 4;
const DEFAULT_RUNS: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("no PostgreSQL to measure on: {0}")]
    NoServer(String),
    #[error("PostgreSQL: {0}")]
    Database(#[from] sqlx::Error),
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    #[error("a route refused a request: {0}")]
    Refused(String),
    #[error("could not listen on 127.0.0.1: {0}")]
    Listen(std::io::Error),
    #[error("pgbench: {0}")]
    Pgbench(String),
    #[error("a load task failed: {0}")]
    Task(String),
    #[error("usage: bench-route [RUNS] (a number of runs, {DEFAULT_RUNS} by default)")]
    Usage,
}

/// The figures of one row, one per run.
struct Row {
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

const ROUTE_MODES: [(&str, Route, Keys); 5] = [
    ("no idempotency: one INSERT", Route::Plain, Keys::None),
    (
        "the seed's shape: stage 6's route (stage 5's transaction), a new key per request",
        Route::Seed,
        Keys::Distinct,
    ),
    (
        "one round trip: stage 10's statement, a new key per request",
        Route::OneRoundTrip,
        Keys::Distinct,
    ),
    (
        "the seed's shape, one hot key (replays)",
        Route::Seed,
        Keys::Hot,
    ),
    (
        "one round trip, one hot key (replays)",
        Route::OneRoundTrip,
        Keys::Hot,
    ),
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
        Some(n) => n.parse().ok().filter(|n| *n > 0).ok_or(BenchError::Usage)?,
    };
    let (servers, not_varied) = servers::servers(reference_schema()).await?;
    let scripts = pgbench::scripts();
    println!(
        "{REQUESTS} requests per route and run, {REQUESTS} transactions per pgbench script and \
         run, in {SLICES} slices taking turns, {CLIENTS} concurrent clients (HTTP clients, pool connections, pgbench clients), \
         {runs} runs per server; each figure is min / median / max over the runs, each ratio \
         taken within one run against that run's plain INSERT.\n"
    );
    if let Some(note) = &not_varied {
        println!("{note}\n");
    }
    let mut all = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let measured = measure(index, server, runs, &scripts).await?;
        print_server(server, &measured);
        all.push(measured);
    }
    print_goals(&servers, &all);
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
        progress(&format!("{}: run {} of {runs}", server.setup, run + 1));
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
                    .map_err(|e| BenchError::Task(e.to_string()))??;
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
                .map(|(label, _)| format!("pgbench -M prepared: {label}"))
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

/// min / median / max, formatted with `digits` decimals.
fn spread(values: &[f64], digits: usize) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
    if sorted.len() == 1 {
        return format!("{min:.digits$}");
    }
    format!("{min:.digits$} / **{median:.digits$}** / {max:.digits$}")
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn print_server(server: &Server, measured: &Measured) {
    println!("### {}\n", server.setup);
    println!("PostgreSQL: {}\n", server.facts);
    println!(
        "| what | per second | vs plain INSERT, same run | CPU µs per request, median: bench process (HTTP clients, routes, sqlx) / PostgreSQL |"
    );
    println!("|---|---|---|---|");
    for row in &measured.routes {
        let server_cpu = if server.data_dir.is_some() {
            format!("{:.0}", median(&row.server_cpu))
        } else {
            "-".to_owned()
        };
        println!(
            "| {} | {} | {} | {:.0} / {server_cpu} |",
            row.label,
            spread(&row.per_second, 0),
            spread(&row.ratio, 2),
            median(&row.own_cpu)
        );
    }
    for row in &measured.pgbench {
        // pgbench opens its clients' connections on every run: their backends'
        // start-up would count in the server's CPU, so none is shown.
        println!(
            "| {} | {} | {} | - |",
            row.label,
            spread(&row.per_second, 0),
            spread(&row.ratio, 2)
        );
    }
    if measured.pgbench.is_empty() {
        println!(
            "\npgbench: not run (it runs only against a cluster the bench started from local binaries)."
        );
    }
    println!(
        "\nLoad average (1, 5, 15 min) at the start of each run: {}\n",
        measured.loads.join("; ")
    );
}

/// The two goals, from the figures above.
fn print_goals(servers: &[Server], all: &[Measured]) {
    println!("### The one-round-trip route against the limits\n");
    for (server, measured) in servers.iter().zip(all) {
        let Some(route) = measured.routes.get(2) else {
            continue;
        };
        let ratio = median(&route.ratio);
        println!(
            "- {}: the one-round-trip route at {} of the plain INSERT route (median {ratio:.2}).",
            server.setup,
            spread(&route.ratio, 2)
        );
        if let Some(cte) = measured.pgbench.get(2) {
            let of_limit: Vec<f64> = route
                .ratio
                .iter()
                .zip(&cte.ratio)
                .map(|(r, c)| r / c)
                .collect();
            println!(
                "  Its ratio is {} of pgbench's one-statement ratio in the same run (pgbench: {}).",
                spread(&of_limit, 2),
                spread(&cte.ratio, 2)
            );
        }
        // A replay writes nothing: it should never cost more than a new payment.
        if let Some(replays) = measured.routes.get(4) {
            let replay_vs_new: Vec<f64> = replays
                .ratio
                .iter()
                .zip(&route.ratio)
                .map(|(replay, new)| replay / new)
                .collect();
            println!(
                "  One hot key (every request a replay) at {} of a new key per request, same \
                 route, same run.",
                spread(&replay_vs_new, 2)
            );
        }
    }
}
