//! The probe, pointed at servers whose bugs are known, proves it finds them from
//! the outside: stage 6's model answer passes every check, and each wrong shape,
//! served over HTTP the same way, fails the check that catches its bug and no
//! other. A key guarded in one process's memory passes on one instance and
//! fails the burst on two: the probe spreads its burst across every URL.

mod server;

use std::time::Duration;

use harness::{PoolSize, TestDb, reference_schema};
use probe::{CheckId, EffectCount, Options, Report, Said, Verdict};
use server::{Shape, serve, serve_instances, serve_shape};

/// The probe's defaults (the workbook's API), counting payments in `db`.
fn options(addr: std::net::SocketAddr, db: &TestDb) -> Options {
    across(vec![format!("http://{addr}")], db)
}

/// The same, across several instances of one API over `db`.
fn across(urls: Vec<String>, db: &TestDb) -> Options {
    Options::across(urls).counting(db.url(), "select count(*) from payments")
}

/// Runs the probe, bounded so that a probe that hangs fails the test.
async fn probe(options: &Options) -> Report {
    match harness::within(Duration::from_secs(60), "the probe", probe::run(options)).await {
        Ok(report) => report,
        Err(e) => panic!("the probe stopped: {e}"),
    }
}

/// The failed checks, with the table for the message when the set is not the one expected.
fn assert_fails(report: &Report, expected: &[CheckId]) {
    assert_eq!(
        report.with_verdict(Verdict::Fail),
        expected,
        "\n{}",
        probe::table(report, 100, true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stage_6s_model_answer_passes_every_check() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve(stage6::router(db.pool(PoolSize::of(10)))).await;
    let report = probe(&options(addr, &db)).await;
    assert_eq!(
        report.with_verdict(Verdict::Pass),
        CheckId::ALL,
        "\n{}",
        probe::table(&report, 100, true)
    );
    assert!(
        report.passed(),
        "the model answer should pass the run:\n{}",
        probe::table(&report, 100, true)
    );
}

/// The effects a check counted.
fn effects(report: &Report, id: CheckId) -> Option<EffectCount> {
    report.check(id).and_then(|c| c.effects)
}

fn counted(created: i64, expected: i64) -> Option<EffectCount> {
    Some(EffectCount {
        created,
        expected: Some(expected),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn check_then_write_fails_the_burst_and_both_changed_bodies() {
    let db = TestDb::create(reference_schema()).await;
    // Held between check and write until all 20 of the burst have checked: the
    // race it loses then happens every time, as in stage 2's tests. Its pair of
    // bodies in flight races freely: both paid, or the second told the first's
    // payment was its own; either fails.
    let addr = serve_shape(&db, Shape::CheckThenWrite { held_for: 20 }).await;
    let report = probe(&options(addr, &db)).await;
    assert_fails(
        &report,
        &[
            CheckId::Burst,
            CheckId::DifferentBody,
            CheckId::ConcurrentBody,
        ],
    );
    assert_eq!(
        effects(&report, CheckId::Burst),
        counted(20, 1),
        "\n{}",
        probe::table(&report, 100, true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stored_hash_never_compared_fails_both_changed_bodies_only() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::HashIgnored).await;
    let report = probe(&options(addr, &db)).await;
    assert_fails(&report, &[CheckId::DifferentBody, CheckId::ConcurrentBody]);
    let check = report.check(CheckId::DifferentBody).expect("it ran");
    assert_eq!(
        check.why,
        [Said::AcceptedOtherBody { status: 201 }],
        "{}",
        check.why_text()
    );
    // In flight, the other body waits on the key's lock, then gets the first's
    // stored answer as its own: one payment, and a client told it paid 999.
    let pair = report.check(CheckId::ConcurrentBody).expect("it ran");
    assert_eq!(pair.why, [Said::PairPassedOff], "{}", pair.why_text());
    assert_eq!(
        pair.effects,
        counted(1, 1),
        "the concurrent other body should leave one payment, as counted: {}",
        pair.why_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reading_through_the_pool_inside_the_transaction_fails_as_a_suspected_deadlock() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::ReadsThroughThePool { pool: 10 }).await;
    let mut options = options(addr, &db);
    // Every request waits this long at most: the deadlocked ones never answer.
    options.timeout = Duration::from_secs(2);
    let report = probe(&options).await;
    assert_fails(&report, &[CheckId::Burst, CheckId::Hang]);
    let hang = report.check(CheckId::Hang).expect("it ran");
    assert_eq!(hang.why, [Said::StuckBurstDeadlock], "{}", hang.why_text());
    assert_eq!(
        report.with_verdict(Verdict::Skipped).len(),
        CheckId::ALL.len() - 2,
        "the checks after a stuck burst are skipped, not failed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_commits_instead_of_one_transaction_fail_only_the_changed_bodies() {
    // It stores the body's hash and never compares it: that the probe sees. The
    // three commits it does not: duplicates that come between them get 409 and,
    // retried, the answer. That bug (a payment that fails leaves its key reserved
    // forever) needs a failure inside the server; stage 3's tests cause one.
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::NoTransaction).await;
    let report = probe(&options(addr, &db)).await;
    assert_fails(&report, &[CheckId::DifferentBody, CheckId::ConcurrentBody]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stage_6s_model_answer_passes_every_check_across_two_instances() {
    let db = TestDb::create(reference_schema()).await;
    let mut urls = Vec::new();
    for _ in 0..2 {
        let addr = serve(stage6::router(db.pool(PoolSize::of(10)))).await;
        urls.push(format!("http://{addr}"));
    }
    let report = probe(&across(urls, &db)).await;
    assert_eq!(
        report.with_verdict(Verdict::Pass),
        CheckId::ALL,
        "\n{}",
        probe::table(&report, 100, true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_locked_in_memory_passes_every_check_on_one_instance() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::InProcessLock).await;
    let report = probe(&options(addr, &db)).await;
    assert_eq!(
        report.with_verdict(Verdict::Pass),
        CheckId::ALL,
        "one process: its lock is everybody's\n{}",
        probe::table(&report, 100, true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_locked_in_memory_fails_the_burst_on_two_instances() {
    let db = TestDb::create(reference_schema()).await;
    let addrs = serve_instances(&db, Shape::InProcessLock, 2).await;
    let urls = addrs.iter().map(|addr| format!("http://{addr}")).collect();
    let report = probe(&across(urls, &db)).await;
    assert_fails(&report, &[CheckId::Burst]);
    assert_eq!(
        effects(&report, CheckId::Burst),
        counted(2, 1),
        "each instance's lock let its own request through\n{}",
        probe::table(&report, 100, true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_body_size_limit_is_a_warning_when_the_large_body_is_paid_once() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::NoBodyLimit).await;
    let report = probe(&options(addr, &db)).await;
    assert_fails(&report, &[]);
    let check = report.check(CheckId::BadBodies).expect("it ran");
    assert_eq!(check.verdict, Verdict::Warn, "{check:?}");
    assert!(
        matches!(&check.why[..], [Said::BodiesAccepted { cases }]
            if cases.0 == [probe::words::Case::OverTheLimit { bytes: 3145728 }]),
        "{}",
        check.why_text()
    );
    assert_eq!(
        check.effects,
        counted(1, 1),
        "the body over the limit was accepted and should have left one payment: {}",
        check.why_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_5xx_that_still_paid_fails_the_bad_bodies() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::PaysThenFailsOnLargeBodies).await;
    let report = probe(&options(addr, &db)).await;
    assert_fails(&report, &[CheckId::BadBodies]);
    let check = report.check(CheckId::BadBodies).expect("it ran");
    assert!(
        check.why.ends_with(&[Said::EffectsMismatch {
            created: 1,
            expected: 0
        }]),
        "{}",
        check.why_text()
    );
}
