//! The first request's own bound: the 250 ms `lock_timeout` bounds the duplicates'
//! wait, not the first request. If that one hangs inside its transaction, the
//! server ends it: `statement_timeout` cancels a statement that runs too long,
//! `idle_in_transaction_session_timeout` ends a session left idle inside its
//! transaction. Either way the transaction rolls back, the key is free again,
//! and the retry pays once.

use std::time::{Duration, Instant};

use harness::{PaymentGate, TestDb, reference_schema, within};
use payment_model::PaymentRequest;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, Executor, PgConnection, PgPool};

/// The server's bound on the first request, set on each of the app's connections.
const SERVER_BOUND: Duration = Duration::from_millis(500);
/// How long a test waits for the server to act on that bound, at most.
const TEST_BOUND: Duration = Duration::from_secs(10);

// ANCHOR: bounded_options
/// The app's connection settings, with one of the server's bounds: a run-time
/// parameter sent when each connection opens (`ALTER ROLE app SET ...` does the
/// same for every connection of a role).
fn bounded(options: &PgConnectOptions, setting: &str) -> PgConnectOptions {
    let millis = format!("{}ms", SERVER_BOUND.as_millis());
    options.clone().options([(setting, millis.as_str())])
}
// ANCHOR_END: bounded_options

fn pool_with(db: &TestDb, setting: &str) -> PgPool {
    PgPoolOptions::new()
        .max_connections(5)
        .connect_lazy_with(bounded(db.options(), setting))
}

fn body() -> String {
    PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body()
}

// ANCHOR: statement_timeout
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_first_request_stuck_in_a_statement_is_cancelled_and_its_retry_pays_once() {
    let db = TestDb::create(reference_schema()).await;
    let pool = pool_with(&db, "statement_timeout");
    // The first request's payment INSERT waits on a lock the test holds: a
    // statement that never ends by itself.
    let gate = PaymentGate::close(&db, 1).await;
    let started = Instant::now();
    let first = within(
        TEST_BOUND,
        "the first request, stuck in its payment INSERT",
        stage5::create_payment(&pool, "key-1", &body()),
    )
    .await;
    let took = started.elapsed();
    gate.open().await;

    let sqlstate = first.as_ref().err().and_then(|e| e.sqlstate());
    assert_eq!(
        sqlstate.as_deref(),
        Some("57014"),
        "statement_timeout cancels the stuck statement (query_canceled), and the request \
         fails: {first:?}"
    );
    assert!(
        took < SERVER_BOUND + Duration::from_secs(3),
        "the server ended the first request at its bound ({SERVER_BOUND:?}): took {took:?}"
    );
    let retry = stage5::create_payment(&pool, "key-1", &body()).await;
    let status = retry.as_ref().map(|r| r.status).ok();
    assert_eq!(
        status,
        Some(201),
        "the failed transaction was rolled back, so the key is free: the retry pays: {retry:?}"
    );
    assert_eq!(db.payment_count().await, 1, "one payment in all");
}
// ANCHOR_END: statement_timeout

// ANCHOR: idle_in_transaction
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_first_request_idle_in_its_transaction_is_ended_and_its_retry_pays_once() {
    let db = TestDb::create(reference_schema()).await;
    let setting = "idle_in_transaction_session_timeout";
    // The first request reserved the key, then its application stalled between
    // two statements: its transaction stays open, holding the key's lock.
    let mut stuck = PgConnection::connect_with(&bounded(db.options(), setting))
        .await
        .expect("the stuck request's connection");
    stuck.execute("BEGIN").await.expect("BEGIN");
    stuck
        .execute("INSERT INTO idempotency_keys (key, body_hash) VALUES ('key-1', 'h')")
        .await
        .expect("the stuck request reserves the key");
    // Until the server acts, a retry is told 409 (stage 5's bounded wait).
    within(
        TEST_BOUND,
        "the server to end the idle transaction",
        sessions_idle_in_transaction_gone(&db),
    )
    .await;
    let next = stuck.execute("COMMIT").await;
    assert!(
        next.is_err(),
        "the server closed the stuck session: its next statement fails, and nothing it did \
         is committed: {next:?}"
    );
    let pool = pool_with(&db, setting);
    let retry = stage5::create_payment(&pool, "key-1", &body()).await;
    let status = retry.as_ref().map(|r| r.status).ok();
    assert_eq!(
        status,
        Some(201),
        "the stuck transaction was rolled back, so the key is free: the retry pays: {retry:?}"
    );
    assert_eq!(db.payment_count().await, 1, "one payment in all");
}
// ANCHOR_END: idle_in_transaction

/// Returns once no session of the test database is idle in a transaction.
async fn sessions_idle_in_transaction_gone(db: &TestDb) {
    loop {
        let idle = db
            .count(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND state = 'idle in transaction'",
            )
            .await;
        if idle == 0 {
            return;
        }
        // Polling a condition, bounded by the caller's `within`: not timing a race.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
