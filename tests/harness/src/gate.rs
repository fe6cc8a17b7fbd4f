//! Holding a request inside its transaction, from the database side.
//!
//! A [`PaymentGate`] makes every payment INSERT for one order wait on an advisory
//! lock the test holds, so a "slow first request" is held exactly as long as the
//! test wants: no sleep, no timing guess, and no hook in the code under test.

use std::future::Future;
use std::time::{Duration, Instant};

use l10n::t;
use payment_model::{PaymentError, Reply};
use sqlx::{Connection, Executor, PgConnection};

use crate::burst::{BURST_BOUND, answer_of};
use crate::db::TestDb;

/// The advisory lock the gate holds; payments for the gated order wait on it.
const GATE_LOCK: i64 = 4242;

/// Every wait for a condition on the server is bounded by this.
pub const CONDITION_BOUND: Duration = Duration::from_secs(10);

pub struct PaymentGate {
    holder: PgConnection,
}

impl PaymentGate {
    /// Closes the gate: from now on, inserting a payment for `order_id` blocks,
    /// inside the inserting transaction, until [`PaymentGate::open`].
    pub async fn close(db: &TestDb, order_id: i64) -> PaymentGate {
        let trigger = format!(
            "CREATE FUNCTION wait_at_gate() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF NEW.order_id = {order_id} THEN PERFORM pg_advisory_xact_lock_shared({GATE_LOCK}); END IF;
               RETURN NEW;
             END $$;
             CREATE TRIGGER wait_at_gate BEFORE INSERT ON payments
               FOR EACH ROW EXECUTE FUNCTION wait_at_gate();"
        );
        // Named, so that a burst's trace says a request waits for the test.
        let mut holder = db.connect_as(crate::trace::GATE_NAME).await;
        if let Err(e) = holder.execute(sqlx::AssertSqlSafe(trigger)).await {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "gate-cannot-install",
                    error = e.to_string()
                )
            );
        }
        if let Err(e) = sqlx::query("SELECT pg_advisory_lock($1)")
            .bind(GATE_LOCK)
            .execute(&mut holder)
            .await
        {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "gate-cannot-close",
                    error = e.to_string()
                )
            );
        }
        PaymentGate { holder }
    }

    /// Waits (bounded) until `n` transactions are held at the gate.
    pub async fn wait_until_held(&self, db: &TestDb, n: i64) {
        wait_for_sessions(
            db,
            HELD_AT_GATE,
            n,
            &t!(crate::messages::MESSAGES, "gate-what-reach", count = n),
        )
        .await;
    }

    /// Like [`wait_until_held`](Self::wait_until_held), for the `n`th request,
    /// running in `request`: fails at once, not at the bound, when that request
    /// ends without reaching the gate (its handler panicked: a `todo!()` not yet
    /// written, or it answered without paying).
    pub async fn wait_until_held_by<T>(
        &self,
        db: &TestDb,
        n: i64,
        request: &tokio::task::JoinHandle<T>,
    ) {
        let what = t!(crate::messages::MESSAGES, "gate-what-reach", count = n);
        wait_for_sessions_unless(db, HELD_AT_GATE, n, &what, || request.is_finished()).await;
    }

    /// Lets the held payments go on.
    pub async fn open(mut self) {
        let _ = sqlx::query("SELECT pg_advisory_unlock($1)")
            .bind(GATE_LOCK)
            .execute(&mut self.holder)
            .await;
        let _ = self.holder.close().await;
    }
}

/// Sessions of this database held at the gate. Advisory locks are cluster-wide
/// in `pg_locks` (other tests' databases hold gates too): count only ours.
const HELD_AT_GATE: &str = "SELECT count(*) FROM pg_locks
     WHERE locktype = 'advisory' AND NOT granted
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";

/// Sessions of this database waiting on a row or transaction lock: duplicates
/// queued behind the request that holds their key.
const WAITING_ON_A_KEY: &str = "SELECT count(*) FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'
       AND wait_event IN ('transactionid', 'tuple')";

/// Sessions of this database waiting on a table's lock (a `LOCK TABLE`, or a
/// statement queued behind one).
const WAITING_ON_A_TABLE: &str = "SELECT count(*) FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'
       AND wait_event = 'relation'";

/// Waits (bounded) until `n` sessions of this database wait on a table's lock.
pub async fn wait_for_table_lock_waiters(db: &TestDb, n: i64) {
    wait_for_sessions(
        db,
        WAITING_ON_A_TABLE,
        n,
        &format!("{n} session(s) to wait on a table's lock"),
    )
    .await;
}

/// Waits (bounded) until `n` sessions of this database wait on a row or
/// transaction lock: duplicates queued behind the request that holds their key.
pub async fn wait_for_lock_waiters(db: &TestDb, n: i64) {
    wait_for_sessions(
        db,
        WAITING_ON_A_KEY,
        n,
        &t!(
            crate::messages::MESSAGES,
            "gate-what-lock-waiters",
            count = n
        ),
    )
    .await;
}

/// Fires `n` calls with one key so that the `n - 1` duplicates certainly arrive
/// while the first call is in flight, whatever the scheduler does.
///
/// 1. the first call is sent alone and held at a [`PaymentGate`] for `order_id`,
///    inside its payment INSERT: its key is reserved, its answer not yet stored;
/// 2. the duplicates are sent; the scenario waits (bounded) until each of them has
///    arrived: waiting on the key's lock, held at the gate too, or already answered;
/// 3. the gate opens and every call is awaited (bounded by [`BURST_BOUND`]).
///
/// Results come in call order: the first call, then the duplicates. A first call
/// that ends without reaching the gate (an exercise not written yet) does not
/// stall the scenario: the duplicates are sent at once.
pub async fn fire_while_first_is_held<F, Fut>(
    db: &TestDb,
    order_id: i64,
    n: usize,
    call: F,
) -> Vec<Result<Reply, PaymentError>>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Result<Reply, PaymentError>> + Send + 'static,
{
    let gate = PaymentGate::close(db, order_id).await;
    // Recorded under the runner, from the first request on (see `trace`).
    let burst = crate::trace::Burst::start();
    let first = tokio::spawn(burst.request(1, call(0), answer_of));
    let mut watch = db.connect().await;
    wait_for(
        &mut watch,
        &t!(crate::messages::MESSAGES, "gate-what-first-reach"),
        |held, _| held >= 1 || first.is_finished(),
    )
    .await;

    let mut duplicates: Vec<(usize, tokio::task::JoinHandle<Fut::Output>)> = (1..n)
        .map(|i| {
            (
                i + 1,
                tokio::spawn(burst.request(i + 1, call(i), answer_of)),
            )
        })
        .collect();
    let expected = n.saturating_sub(1);
    let first_held = usize::from(!first.is_finished());
    wait_for(
        &mut watch,
        &t!(
            crate::messages::MESSAGES,
            "gate-what-duplicates-arrive",
            count = expected
        ),
        |held, waiting| {
            // Answered or panicked: either way it came and went while the first was held.
            let ended = duplicates.iter().filter(|(_, d)| d.is_finished()).count();
            held.saturating_sub(first_held) + waiting + ended >= expected
        },
    )
    .await;
    if burst.is_on() {
        // Who holds each lock is asked while it is still held (see `holders_asked`).
        let waits: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&mut watch)
        .await
        .unwrap_or(0);
        burst
            .holders_asked(usize::try_from(waits).unwrap_or(0))
            .await;
    }
    let _ = watch.close().await;
    gate.open().await;

    let mut tasks = vec![(1, first)];
    tasks.append(&mut duplicates);
    let all = burst.join_all(&mut tasks);
    let what = t!(
        crate::messages::MESSAGES,
        "gate-what-calls-one-key",
        count = n
    );
    crate::within(BURST_BOUND, &what, all).await
}

/// Polls (bounded) the sessions held at the gate and waiting on a key until
/// `done(held, waiting)`.
async fn wait_for(conn: &mut PgConnection, what: &str, done: impl Fn(usize, usize) -> bool) {
    let deadline = Instant::now() + CONDITION_BOUND;
    loop {
        let counts = sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(format!(
            "SELECT ({HELD_AT_GATE}), ({WAITING_ON_A_KEY})"
        )))
        .fetch_one(&mut *conn)
        .await;
        let (held, waiting) = match counts {
            Ok((held, waiting)) => (
                usize::try_from(held).unwrap_or(0),
                usize::try_from(waiting).unwrap_or(0),
            ),
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "gate-cannot-watch",
                    error = e.to_string()
                )
            ),
        };
        if done(held, waiting) {
            return;
        }
        if Instant::now() > deadline {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "gate-waited-held",
                    seconds = CONDITION_BOUND.as_secs().to_string(),
                    what = what,
                    held = held.to_string(),
                    waiting = waiting.to_string()
                )
            );
        }
        // Polling a condition, not timing a race: the bound above is what matters.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn wait_for_sessions(db: &TestDb, count_sql: &'static str, n: i64, what: &str) {
    wait_for_sessions_unless(db, count_sql, n, what, || false).await;
}

/// [`wait_for_sessions`], failing at once when `ended()` says the awaited
/// request is over.
async fn wait_for_sessions_unless(
    db: &TestDb,
    count_sql: &'static str,
    n: i64,
    what: &str,
    ended: impl Fn() -> bool,
) {
    let mut conn = db.connect().await;
    let deadline = Instant::now() + CONDITION_BOUND;
    loop {
        let seen: i64 = match sqlx::query_scalar(count_sql).fetch_one(&mut conn).await {
            Ok(seen) => seen,
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "gate-cannot-watch",
                    error = e.to_string()
                )
            ),
        };
        if seen >= n {
            let _ = conn.close().await;
            return;
        }
        if ended() {
            panic!(
                "{}",
                t!(crate::messages::MESSAGES, "gate-ended-first", what = what)
            );
        }
        if Instant::now() > deadline {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "gate-waited-saw",
                    seconds = CONDITION_BOUND.as_secs().to_string(),
                    what = what,
                    seen = seen.to_string()
                )
            );
        }
        // Polling a condition, not timing a race: the bound above is what matters.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// What happened around a slow first request: see [`slow_first_request`].
pub struct SlowRequest {
    /// The request for another key, sent while the pool was busy with duplicates.
    pub unrelated: Result<payment_model::Reply, payment_model::PaymentError>,
    /// The duplicates of the slow request answered while it was still held (all
    /// 19 when `duplicates_answered_while_held`), and whether all of them were.
    pub duplicates: Vec<Result<payment_model::Reply, payment_model::PaymentError>>,
    pub duplicates_answered_while_held: bool,
    /// The slow request itself, let go once the others were answered.
    pub first: Result<payment_model::Reply, payment_model::PaymentError>,
    pub payments: i64,
    /// The pool and the server while the unrelated request waited.
    pub state: String,
}

/// How long after every free connection is taken by a waiting duplicate all 19
/// duplicates must have been answered, while the first request is still held.
pub const DUPLICATES_ANSWERED_WITHIN: Duration = Duration::from_secs(3);

/// The order of the slow request; the gate holds its payment.
pub const SLOW_ORDER: i64 = 666;

/// A first request that holds its key for as long as the test wants, 19
/// duplicates of it, and then one request for an unrelated key.
///
/// 1. the first request reserves its key and is held at a [`PaymentGate`], inside
///    its transaction (so its key's row stays locked);
/// 2. 19 duplicates are sent; the scenario waits until every connection the pool
///    has left is taken by a duplicate waiting on that lock;
/// 3. the unrelated request is sent and awaited;
/// 4. the duplicates are awaited, until [`DUPLICATES_ANSWERED_WITHIN`] after step 2
///    (no longer once the unrelated request failed); then the gate opens.
pub async fn slow_first_request<F, Fut>(db: &TestDb, pool: &sqlx::PgPool, call: F) -> SlowRequest
where
    F: Fn(&'static str, String) -> Fut,
    Fut: std::future::Future<Output = Result<payment_model::Reply, payment_model::PaymentError>>
        + Send
        + 'static,
{
    let slow_body = payment_model::PaymentRequest {
        order_id: SLOW_ORDER,
        amount: 100,
    }
    .to_body();
    let gate = PaymentGate::close(db, SLOW_ORDER).await;
    // Recorded under the runner: #1 the slow request, #2 to #20 its duplicates,
    // #21 the request for another key.
    let burst = crate::trace::Burst::start();
    let first = tokio::spawn(burst.request(1, call("slow-key", slow_body.clone()), answer_of));
    gate.wait_until_held(db, 1).await;

    let mut duplicates: Vec<_> = (0..19)
        .map(|i| tokio::spawn(burst.request(i + 2, call("slow-key", slow_body.clone()), answer_of)))
        .collect();
    let connections_left = i64::from(pool.options().get_max_connections()) - 1;
    wait_for_lock_waiters(db, connections_left).await;
    // The duplicates' window runs from here, not from the unrelated request's end.
    // Bounded code answers 19 duplicates through 4 connections in about 5 rounds
    // of its 250 ms bound.
    let answered_by = tokio::time::Instant::now() + DUPLICATES_ANSWERED_WITHIN;
    let state = db.describe(pool).await;

    let other_body = payment_model::PaymentRequest {
        order_id: 7,
        amount: 100,
    }
    .to_body();
    let unrelated = crate::within(
        pool.options().get_acquire_timeout() + CONDITION_BOUND,
        "the request for an unrelated key",
        burst.request(21, call("other-key", other_body), answer_of),
    )
    .await;

    // A starved request for the other key means the duplicates held every
    // connection past the pool's acquire timeout, much longer than any bound on
    // their wait: the verdict is in, and their window ends now.
    let answered_by = match &unrelated {
        Ok(_) => answered_by,
        Err(_) => tokio::time::Instant::now(),
    };
    let mut answered = Vec::new();
    let duplicates_answered_while_held = tokio::time::timeout_at(answered_by, async {
        for (at, handle) in duplicates.iter_mut().enumerate() {
            answered.push(burst.joined(at + 2, handle.await, &mut []).await);
        }
    })
    .await
    .is_ok();
    // The window is over, and with it the verdict on the duplicates. One still
    // running was not answered while the first request was held; it is stopped
    // rather than awaited (code that asks the pool for a second connection would
    // hold it up for another acquire timeout) and left out of `duplicates`.
    for (at, handle) in duplicates.iter_mut().enumerate().skip(answered.len()) {
        if handle.is_finished() {
            answered.push(burst.joined(at + 2, handle.await, &mut []).await);
        } else {
            handle.abort();
        }
    }
    gate.open().await;
    let first = burst
        .joined(
            1,
            crate::within(
                CONDITION_BOUND,
                "the slow request after the gate opened",
                first,
            )
            .await,
            &mut [],
        )
        .await;
    SlowRequest {
        unrelated,
        duplicates: answered,
        duplicates_answered_while_held,
        first,
        payments: db.payment_count().await,
        state,
    }
}
