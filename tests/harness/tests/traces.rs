//! The trace of a burst says what the burst's outcome says: as many requests,
//! the same answers, as many payments (read off the wire, not counted in the
//! table), and who waited on whom as PostgreSQL reported it. Each test fires a
//! stage's real code in the interleaving its stage's test forces.

use std::time::Duration;

use harness::{
    Outcome, PoolSize, ReplyKind, TestDb, fire_concurrently, fire_while_first_is_held, last_trace,
    record_traces, reference_schema,
};
use payment_model::{PaymentRequest, RaceWindow};
use timeline::trace::{Event, Holder, Outcome as Answered, Trace};

const REQUESTS: usize = 20;

fn body() -> String {
    PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body()
}

/// The counts a trace and an outcome both hold are the same.
fn assert_counts_agree(trace: &Trace, outcome: &Outcome) {
    assert_eq!(
        trace.requests.len(),
        outcome.requests,
        "the trace has a lane per request of the burst"
    );
    assert_eq!(
        trace.answers(),
        outcome.replies,
        "the trace's answers are the outcome's replies, kind by kind"
    );
    assert_eq!(
        trace.payments_committed(),
        Some(outcome.payments as usize),
        "the payments committed on the wire are the rows in payments afterwards"
    );
}

// Stage 2: all 20 check before any writes; 20 payments, one 201.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_trace_of_the_naive_burst_counts_twenty_payments_as_the_table_does() {
    record_traces();
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;
    let window = RaceWindow::held_for(REQUESTS);
    let results = fire_concurrently(REQUESTS, |_| {
        let (pool, window) = (pool.clone(), window.clone());
        async move { stage2::create_payment(&pool, "key-1", &body(), &window).await }
    })
    .await;
    let outcome = Outcome::new(&results, db.payment_count().await);
    let trace = last_trace().expect("the burst was recorded");
    assert_counts_agree(&trace, &outcome);
    assert_eq!(outcome.payments, 20, "{outcome}");
    // Every check ended (no row) before any payment was sent: the window held them.
    let last_check = trace
        .requests
        .iter()
        .flat_map(|r| r.statements())
        .filter_map(|e| match e {
            Event::Statement { sql, until_us, .. } if sql.starts_with("SELECT") => *until_us,
            _ => None,
        })
        .max()
        .expect("the checks were seen");
    let first_payment = trace
        .requests
        .iter()
        .flat_map(|r| r.statements())
        .filter_map(|e| match e {
            Event::Statement { sql, at_us, .. } if sql.starts_with("INSERT INTO payments") => {
                Some(*at_us)
            }
            _ => None,
        })
        .min()
        .expect("the payments were seen");
    assert!(
        last_check <= first_payment,
        "the last check ended at {last_check} µs, after the first payment was sent at {first_payment} µs"
    );
}

// Stage 3: #1 held at the gate in its payment; the 19 duplicates wait on its key.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_trace_of_the_key_reserved_in_the_transaction_says_the_duplicates_waited_on_the_first()
{
    record_traces();
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;
    let results = fire_while_first_is_held(&db, 1, REQUESTS, |_| {
        let pool = pool.clone();
        async move { stage3::create_payment(&pool, "key-1", &body()).await }
    })
    .await;
    let outcome = Outcome::new(&results, db.payment_count().await);
    let trace = last_trace().expect("the burst was recorded");
    assert_counts_agree(&trace, &outcome);
    assert_eq!(outcome.count(ReplyKind::Status(201)), REQUESTS, "{outcome}");
    let held_by = |n: usize| -> Vec<Option<Holder>> {
        trace.requests[n - 1]
            .lock_waits()
            .filter_map(|e| match e {
                Event::LockWait { blocked_by, .. } => Some(blocked_by.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        held_by(1),
        [Some(Holder::Gate)],
        "the first request waited once, for the test's gate, inside its payment"
    );
    for n in 2..=REQUESTS {
        // The duplicates arrive while #1 is held, so each waits far longer than the 1 ms
        // PostgreSQL needs to report it, and #1 still holds the key when the harness asks.
        assert_eq!(
            held_by(n),
            [Some(Holder::Request { n: 1 })],
            "duplicate #{n} waited once, on request 1's key"
        );
        let inserted_nothing = trace.requests[n - 1].statements().any(|e| {
            matches!(e, Event::Statement { sql, outcome: Some(Answered::Done { tag }), .. }
                if sql.starts_with("INSERT INTO idempotency_keys") && tag == "INSERT 0 0")
        });
        assert!(
            inserted_nothing,
            "duplicate #{n}'s key INSERT did nothing once #1 committed"
        );
    }
}

// Stage 5's trap: reading through the pool inside the transaction. Every
// connection is held, idle in a transaction, by a request waiting for another.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_trace_of_the_deadlocked_pool_shows_each_timed_out_request_idle_in_its_transaction() {
    record_traces();
    let db = TestDb::create(reference_schema()).await;
    let size = PoolSize::of(5).with_acquire_timeout(Duration::from_secs(1));
    let pool = db.warm_pool(size).await;
    let results = fire_concurrently(REQUESTS, |_| {
        let pool = pool.clone();
        async move { stage5::deadlocking::create_payment(&pool, "key-1", &body()).await }
    })
    .await;
    let outcome = Outcome::new(&results, db.payment_count().await);
    let trace = last_trace().expect("the burst was recorded");
    assert_counts_agree(&trace, &outcome);
    let timed_out = outcome.count(ReplyKind::PoolTimedOut);
    assert!(timed_out >= 1, "{outcome}");
    // A request that timed out either never had a connection (all five were held)
    // or held one, its transaction open, while it waited for a second.
    let (mut held_open, mut never_connected) = (0, 0);
    for request in &trace.requests {
        if request.answer() != Some(&ReplyKind::PoolTimedOut.to_string()) {
            continue;
        }
        let end = request.end_us.expect("it ended");
        let last = request.statements().filter(|e| e.at_us() <= end).last();
        match last {
            None => never_connected += 1,
            Some(Event::Statement {
                tx_after: Some('T'),
                ..
            }) => held_open += 1,
            other => panic!(
                "request #{} timed out after a statement that left no transaction open: {other:?}",
                request.n
            ),
        }
    }
    assert_eq!(
        held_open + never_connected,
        timed_out,
        "every request that timed out either held a connection idle in its transaction or never had one"
    );
    assert!(
        held_open >= 1,
        "the deadlock: at least one request timed out holding a connection idle in its transaction \
         ({never_connected} never got one)"
    );
}
