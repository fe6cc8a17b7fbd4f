//! The probe is language-neutral: pointed at the servers of servers/, written in
//! Python, TypeScript, Go and Java after the source article, with its API in Portuguese,
//! it passes the correct ones on every check and fails each wrong one on the checks
//! that catch its bug, and no other. Each server runs on a database of its own.
//!
//! These tests need the servers installed (`servers/setup.sh`: a Python venv, npm
//! packages, the TypeScript build, the Go binary and the Java classes), which a fresh
//! clone has not: this package is
//! not a default member of the workspace, so plain `cargo test` does not run it;
//! `just probe-servers` and CI do. Without the servers they fail with a line naming
//! setup.sh, unless `WORKBOOK_SKIP_SERVERS=1` says to skip them.

#[path = "../../../crates/probe/tests/server/external.rs"]
mod external;

use std::time::Duration;

use external::{ExternalServer, article_api, article_schema, missing_setup, servers_dir};
use harness::TestDb;
use probe::{CheckId, Report, Verdict};
use rstest::rstest;

/// The bound of each of the probe's requests: a deadlocked server is given up on
/// after this (its pool would wait 30 s). Not 2 s: a JVM just started, on a machine
/// busy with other work, once answered none of a correct burst within 2 s.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// What a probe run of one server found, and what the server wrote, for messages.
struct Probed {
    report: Report,
    server_log: String,
}

impl Probed {
    /// The table, every check's evidence, and the server's last words.
    fn shown(&self) -> String {
        format!(
            "\n{}{}",
            probe::table(&self.report, 100, true),
            self.server_log
        )
    }

    fn assert_fails_exactly(&self, expected: &[CheckId]) {
        assert_eq!(
            self.report.with_verdict(Verdict::Fail),
            expected,
            "the checks that failed{}",
            self.shown()
        );
    }

    fn check(&self, id: CheckId) -> &probe::CheckResult {
        self.report
            .check(id)
            .unwrap_or_else(|| panic!("the report has no {id} check{}", self.shown()))
    }
}

/// Starts servers/start.sh `name` on a fresh database with the article's tables,
/// and probes it with its payments counted. `None` when the servers are not
/// installed and WORKBOOK_SKIP_SERVERS=1 says to skip.
async fn probe_server(name: &str) -> Option<Probed> {
    // One server at a time. A burst is a race, and it needs the two cores: beside a
    // JVM starting or another server's burst, its requests were once handled spread
    // out enough (20 × 201 in 217 ms) for typescript-wrong to miss its deadlock.
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _turn = ONE_AT_A_TIME.lock().await;
    let servers = servers_dir();
    if let Some(missing) = missing_setup(&servers) {
        if std::env::var("WORKBOOK_SKIP_SERVERS").is_ok_and(|v| v == "1") {
            // Past libtest's capture (which takes only the print macros), once: a
            // skip must be seen, or it reads as a pass.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "probe-servers: skipped, WORKBOOK_SKIP_SERVERS=1 ({missing})"
                );
            });
            return None;
        }
        panic!("{missing}; or WORKBOOK_SKIP_SERVERS=1 to skip these tests");
    }
    let db = TestDb::create(article_schema()).await;
    let server = ExternalServer::start(&servers, name, &db.url()).unwrap_or_else(|e| panic!("{e}"));
    let mut options = article_api(format!("http://127.0.0.1:{}", server.port), db.url());
    options.timeout = REQUEST_TIMEOUT;
    let run = harness::within(Duration::from_secs(60), "the probe", probe::run(&options)).await;
    let server_log = server.log_tail();
    // Stopped before its database is dropped, and before any assertion can panic.
    drop(server);
    match run {
        Ok(report) => Some(Probed { report, server_log }),
        Err(e) => panic!("the probe could not run against {name}: {e}{server_log}"),
    }
}

/// The article's approach, in Python (psycopg), TypeScript (Express and pg), Go
/// (net/http, database/sql and lib/pq) and Java (com.sun.net.httpserver, HikariCP and
/// pgjdbc).
#[rstest]
#[case::python("python")]
#[case::typescript("typescript")]
#[case::go("go")]
#[case::java("java")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_correct_server_passes_every_check(#[case] name: &str) {
    let Some(probed) = probe_server(name).await else {
        return;
    };
    assert_eq!(
        probed.report.with_verdict(Verdict::Pass),
        CheckId::ALL,
        "the checks that passed{}",
        probed.shown()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_checking_then_writing_fails_the_burst_only() {
    // pagamentos_ingenuo.py: SELECT the key, pay, then store the key; the duplicates
    // of the burst all check before the first one stores it, and all pay.
    let Some(probed) = probe_server("python-wrong").await else {
        return;
    };
    probed.assert_fails_exactly(&[CheckId::Burst]);
    let burst = probed.check(CheckId::Burst);
    let paid = burst
        .evidence
        .iter()
        .find_map(|line| {
            line.strip_prefix("effects: ")?
                .strip_suffix(" created (expected 1)")
        })
        .and_then(|n| n.parse::<i64>().ok());
    assert!(
        paid.is_some_and(|paid| paid > 1),
        "the burst's payments for one key: {paid:?}, expected more than 1{}",
        probed.shown()
    );
}

/// A second pool connection asked for while the request holds its first: with 20
/// requests and a pool smaller than the burst, every connection is held by a request
/// waiting for another. TypeScript (pagamentos-errado.ts): after ROLLBACK,
/// `pool.query`, pool of 10. Go (pagamentos_errado.go): `db.QueryRowContext` before
/// `tx.Rollback()`, pool of 1. Java (PagamentosErrado.java): a second
/// `getConnection()`, pool of 1 (servers/start.sh says why Go's and Java's are of one:
/// on a pool of 10 their bursts could escape the deadlock). Their pools give up after
/// 30 s (TypeScript, Java) or never (Go): past the probe's 3 s, each is a hang.
#[rstest]
#[case::typescript("typescript-wrong")]
#[case::go("go-wrong")]
#[case::java("java-wrong")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_second_connection_while_holding_one_fails_as_a_suspected_deadlock(#[case] name: &str) {
    let Some(probed) = probe_server(name).await else {
        return;
    };
    probed.assert_fails_exactly(&[CheckId::Burst, CheckId::Hang]);
    let hang = probed.check(CheckId::Hang);
    assert!(
        hang.why.starts_with("suspected pool deadlock"),
        "{}{}",
        hang.why,
        probed.shown()
    );
    assert_eq!(
        probed.report.with_verdict(Verdict::Skipped).len(),
        CheckId::ALL.len() - 2,
        "the checks after a stuck burst are skipped, not failed{}",
        probed.shown()
    );
}
