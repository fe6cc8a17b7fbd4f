//! Stage 9: keys that expire, and the clean-up. Time is never waited for: a key is
//! made old by moving its `created_at` back, and the reaper is run by the test.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use harness::{
    Answer, Call, Outcome, PaymentGate, PoolSize, Schema, Shown, TestDb, wait_for_lock_waiters,
    within,
};
use harness::{catalogue, t};
use payment_model::Reply;

// What these tests say, in the learner's language
// (tests/locales/*/stage9_expiry.ftl).
catalogue!(static MESSAGES = "locales", "stage9_expiry");

/// `made` payments must be `wanted`, or the test fails saying how many there are.
fn payments_made_by_now(made: i64, wanted: i64) {
    assert!(
        made == wanted,
        "{}",
        t!(
            MESSAGES,
            "payments-made-by-now",
            wanted = wanted,
            payments = made
        )
    );
}

/// A reply as the messages show it: `201 {...}`, and
/// `(Idempotent-Replayed: true)` when it is a replay.
fn replied(reply: &Reply, replayed: bool) -> String {
    if replayed {
        format!("{} (Idempotent-Replayed: true)", reply.shown())
    } else {
        reply.shown()
    }
}

/// An HTTP answer as the messages show it.
fn shown(answer: &Answer) -> String {
    replied(&answer.reply(), answer.is_replayed())
}

/// What `create_payment` returned, as the messages show it: its answer (as
/// `paid` shows it), or its error's own words.
fn paid_or_error<A>(
    result: &Result<A, payment_model::PaymentError>,
    paid: impl Fn(&A) -> String,
) -> String {
    match result {
        Ok(answer) => paid(answer),
        Err(e) => e.to_string(),
    }
}

/// Fails the test saying that `what` (a task running the code under test)
/// panicked, with tokio's words for it.
fn task_panicked(what: &str, error: &tokio::task::JoinError) -> ! {
    panic!(
        "{}",
        t!(
            MESSAGES,
            "a-task-panicked",
            what = what,
            error = error.to_string()
        )
    )
}

/// Fails the test saying that the reaper returned an error.
fn reaper_failed(error: &stage9::ReapError) -> ! {
    panic!(
        "{}",
        t!(
            MESSAGES,
            "the-reaper-returned-an-error",
            error = error.to_string()
        )
    )
}

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
    assert!(
        first.status == 201,
        "{}",
        t!(MESSAGES, "a-new-key-is-answered-201", got = shown(&first))
    );
    assert!(
        (again.status, &again.body, again.is_replayed()) == (201, &first.body, true),
        "{}",
        t!(
            MESSAGES,
            "inside-the-window-the-stored-answer-is-replayed",
            first = shown(&first),
            again = shown(&again)
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
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
    assert!(
        (after_expiry.status, after_expiry.is_replayed()) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "an-expired-key-is-a-new-payment",
            first = shown(&first),
            got = shown(&after_expiry)
        )
    );
    assert!(
        after_expiry.body["id"] != first.body["id"],
        "{}",
        t!(
            MESSAGES,
            "a-new-payment-has-a-new-id",
            first = shown(&first),
            got = shown(&after_expiry)
        )
    );
    payments_made_by_now(db.payment_count().await, 2);
    let again = post_as_a(addr, "order-1").await;
    assert!(
        (&again.body, again.is_replayed()) == (&after_expiry.body, true),
        "{}",
        t!(
            MESSAGES,
            "the-key-now-replays-the-new-payment",
            paid = shown(&after_expiry),
            again = shown(&again)
        )
    );
    let rows = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert!(
        rows == 1,
        "{}",
        t!(MESSAGES, "the-expired-row-is-taken-over", rows = rows)
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

    let reaped = within(
        Duration::from_secs(10),
        &t!(MESSAGES, "a-run-of-the-reaper"),
        stage9::reap_expired_keys(&pool, &config()),
    )
    .await
    .unwrap_or_else(|e| reaper_failed(&e));

    harness::observe(
        "stage9.reaped",
        &serde_json::json!({ "keys": reaped.keys, "batches": reaped.batches }),
    );
    assert!(
        (reaped.keys, reaped.batches) == (250, 3),
        "{}",
        t!(
            MESSAGES,
            "the-reaper-deletes-in-bounded-batches",
            keys = reaped.keys,
            batches = reaped.batches
        )
    );
    let left = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert!(
        left == 5,
        "{}",
        t!(MESSAGES, "the-keys-inside-the-window-stay", left = left)
    );
    let again = within(
        Duration::from_secs(10),
        &t!(MESSAGES, "a-run-of-the-reaper"),
        stage9::reap_expired_keys(&pool, &config()),
    )
    .await
    .unwrap_or_else(|e| reaper_failed(&e));
    assert!(
        (again.keys, again.batches) == (0, 1),
        "{}",
        t!(
            MESSAGES,
            "nothing-is-left-to-reap",
            keys = again.keys,
            batches = again.batches
        )
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
        "{}",
        t!(
            MESSAGES,
            "one-index-starts-with-created-at",
            indexes = indexes
        )
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
        &t!(MESSAGES, "the-reaper-while-a-request-holds-an-expired-key"),
        stage9::reap_expired_keys(&reaper_pool, &config()),
    )
    .await
    .unwrap_or_else(|e| reaper_failed(&e));
    assert!(
        reaped.keys == 0,
        "{}",
        t!(
            MESSAGES,
            "the-reaper-skips-a-key-in-flight",
            keys = reaped.keys
        )
    );

    gate.open().await;
    let held = t!(MESSAGES, "the-held-request");
    let first = within(Duration::from_secs(10), &held, first)
        .await
        .unwrap_or_else(|e| task_panicked(&held, &e));
    assert!(
        (first.status, first.is_replayed()) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "a-take-over-is-a-new-payment",
            got = shown(&first)
        )
    );
    let again = post_as_a(addr, "order-1").await;
    assert!(
        (&again.body, again.is_replayed()) == (&first.body, true),
        "{}",
        t!(
            MESSAGES,
            "the-key-survived-the-reaper",
            paid = shown(&first),
            again = shown(&again)
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: in_flight

/// Sessions of this database waiting at the payment gate (an advisory lock).
const HELD_AT_GATE: &str = "SELECT count(*) FROM pg_locks
    WHERE locktype = 'advisory' AND NOT granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";

/// Waits (bounded) until the first request is held at the gate, inside its payment;
/// fails at once if it ended without getting there.
async fn until_held(db: &TestDb, first: &tokio::task::JoinHandle<Answer>) {
    let bound = Duration::from_secs(10);
    let deadline = Instant::now() + bound;
    while db.count(HELD_AT_GATE).await < 1 {
        assert!(
            !first.is_finished(),
            "{}",
            t!(MESSAGES, "the-first-request-ended-before-its-payment")
        );
        assert!(
            Instant::now() < deadline,
            "{}",
            t!(
                MESSAGES,
                "the-first-request-did-not-reach-its-payment",
                seconds = bound.as_secs()
            )
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
    let bound = Duration::from_secs(10);
    let deadline = Instant::now() + bound;
    while runs.load(Ordering::SeqCst) < 2 {
        assert!(
            Instant::now() < deadline,
            "{}",
            t!(
                MESSAGES,
                "the-reaper-did-not-run-twice-during-the-burst",
                seconds = bound.as_secs(),
                runs = runs.load(Ordering::SeqCst)
            )
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    gate.open().await;

    let mut results = vec![];
    let of_the_burst = t!(MESSAGES, "a-request-of-the-burst");
    for task in std::iter::once(first).chain(duplicates) {
        let answer = within(Duration::from_secs(10), &of_the_burst, task)
            .await
            .unwrap_or_else(|e| task_panicked(&of_the_burst, &e));
        results.push(Ok(Reply {
            status: answer.status,
            body: answer.body,
        }));
    }
    stop.store(true, Ordering::SeqCst);
    let last_run = t!(MESSAGES, "the-reapers-last-run");
    let reaped = within(Duration::from_secs(10), &last_run, reaper)
        .await
        .unwrap_or_else(|e| task_panicked(&last_run, &e))
        .unwrap_or_else(|e| reaper_failed(&e));

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record_with(
        "stage9.reaper_during_burst",
        serde_json::json!({ "reaped": reaped }),
    );
    let said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(MESSAGES, "the-burst-pays-once", outcome = &said)
    );
    assert!(
        (
            outcome.count(harness::ReplyKind::Status(201)),
            outcome.distinct_bodies
        ) == (20, 1),
        "{}",
        t!(
            MESSAGES,
            "every-request-of-the-burst-gets-the-201",
            outcome = &said
        )
    );
    assert!(
        reaped == 2000,
        "{}",
        t!(
            MESSAGES,
            "the-reaper-deletes-the-2000-others",
            reaped = reaped
        )
    );
}
// ANCHOR_END: burst

/// The background reaper on `pool`, running every 10 ms; the test fails if the
/// (valid) settings are refused.
fn reaper_every_10_ms(pool: sqlx::PgPool) -> stage9::Reaper {
    stage9::spawn_reaper(
        pool,
        stage9::Config {
            reap_every: Duration::from_millis(10),
            ..config()
        },
    )
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "valid-settings-are-refused",
                error = e.to_string()
            )
        )
    })
}

#[tokio::test]
async fn the_background_reaper_empties_the_expired_keys() {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    old_keys(&db, EXPIRED_250_AND_FRESH_5).await;
    let reaper = reaper_every_10_ms(db.pool(PoolSize::of(1)));
    let bound = Duration::from_secs(10);
    let deadline = Instant::now() + bound;
    loop {
        let left = db.count("SELECT count(*) FROM idempotency_keys").await;
        if left == 5 {
            break;
        }
        assert!(
            reaper.is_running(),
            "{}",
            t!(MESSAGES, "the-background-reaper-stopped", left = left)
        );
        assert!(
            Instant::now() < deadline,
            "{}",
            t!(
                MESSAGES,
                "the-background-reaper-left-keys",
                left = left,
                seconds = bound.as_secs()
            )
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The name the dropped reaper's connection goes by, to find it in `pg_stat_activity`.
const REAPER_CONNECTIONS: &str =
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'stage9-dropped-reaper'";

/// Polls `sql` (a count) until it is `wanted`, at most `bound`: a condition polled,
/// not a race timed. False when the bound passed first.
async fn count_becomes(db: &TestDb, sql: &'static str, wanted: i64, bound: Duration) -> bool {
    let deadline = Instant::now() + bound;
    while db.count(sql).await != wanted {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}

/// A dropped reaper stops: its task ends, and with it the pool it was given (its
/// only holder here), whose connection closes. A reaper that outlived its server
/// would go on deleting keys, and hold a connection, for as long as the process runs.
#[tokio::test]
async fn a_dropped_background_reaper_stops_and_closes_its_connection() {
    let db = TestDb::create(schema()).await;
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect_lazy_with(
            db.options()
                .clone()
                .application_name("stage9-dropped-reaper"),
        );
    let reaper = reaper_every_10_ms(pool);
    let bound = Duration::from_secs(10);
    assert!(
        count_becomes(&db, REAPER_CONNECTIONS, 1, bound).await,
        "{}",
        t!(
            MESSAGES,
            "the-background-reaper-connects",
            seconds = bound.as_secs()
        )
    );

    drop(reaper);

    assert!(
        count_becomes(&db, REAPER_CONNECTIONS, 0, bound).await,
        "{}",
        t!(
            MESSAGES,
            "a-dropped-reaper-stops",
            seconds = bound.as_secs()
        )
    );
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
    assert!(
        paid.status == 201,
        "{}",
        t!(MESSAGES, "the-api-pays", got = shown(&paid))
    );
    let bound = Duration::from_secs(10);
    let deadline = Instant::now() + bound;
    loop {
        let left = db
            .count("SELECT count(*) FROM idempotency_keys WHERE key NOT LIKE 'order-%'")
            .await;
        if left == 5 {
            break;
        }
        assert!(
            !serving.background_stopped(),
            "{}",
            t!(MESSAGES, "the-apis-reaper-stopped", left = left)
        );
        assert!(
            Instant::now() < deadline,
            "{}",
            t!(
                MESSAGES,
                "the-api-runs-no-reaper",
                left = left,
                seconds = bound.as_secs()
            )
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
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "the-first-request-must-pay",
                    error = e.to_string()
                )
            )
        });

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
    let mut reaper = within(
        Duration::from_secs(10),
        &t!(MESSAGES, "the-stand-in-for-the-reaper-taking-the-table"),
        table_taken,
    )
    .await
    .expect("the stand-in's task ends");
    // The repeat's transaction is over (it found the key inside the window); its
    // read of the stored answer now waits behind the stand-in.
    harness::wait_for_table_lock_waiters(&db, 1).await;
    reaper
        .execute("DELETE FROM idempotency_keys WHERE key = 'order-1'; COMMIT")
        .await
        .expect("the stand-in reaps the key");

    let the_repeat = t!(MESSAGES, "the-repeat");
    let repeat = within(Duration::from_secs(10), &the_repeat, repeat)
        .await
        .unwrap_or_else(|e| task_panicked(&the_repeat, &e));
    let repeat = repeat.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "a-key-reaped-mid-request-is-run-again",
                error = e.to_string()
            )
        )
    });
    assert!(
        (repeat.reply.status, repeat.replayed) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "a-reaped-key-is-a-new-payment",
            got = replied(&repeat.reply, repeat.replayed)
        )
    );
    assert!(
        repeat.reply.payment_id() != first.reply.payment_id(),
        "{}",
        t!(
            MESSAGES,
            "a-new-payment-has-a-new-id",
            first = replied(&first.reply, first.replayed),
            got = replied(&repeat.reply, repeat.replayed)
        )
    );
    payments_made_by_now(db.payment_count().await, 2);
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
        "{}",
        t!(
            MESSAGES,
            "a-failed-payment-fails-the-call",
            got = paid_or_error(&seen.failed, |a| replied(&a.reply, a.replayed))
        )
    );
    assert!(
        seen.in_a_transaction() == 0,
        "{}",
        t!(
            MESSAGES,
            "rolled-back-before-the-error-is-returned",
            sessions = seen.sessions.join(", ")
        )
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
        &t!(MESSAGES, "the-reaper-with-settings-it-cannot-work-with"),
        stage9::reap_expired_keys(&pool, &settings),
    )
    .await;
    let Err(expected) = settings.validate() else {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "settings-that-cannot-work-are-refused",
                settings = format!("{settings:?}")
            )
        )
    };
    assert!(
        matches!(&refused, Err(stage9::ReapError::Config(why)) if *why == expected),
        "{}",
        t!(
            MESSAGES,
            "the-reaper-refuses-them-before-deleting",
            settings = format!("{settings:?}"),
            expected = format!("{expected:?}"),
            got = format!("{refused:?}")
        )
    );
    let settings_said = format!("{settings:?}");
    assert!(
        matches!(stage9::spawn_reaper(pool, settings), Err(why) if why == expected),
        "{}",
        t!(
            MESSAGES,
            "the-background-reaper-is-refused-at-its-start",
            settings = settings_said
        )
    );
}

#[test]
fn the_default_and_the_smallest_settings_are_valid() {
    let default = stage9::Config::default().validate();
    assert!(
        default == Ok(()),
        "{}",
        t!(
            MESSAGES,
            "the-default-settings-are-valid",
            got = format!("{default:?}")
        )
    );
    let smallest = stage9::Config {
        reap_batch: 1,
        retention: Duration::from_millis(1),
        ..stage9::Config::default()
    };
    let smallest = smallest.validate();
    assert!(
        smallest == Ok(()),
        "{}",
        t!(
            MESSAGES,
            "the-smallest-settings-are-valid",
            got = format!("{smallest:?}")
        )
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
        &t!(MESSAGES, "create-payment"),
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
        "{}",
        t!(
            MESSAGES,
            "every-run-fails-so-create-payment-does",
            sqlstate = sqlstate,
            got = paid_or_error(&result, |a| replied(&a.reply, a.replayed))
        )
    );
    let ran = harness::refused_payments(&db).await;
    assert!(
        ran == runs,
        "{}",
        t!(
            MESSAGES,
            "only-a-serialization-failure-is-run-again",
            sqlstate = sqlstate,
            runs = runs,
            ran = ran
        )
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
    let the_first = t!(MESSAGES, "the-first-request");
    let first = within(Duration::from_secs(10), &the_first, first)
        .await
        .unwrap_or_else(|e| task_panicked(&the_first, &e));

    assert!(
        duplicate.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-duplicate-in-flight-is-told-409",
            got = shown(&duplicate)
        )
    );
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-pays-once-let-go",
            got = shown(&first)
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
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
        "{}",
        t!(
            MESSAGES,
            "only-a-lock-timeout-is-a-409",
            got = paid_or_error(&result, |a| replied(&a.reply, a.replayed))
        )
    );
}
