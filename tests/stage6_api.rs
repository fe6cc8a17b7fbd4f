//! `cargo workbook api`: stage 6's route served for real, on 127.0.0.1, on a database of
//! its own on the harness's PostgreSQL, until Ctrl-C. Shared by stage 6's
//! exercise and model answer (`cargo workbook api --solution`), like their tests.
//!
//! Ctrl-C drops the database and stops whatever server the harness started; a
//! kill -9 leaves the harness's supervisor to stop a local cluster.

use std::process::ExitCode;
use std::sync::Arc;

use harness::{PoolSize, TestDb, reference_schema};

fn main() -> ExitCode {
    let port = match port_from_args() {
        Ok(port) => port,
        Err(why) => {
            eprintln!("api: {why}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("api: cannot start a tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(port)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("api: {why}");
            ExitCode::FAILURE
        }
    }
}

fn port_from_args() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    let mut port = 8080;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .ok_or("--port takes a number from 1 to 65535")?;
            }
            other => return Err(format!("unknown argument {other:?} (only --port N)")),
        }
    }
    Ok(port)
}

async fn serve(port: u16) -> Result<(), String> {
    // The port first: a busy one is the likeliest mistake, and costs no database.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port} ({e}): is another server there? `cargo workbook api --port N` picks another"))?;
    let stopped = Arc::new(tokio::sync::Notify::new());
    let on_ctrl_c = stopped.clone();
    ctrlc::set_handler(move || on_ctrl_c.notify_one())
        .map_err(|e| format!("cannot catch Ctrl-C: {e}"))?;

    let db = TestDb::try_create(reference_schema()).await?;
    let pool = db.pool(PoolSize::of(10));
    let which = if env!("CARGO_PKG_NAME").ends_with("-solution") {
        "the model answer"
    } else {
        "your exercise"
    };
    let url = db.url();
    println!(
        "Stage 6's POST /payments ({which}) on http://127.0.0.1:{port}, database {}.\n\n\
         Pay (run it twice: the second is a replay):\n  \
         curl -i http://127.0.0.1:{port}/payments -H 'Idempotency-Key: key-1' \
         -H 'content-type: application/json' -d '{{\"orderId\": 1, \"amount\": 100}}'\n\
         Look at the rows:\n  psql '{url}' -c 'table payments' -c 'table idempotency_keys'\n\
         Probe it (from another terminal):\n  cargo workbook probe http://127.0.0.1:{port} \
         --database-url '{url}' --count-sql 'select count(*) from payments'\n\n\
         Ctrl-C stops it and drops the database.",
        db.name()
    );

    let server = tokio::spawn(stage6::serve(listener, stage6::router(pool.clone())));
    stopped.notified().await;
    server.abort();
    pool.close().await;
    let name = db.name().to_owned();
    drop(db);
    println!("\nStopped; database {name} dropped.");
    Ok(())
}
