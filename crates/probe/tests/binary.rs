//! `idempotency-probe`, the binary a backend's CI installs alone, run as CI runs
//! it: its exit code (0 passed, 1 a check failed, 2 could not run) and its
//! `--json` report, against the same servers as the library's tests.

// The shapes this file does not probe are the other tests'.
#[allow(dead_code)]
mod server;

use std::process::{Command, Output};
use std::time::Duration;

use harness::{PoolSize, TestDb, reference_schema};
use serde_json::Value;
use server::{Shape, serve, serve_instances};

/// Runs the binary with `args` off the runtime's threads (the servers it probes
/// run on them), bounded so that a probe that hangs fails the test.
async fn run_binary(args: Vec<String>) -> Output {
    let running = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_idempotency-probe"))
            .args(&args)
            .env("COLUMNS", "100")
            .output()
            .expect("the binary starts")
    });
    match tokio::time::timeout(Duration::from_secs(90), running).await {
        Ok(output) => output.expect("the binary's thread ends"),
        Err(_) => panic!("idempotency-probe did not finish within 90 s"),
    }
}

/// The JSON report's verdict for each check, in order: `burst=pass`, ...
fn verdicts(output: &Output) -> Vec<String> {
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "--json printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    report["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .map(|c| {
            format!(
                "{}={}",
                c["id"].as_str().unwrap_or("?"),
                c["verdict"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

fn counted(urls: Vec<String>, db: &TestDb) -> Vec<String> {
    let mut args = urls;
    args.extend([
        "--json".to_owned(),
        "--database-url".to_owned(),
        db.url(),
        "--count-sql".to_owned(),
        "select count(*) from payments".to_owned(),
    ]);
    args
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_model_answer_on_two_instances_exits_0_with_every_check_passed() {
    let db = TestDb::create(reference_schema()).await;
    let mut urls = Vec::new();
    for _ in 0..2 {
        let addr = serve(stage6::router(db.pool(PoolSize::of(10)))).await;
        urls.push(format!("http://{addr}"));
    }
    let output = run_binary(counted(urls, &db)).await;
    let verdicts = verdicts(&output);
    assert_eq!(output.status.code(), Some(0), "{verdicts:?}");
    assert!(
        verdicts.iter().all(|v| v.ends_with("=pass")),
        "{verdicts:?}"
    );
    assert_eq!(verdicts.len(), probe::CHECKS.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_locked_in_memory_on_two_instances_exits_1_with_the_burst_failed() {
    let db = TestDb::create(reference_schema()).await;
    let addrs = serve_instances(&db, Shape::InProcessLock, 2).await;
    let urls = addrs.iter().map(|a| format!("http://{a}")).collect();
    let output = run_binary(counted(urls, &db)).await;
    let verdicts = verdicts(&output);
    assert_eq!(output.status.code(), Some(1), "{verdicts:?}");
    let failed: Vec<&String> = verdicts.iter().filter(|v| v.ends_with("=fail")).collect();
    assert_eq!(failed, ["burst=fail"], "{verdicts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn nothing_listening_exits_2_with_one_line_that_asks_whether_the_server_runs() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let output = run_binary(vec![format!("http://127.0.0.1:{port}")]).await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: probe: nothing answers at 127.0.0.1:{port}"
        )),
        "{stderr}"
    );
}

#[tokio::test]
async fn help_shows_the_body_placeholder_and_every_check_from_the_table() {
    let output = run_binary(vec!["--help".to_owned()]).await;
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(
        help.contains("The JSON body; {n} becomes a fresh number in each scenario"),
        "{help}"
    );
    assert!(
        help.contains(r#"[default: {"orderId": {n}, "amount": 100}]"#),
        "{help}"
    );
    for check in probe::CHECKS {
        assert!(
            help.contains(&format!("- {}:", check.name)),
            "--skip lists {}: {help}",
            check.name
        );
    }
    let longest = help.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest <= 100, "a line of {longest} columns in 100: {help}");
}
