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

    const DATABASES: u32 = 20;
    let each = Instant::now();
    for _ in 0..DATABASES {
        drop(TestDb::create(reference_schema()).await);
    }
    let per_db_ms = each.elapsed().as_secs_f64() * 1e3 / f64::from(DATABASES);

    println!(
        "{}",
        serde_json::json!({
            "backend": format!("{:?}", server.choice),
            "server_ready_ms": server_ms.round(),
            "first_database_with_template_ms": first_db_ms.round(),
            "each_further_database_create_and_drop_ms": (per_db_ms * 10.0).round() / 10.0,
        })
    );
}
