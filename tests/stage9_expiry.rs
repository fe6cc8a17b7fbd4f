//! Stage 9: keys that expire, and the clean-up. Time is never waited for: a key is
//! made old by moving its `created_at` back, and the reaper is run by the test.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use harness::{
    Answer, Call, Outcome, PaymentGate, PoolSize, Schema, TestDb, wait_for_lock_waiters, within,
};
use payment_model::Reply;

fn schema() -> Schema {
    Schema::new(stage9::MIGRATION_SOURCE, stage9::MIGRATION)
}

/// Two clients, with the tokens the tests send (as in stage 8).
const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('client-a', encode(sha256(convert_to('token-of-a', 'UTF8')), 'hex')),
    ('client-b', encode(sha256(convert_to('token-of-b', 'UTF8')), 'hex'))";

const BODY: &str = r#"{"orderId":1,"amount":100}"#;

/// The route's settings here: the default 24 h window; a long in-flight wait, since
/// some tests hold a request on purpose (stage 5's 409 is not tested here).
fn config() -> stage9::Config {
    stage9::Config {
        route: stage9::RouteConfig {
            in_flight_wait: Duration::from_secs(10),
            ..stage9::RouteConfig::default()
        },
        reap_batch: 100,
        ..stage9::Config::default()
    }
}

async fn started(pool: PoolSize) -> (TestDb, SocketAddr) {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let router = stage9::router_with(db.pool(pool), config());
    let addr = harness::serve(|listener| stage9::serve(listener, router)).await;
    (db, addr)
}

/// `POST /payments` as client A, with `key`.
async fn post_as_a(addr: SocketAddr, key: &str) -> Answer {
    Call::post(addr, "/payments", BODY)
        .authorization(Some("Bearer token-of-a"))
        .key(Some(key))
        .send()
        .await
}

/// Moves every key's `created_at` back, as if it had been made that long ago.
async fn age_keys(db: &TestDb, sql: &'static str) {
    db.execute(sql).await;
}

// ANCHOR: window
#[tokio::test]
async fn a_key_just_inside_the_window_replays() {
    let (db, addr) = started(PoolSize::of(5)).await;
    let first = post_as_a(addr, "order-1").await;
    // 24 h is the window: this key is one minute from expiring.
    age_keys(
        &db,
        "UPDATE idempotency_keys SET created_at = now() - interval '23 hours 59 minutes'",
    )
    .await;
    let again = post_as_a(addr, "order-1").await;
    assert_eq!(first.status, 201, "{first:?}");
    assert_eq!(
        (again.status, &again.body, again.is_replayed()),
        (201, &first.body, true),
        "inside the window, the stored answer is replayed: {again:?}"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}

#[tokio::test]
async fn a_key_just_outside_the_window_is_a_new_payment() {
    let (db, addr) = started(PoolSize::of(5)).await;
    let first = post_as_a(addr, "order-1").await;
    // One minute past the window; the reaper has not run: the row is still there.
    age_keys(
        &db,
        "UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute'",
    )
    .await;
    let after_expiry = post_as_a(addr, "order-1").await;
    let second = if after_expiry.body == first.body {
        "replayed"
    } else if after_expiry.status == 201 {
        "new payment"
    } else {
        "refused"
    };
    harness::observe(
        "stage9.after_expiry",
        &serde_json::json!({ "second": second, "payments": db.payment_count().await }),
    );
    assert_eq!(
        (after_expiry.status, after_expiry.is_replayed()),
        (201, false),
        "an expired key is a new key, reaped or not: the request is a new payment: {after_expiry:?}"
    );
    assert_ne!(
        after_expiry.body["id"], first.body["id"],
        "a new payment has a new id"
    );
    let made = db.payment_count().await;
    assert!(
        made == 2,
        "2 payments should have been made by now: there are {made}"
    );
    let again = post_as_a(addr, "order-1").await;
    assert_eq!(
        (&again.body, again.is_replayed()),
        (&after_expiry.body, true),
        "the key now holds the new payment's answer, and replays it"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM idempotency_keys").await,
        1,
        "the expired row was taken over, not duplicated"
    );
}
// ANCHOR_END: window

/// `n` keys of client B, made `age` ago, already answered.
async fn old_keys(db: &TestDb, sql: &'static str) {
    db.execute(sql).await;
}

const EXPIRED_250_AND_FRESH_5: &str = "INSERT INTO idempotency_keys
        (client_id, key, body_hash, status, response, created_at)
    SELECT 2, 'old-' || g, 'hash', 201, '{}'::jsonb, now() - interval '25 hours'
    FROM generate_series(1, 250) g
    UNION ALL
    SELECT 2, 'recent-' || g, 'hash', 201, '{}'::jsonb, now() - interval '23 hours'
    FROM generate_series(1, 5) g";

// ANCHOR: reaper
#[tokio::test]
async fn the_reaper_deletes_only_expired_keys_in_bounded_batches() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    old_keys(&db, EXPIRED_250_AND_FRESH_5).await;
    let pool = db.pool(PoolSize::of(2));

    let reaped = stage9::reap_expired_keys(&pool, &config())
        .await
        .expect("the reaper runs");

    harness::observe(
        "stage9.reaped",
        &serde_json::json!({ "keys": reaped.keys, "batches": reaped.batches }),
    );
    assert_eq!(
        (reaped.keys, reaped.batches),
        (250, 3),
        "250 expired keys, 100 at most per transaction: 100 + 100 + 50"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM idempotency_keys").await,
        5,
        "the 5 keys inside the window stay"
    );
    let again = stage9::reap_expired_keys(&pool, &config())
        .await
        .expect("the reaper runs");
    assert_eq!(
        (again.keys, again.batches),
        (0, 1),
        "nothing is left to reap"
    );
}

#[tokio::test]
async fn the_created_at_index_exists_for_the_reaper() {
    let db = TestDb::create(schema()).await;
    let indexes = db
        .count(
            "SELECT count(*) FROM pg_index i
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
             WHERE i.indrelid = 'idempotency_keys'::regclass AND a.attname = 'created_at'",
        )
        .await;
    assert!(
        indexes == 1,
        "idempotency_keys needs one index that starts with created_at, so that each batch \
         of the reaper reads only the oldest keys (CREATE INDEX ... ON idempotency_keys \
         (created_at)): yours has {indexes}"
    );
}
// ANCHOR_END: reaper

/// The key order-1 of client A, answered 25 hours ago: expired, not yet reaped.
const EXPIRED_ORDER_1: &str = "INSERT INTO idempotency_keys
        (client_id, key, body_hash, status, response, created_at)
    VALUES (1, 'order-1', 'hash', 201, '{\"id\": \"0\"}'::jsonb, now() - interval '25 hours')";

// ANCHOR: in_flight
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_reaper_passes_over_a_key_in_flight_without_waiting() {
    let (db, addr) = started(PoolSize::of(5)).await;
    old_keys(&db, EXPIRED_ORDER_1).await;
    let gate = PaymentGate::close(&db, 1).await;
    // A's request takes the expired key over, and is held inside its payment.
    let first = tokio::spawn(post_as_a(addr, "order-1"));
    until_held(&db, &first).await;

    let reaper_pool = db.pool(PoolSize::of(1));
    let reaped = within(
        Duration::from_secs(5),
        "the reaper, while a request holds an expired key",
        stage9::reap_expired_keys(&reaper_pool, &config()),
    )
    .await
    .expect("the reaper runs");
    assert_eq!(
        reaped.keys, 0,
        "the only expired row is held by a request in flight: the reaper skips it"
    );

    gate.open().await;
    let first = within(Duration::from_secs(10), "the held request", first)
        .await
        .expect("the request task ends");
    assert_eq!(
        (first.status, first.is_replayed()),
        (201, false),
        "{first:?}"
    );
    let again = post_as_a(addr, "order-1").await;
    assert_eq!(
        (&again.body, again.is_replayed()),
        (&first.body, true),
        "the key survived the reaper and replays its new answer"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: in_flight

/// Sessions of this database waiting at the payment gate (an advisory lock).
const HELD_AT_GATE: &str = "SELECT count(*) FROM pg_locks
    WHERE locktype = 'advisory' AND NOT granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";

/// Waits (bounded) until the first request is held at the gate, inside its payment;
/// fails at once if it ended without getting there.
async fn until_held(db: &TestDb, first: &tokio::task::JoinHandle<Answer>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while db.count(HELD_AT_GATE).await < 1 {
        assert!(
            !first.is_finished(),
            "the first request ended without reaching its payment (see its panic or answer above)"
        );
        assert!(
            Instant::now() < deadline,
            "the first request did not reach its payment within 10 s"
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

const EXPIRED_2000: &str = "INSERT INTO idempotency_keys
        (client_id, key, body_hash, status, response, created_at)
    SELECT 2, 'old-' || g, 'hash', 201, '{}'::jsonb, now() - interval '2 days'
    FROM generate_series(1, 2000) g";

// ANCHOR: burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_reaper_looping_during_a_burst_causes_no_second_payment_and_no_error() {
    let (db, addr) = started(PoolSize::of(20)).await;
    old_keys(&db, EXPIRED_2000).await;
    old_keys(&db, EXPIRED_ORDER_1).await;

    // The first of 20 requests with A's expired key takes it over and is held in
    // its payment; the 19 others wait on the key.
    let gate = PaymentGate::close(&db, 1).await;
    let first = tokio::spawn(post_as_a(addr, "order-1"));
    until_held(&db, &first).await;
    let duplicates: Vec<_> = (1..20)
        .map(|_| tokio::spawn(post_as_a(addr, "order-1")))
        .collect();
    wait_for_lock_waiters(&db, 19).await;

    // The reaper loops on a connection of its own until the burst is over.
    let stop = Arc::new(AtomicBool::new(false));
    let runs = Arc::new(AtomicU64::new(0));
    let reaper = {
        let (pool, stop, runs) = (db.pool(PoolSize::of(1)), stop.clone(), runs.clone());
        tokio::spawn(async move {
            let mut reaped = 0;
            while !stop.load(Ordering::SeqCst) {
                reaped += stage9::reap_expired_keys(&pool, &config()).await?.keys;
                runs.fetch_add(1, Ordering::SeqCst);
            }
            Ok::<u64, stage9::ReapError>(reaped)
        })
    };
    // Two whole runs of the reaper while all 20 requests are in flight.
    let deadline = Instant::now() + Duration::from_secs(10);
    while runs.load(Ordering::SeqCst) < 2 {
        assert!(
            Instant::now() < deadline,
            "the reaper did not finish two runs within 10 s while the burst was held: \
             does it wait for the key in flight?"
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    gate.open().await;

    let mut results = vec![];
    for task in std::iter::once(first).chain(duplicates) {
        let answer = within(Duration::from_secs(10), "a request of the burst", task)
            .await
            .expect("the request task ends");
        results.push(Ok(Reply {
            status: answer.status,
            body: answer.body,
        }));
    }
    stop.store(true, Ordering::SeqCst);
    let reaped = within(Duration::from_secs(10), "the reaper's last run", reaper)
        .await
        .expect("the reaper task ends")
        .expect("no reaper run failed");

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record_with(
        "stage9.reaper_during_burst",
        serde_json::json!({ "reaped": reaped }),
    );
    assert_eq!(outcome.payments, 1, "{outcome}");
    assert_eq!(
        (
            outcome.count(harness::ReplyKind::Status(201)),
            outcome.distinct_bodies
        ),
        (20, 1),
        "every request of the burst gets the one payment's 201: {outcome}"
    );
    assert_eq!(
        reaped, 2000,
        "the reaper deleted the 2000 expired keys, and not the one taken over in flight"
    );
}
// ANCHOR_END: burst

#[tokio::test]
async fn the_background_reaper_empties_the_expired_keys() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    old_keys(&db, EXPIRED_250_AND_FRESH_5).await;
    let reaper = stage9::spawn_reaper(
        db.pool(PoolSize::of(1)),
        stage9::Config {
            reap_every: Duration::from_millis(10),
            ..config()
        },
    )
    .expect("the reaper's settings are valid");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = db.count("SELECT count(*) FROM idempotency_keys").await;
        if left == 5 {
            break;
        }
        assert!(
            reaper.is_running(),
            "the background reaper stopped: its task panicked (see the panic above; a todo!() \
             not yet written?), with {left} keys left (5 expected)"
        );
        assert!(
            Instant::now() < deadline,
            "the background reaper left {left} keys after 10 s (5 expected)"
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `cargo workbook api --stage 9`'s program (tests/stage9_api.rs).
#[path = "stage9_api.rs"]
mod stage9_api;

#[tokio::test]
async fn the_api_serves_the_route_with_the_background_reaper_beside_it() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    old_keys(&db, EXPIRED_250_AND_FRESH_5).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener's address");
    // What each instance of `cargo workbook api --stage 9` runs, with its settings:
    // the reaper's first run is at once, the next a minute later.
    let serving =
        stage9_api::api_server::start(&stage9_api::api(), listener, db.pool(PoolSize::of(2)));
    let paid = post_as_a(addr, "order-1").await;
    assert_eq!(paid.status, 201, "the api pays: {paid:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = db
            .count("SELECT count(*) FROM idempotency_keys WHERE key NOT LIKE 'order-%'")
            .await;
        if left == 5 {
            break;
        }
        assert!(
            !serving.background_stopped(),
            "the api's reaper stopped: its task panicked (see the panic above; a todo!() \
             not yet written?), with {left} old keys left (5 expected)"
        );
        assert!(
            Instant::now() < deadline,
            "10 s after `cargo workbook api --stage 9` started, {left} old keys are left \
             (5 expected): its server does not run the reaper beside the route"
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Client A's id, for the tests that call `create_payment` themselves.
async fn client_a(db: &TestDb) -> stage9::ClientId {
    stage9::ClientId(
        db.count("SELECT id FROM clients WHERE name = 'client-a'")
            .await,
    )
}

// ANCHOR: reaped_mid_request
/// A repeat finds its key inside the window (its INSERT does nothing); before it
/// reads the stored answer, the key expires and the reaper deletes it. The
/// attempt committed nothing and found nothing to replay: it runs again, and the
/// key, expired and gone, is a new key that pays.
///
/// The interleaving is forced with locks: the test holds the key's row, so the
/// repeat's INSERT waits; a stand-in for the reaper asks for the whole table, so
/// it gets it as soon as the repeat's transaction ends, and the repeat's read
/// waits behind it; the stand-in then deletes the key and commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_reaped_between_the_reservation_and_the_read_is_paid_as_a_new_key() {
    use sqlx::Executor;

    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let a = client_a(&db).await;
    let pool = db.pool(PoolSize::of(2));
    let first = stage9::create_payment(&pool, a, "order-1", BODY, &config())
        .await
        .expect("the first request pays");

    let mut holder = db.connect().await;
    holder
        .execute("BEGIN; SELECT 1 FROM idempotency_keys WHERE key = 'order-1' FOR UPDATE")
        .await
        .expect("the test holds the key's row");
    let repeat = tokio::spawn({
        let pool = pool.clone();
        async move { stage9::create_payment(&pool, a, "order-1", BODY, &config()).await }
    });
    wait_for_lock_waiters(&db, 1).await;

    let mut reaper = db.connect().await;
    reaper.execute("BEGIN").await.expect("BEGIN");
    let table_taken = tokio::spawn(async move {
        reaper
            .execute("LOCK TABLE idempotency_keys IN ACCESS EXCLUSIVE MODE")
            .await
            .expect("the stand-in for the reaper takes the table");
        reaper
    });
    harness::wait_for_table_lock_waiters(&db, 1).await;
    holder.execute("COMMIT").await.expect("COMMIT");
    let mut reaper = within(Duration::from_secs(10), "the table's lock", table_taken)
        .await
        .expect("the stand-in's task ends");
    // The repeat's transaction is over (it found the key inside the window); its
    // read of the stored answer now waits behind the stand-in.
    harness::wait_for_table_lock_waiters(&db, 1).await;
    reaper
        .execute("DELETE FROM idempotency_keys WHERE key = 'order-1'; COMMIT")
        .await
        .expect("the stand-in reaps the key");

    let repeat = within(Duration::from_secs(10), "the repeat", repeat)
        .await
        .expect("the repeat's task ends");
    let repeat = repeat.unwrap_or_else(|e| {
        panic!(
            "the key was reaped between the repeat's INSERT and its read of the answer: that \
             attempt committed nothing, so it is run again, and the key, gone, is a new key. \
             create_payment returned {e}"
        )
    });
    assert_eq!(
        (repeat.reply.status, repeat.replayed),
        (201, false),
        "{repeat:?}"
    );
    assert_ne!(
        repeat.reply.payment_id(),
        first.reply.payment_id(),
        "a new payment: the key had expired"
    );
    let made = db.payment_count().await;
    assert!(
        made == 2,
        "2 payments should have been made by now: there are {made}"
    );
}
// ANCHOR_END: reaped_mid_request

/// As in stages 5 and 8: when `create_payment` returns its error, its transaction
/// is over and the key free.
#[tokio::test]
async fn a_failed_payment_has_rolled_back_when_create_payment_returns() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let a = client_a(&db).await;
    let body = r#"{"orderId":13,"amount":100}"#;

    let seen = harness::failed_payment_as_it_returns(&db, async |pool| {
        stage9::create_payment(pool, a, "key-13", body, &config()).await
    })
    .await;

    assert!(
        seen.failed.is_err(),
        "the payment INSERT fails, so create_payment fails: {:?}",
        seen.failed
    );
    assert!(
        seen.in_a_transaction() == 0,
        "create_payment returned its error while its transaction was still open (the \
         sessions: {:?}): the key stays locked until sqlx sends the queued ROLLBACK. Roll back \
         before returning the error.",
        seen.sessions
    );
}

// ANCHOR: config
/// A batch of 0 keys deletes nothing and is never "not full": the reaper would
/// loop for ever. A negative one is a LIMIT PostgreSQL refuses. Both are refused
/// before the reaper touches the database, and so is a retention of zero.
#[rstest::rstest]
#[case::a_batch_of_none(stage9::Config { reap_batch: 0, ..config() })]
#[case::a_negative_batch(stage9::Config { reap_batch: -1, ..config() })]
#[case::no_retention(stage9::Config { retention: Duration::ZERO, ..config() })]
#[tokio::test]
async fn the_reaper_refuses_settings_it_cannot_work_with(#[case] settings: stage9::Config) {
    let db = TestDb::create(schema()).await;
    let pool = db.pool(PoolSize::of(1));
    let refused = within(
        Duration::from_secs(5),
        "the reaper, with settings it cannot work with",
        stage9::reap_expired_keys(&pool, &settings),
    )
    .await;
    let expected = settings
        .validate()
        .expect_err("these settings are not valid");
    assert!(
        matches!(&refused, Err(stage9::ReapError::Config(why)) if *why == expected),
        "{settings:?}: the reaper should refuse them with {expected:?}, before it deletes \
         anything; it returned {refused:?}"
    );
    assert!(
        matches!(stage9::spawn_reaper(pool, settings), Err(why) if why == expected),
        "{settings:?}: the background reaper is refused at its start, not at each run"
    );
}

#[test]
fn the_default_and_the_smallest_settings_are_valid() {
    assert_eq!(
        stage9::Config::default().validate(),
        Ok(()),
        "the default settings must be valid"
    );
    let smallest = stage9::Config {
        reap_batch: 1,
        retention: Duration::from_millis(1),
        ..stage9::Config::default()
    };
    assert_eq!(
        smallest.validate(),
        Ok(()),
        "a batch of 1 key and a retention of 1 ms are slow and short, not wrong"
    );
}
// ANCHOR_END: config

// ANCHOR: bounded_retry
/// As in stage 8: a serialization failure is run again, at most
/// `config.route.attempts` times in all; any other error (but a key reaped
/// mid-request) is not run again. The database refuses the payment for order 13,
/// every time, with the given SQLSTATE, and counts the runs
/// (`harness::refuse_order_13`).
#[rstest::rstest]
#[case::a_serialization_failure("40001", 3)]
#[case::another_error("P0001", 1)]
#[tokio::test]
async fn only_a_serialization_failure_is_run_again_at_most_the_configured_attempts(
    #[case] sqlstate: &str,
    #[case] runs: i64,
) {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let a = client_a(&db).await;
    harness::refuse_order_13(&db, sqlstate).await;
    let pool = db.pool(PoolSize::of(2));
    let mut settings = config();
    settings.route.attempts = 3;

    let result = within(
        Duration::from_secs(20),
        "create_payment",
        stage9::create_payment(
            &pool,
            a,
            "key-13",
            r#"{"orderId":13,"amount":100}"#,
            &settings,
        ),
    )
    .await;

    assert!(
        matches!(&result, Err(e) if e.sqlstate().as_deref() == Some(sqlstate)),
        "every run fails with {sqlstate}, so create_payment does: {result:?}"
    );
    let ran = harness::refused_payments(&db).await;
    assert!(
        ran == runs,
        "SQLSTATE {sqlstate}: the transaction should have run {runs} time(s) (attempts is 3; \
         only a serialization failure, or a key reaped mid-request, is run again), it ran \
         {ran} time(s)"
    );
}
// ANCHOR_END: bounded_retry

// ANCHOR: default_settings
/// The route `cargo workbook api --stage 9` serves, with the default settings: a
/// duplicate of a request in flight waits the bounded 250 ms on the key, and is
/// told 409, "retry later" (stage 5's answer, kept by stages 8 and 9).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_the_default_settings_a_duplicate_of_a_request_in_flight_is_told_409() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let router = stage9::router_with(db.pool(PoolSize::of(10)), stage9::Config::default());
    let addr = harness::serve(|listener| stage9::serve(listener, router)).await;
    let gate = PaymentGate::close(&db, 1).await;
    let first = tokio::spawn(post_as_a(addr, "order-1"));
    until_held(&db, &first).await;

    let duplicate = Call::post(addr, "/payments", BODY)
        .authorization(Some("Bearer token-of-a"))
        .key(Some("order-1"))
        .within(Duration::from_secs(10))
        .send()
        .await;
    gate.open().await;
    let first = within(Duration::from_secs(10), "the first request", first)
        .await
        .expect("the first request's task ends");

    assert_eq!(
        duplicate.status, 409,
        "a duplicate of a request still in flight is told 409 once the key's lock times out \
         (SQLSTATE 55P03): {duplicate:?}"
    );
    assert_eq!(
        first.status, 201,
        "the first request pays once let go: {first:?}"
    );
    assert_eq!(db.payment_count().await, 1, "one payment");
}
// ANCHOR_END: default_settings

/// The database refuses to store keys: the reservation fails with an error that
/// is not a lock timeout. That is an error (the route's 500), not a 409: no
/// request with the key is in flight.
#[tokio::test]
async fn a_reservation_that_fails_for_another_reason_is_an_error_not_a_409() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    harness::refuse_keys(&db).await;
    let a = client_a(&db).await;
    let pool = db.pool(PoolSize::of(2));

    let result = stage9::create_payment(&pool, a, "order-1", BODY, &config()).await;

    assert!(
        matches!(&result, Err(e) if e.sqlstate().as_deref() == Some("P0001")),
        "only a lock timeout (SQLSTATE 55P03) means another request holds the key; any other \
         error of the reservation is returned as an error, not answered 409: {result:?}"
    );
}
