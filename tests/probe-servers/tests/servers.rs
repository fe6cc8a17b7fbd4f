//! The probe is language-neutral: pointed at the servers of servers/, written in
//! Python, TypeScript, Go and Java after the source article, with its API in Portuguese,
//! it passes the correct ones on every check and fails each wrong one on the checks
//! that catch its bug, and no other. Each server runs on a database of its own.
//!
//! Every run's reports are read back as CI would read them: the JSON report
//! validated against `crates/probe/report.schema.json`, the JUnit report (with and
//! without --fail-on-warn) against `crates/probe/junit.xsd` by xmllint.
//!
//! These tests need the servers installed (`servers/setup.sh`: a Python venv, npm
//! packages, the TypeScript build, the Go binary and the Java classes) and xmllint
//! (Debian's libxml2-utils), which a fresh clone has not: this package is
//! not a default member of the workspace, so plain `cargo test` does not run it;
//! `just probe-servers` and CI do. Without the servers they fail with a line naming
//! setup.sh, unless `WORKBOOK_SKIP_SERVERS=1` says to skip them.

#[path = "../../../crates/probe/tests/server/external.rs"]
mod external;
#[allow(dead_code)]
#[path = "../../../crates/probe/tests/reports/mod.rs"]
mod reports;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use external::{ExternalServer, article_api, article_schema, missing_setup, servers_dir};
use harness::TestDb;
use probe::profile::{ConcurrentOtherBody, InFlight, KeyLifetime, ReplayMarker};
use probe::{CheckId, Profile, Report, Verdict};
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
        Ok(report) => {
            assert_reports_validate(&report);
            Some(Probed { report, server_log })
        }
        Err(e) => panic!("the probe could not run against {name}: {e}{server_log}"),
    }
}

/// The JSON report follows its schema, and the JUnit report, warnings passing or
/// failing, validates against the JUnit schema the probe ships.
fn assert_reports_validate(report: &Report) {
    reports::assert_valid_json(&probe::json::report(report));
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/probe/junit.xsd");
    for warnings_fail in [false, true] {
        let xml = probe::junit::report(report, warnings_fail);
        let mut xmllint = Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(&xsd)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run xmllint ({e}): apt-get install libxml2-utils (.ci/run does)")
            });
        if let Some(mut stdin) = xmllint.stdin.take() {
            stdin
                .write_all(xml.as_bytes())
                .expect("xmllint reads the report");
        }
        let output = xmllint.wait_with_output().expect("xmllint ends");
        assert!(
            output.status.success(),
            "the JUnit report does not validate against crates/probe/junit.xsd: {}\n{xml}",
            String::from_utf8_lossy(&output.stderr)
        );
        let (counts, cases) = reports::junit(&xml);
        assert_eq!(counts[0], CheckId::ALL.len(), "{cases:?}");
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
    // What each chose where the draft leaves it open, as the article wrote them
    // all: the duplicates wait on the key's row lock, a replay says so, and
    // another body, once the first has committed, gets 422.
    assert_eq!(
        probed.report.profile,
        Profile {
            in_flight: InFlight::Waits,
            replay_marker: ReplayMarker::Marked {
                header: "idempotent-replayed".to_owned(),
                value: "true".to_owned()
            },
            concurrent_other_body: ConcurrentOtherBody::Unprocessable,
            key_lifetime: KeyLifetime::NotAdvertised,
        },
        "{}",
        probed.shown()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn python_checking_then_writing_fails_the_burst_and_the_body_in_flight_only() {
    // pagamentos_ingenuo.py: SELECT the key, pay, then store the key; the duplicates
    // of the burst all check before the first one stores it, and all pay. So do the
    // two bodies in flight together: two payments, both answered 201.
    let Some(probed) = probe_server("python-wrong").await else {
        return;
    };
    probed.assert_fails_exactly(&[CheckId::Burst, CheckId::ConcurrentBody]);
    let paid = probed.check(CheckId::Burst).effects.map(|e| e.created);
    assert!(
        paid.is_some_and(|paid| paid > 1),
        "the burst's payments for one key: {paid:?}, expected more than 1{}",
        probed.shown()
    );
    let pair = probed.check(CheckId::ConcurrentBody);
    assert_eq!(
        pair.why.first(),
        Some(&probe::Said::PairBothAccepted),
        "{}",
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
    assert_eq!(
        hang.why,
        [probe::Said::StuckBurstDeadlock],
        "{}",
        probed.shown()
    );
    assert_eq!(
        probed.report.with_verdict(Verdict::Skipped).len(),
        CheckId::ALL.len() - 2,
        "the checks after a stuck burst are skipped, not failed{}",
        probed.shown()
    );
}
