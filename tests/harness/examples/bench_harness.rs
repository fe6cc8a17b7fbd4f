//! How long the harness takes, measured: `just bench` runs this several times.
//!
//! One run is one test process: it starts (or connects to) the server, creates the
//! migrated template, then creates and drops test databases, and prints one line of
//! JSON with the figures in milliseconds. Pass `--cold` to delete the cached
//! `initdb` data directory first (the first run on a new machine).

use std::time::Instant;

use harness::{TestDb, backend, reference_schema};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::args().any(|arg| arg == "--cold") {
        let cache =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/workbook-pg");
        let _ = std::fs::remove_dir_all(cache);
    }
    let started = Instant::now();
    let server = match backend() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let server_ms = started.elapsed().as_secs_f64() * 1e3;

    let first = Instant::now();
    let db = TestDb::create(reference_schema()).await;
    let first_db_ms = first.elapsed().as_secs_f64() * 1e3;
    drop(db);

    // Each test creates its database and drops it at its end: both count. The
    // median says what a test usually pays; the minimum, what the machine can do
    // when nothing else runs.
    const DATABASES: usize = 20;
    let mut create_ms = Vec::with_capacity(DATABASES);
    let mut drop_ms = Vec::with_capacity(DATABASES);
    for _ in 0..DATABASES {
        let created = Instant::now();
        let db = TestDb::create(reference_schema()).await;
        create_ms.push(created.elapsed().as_secs_f64() * 1e3);
        let dropped = Instant::now();
        drop(db);
        drop_ms.push(dropped.elapsed().as_secs_f64() * 1e3);
    }
    let each_ms: Vec<f64> = create_ms.iter().zip(&drop_ms).map(|(c, d)| c + d).collect();
    let one_decimal = |ms: f64| (ms * 10.0).round() / 10.0;

    println!(
        "{}",
        serde_json::json!({
            "backend": format!("{:?}", server.choice),
            "server_ready_ms": server_ms.round(),
            "first_database_with_template_ms": first_db_ms.round(),
            "each_further_database_create_and_drop_ms": one_decimal(median(&each_ms)),
            "create_ms": one_decimal(median(&create_ms)),
            "drop_ms": one_decimal(median(&drop_ms)),
            "fastest_create_and_drop_ms": one_decimal(each_ms.iter().copied().fold(f64::INFINITY, f64::min)),
        })
    );
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}
