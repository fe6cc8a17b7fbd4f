//! Stage 5: the pool smaller than the burst. Nothing may hang, and nothing may
//! starve: 20 requests through 5 or 10 connections make one payment and 20
//! identical 201s, and a slow request cannot lock everyone else out.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use harness::{Outcome, PoolSize, ReplyKind, Shown, TestDb, reference_schema, slow_first_request};
use harness::{catalogue, t};
use payment_model::PaymentRequest;
use rstest::rstest;
use stage5::create_payment;

// What these tests say, in the learner's language
// (tests/locales/*/stage5_small_pool.ftl).
catalogue!(static MESSAGES = "locales", "stage5_small_pool");

/// Seconds as the messages show them, with the language's decimal separator.
fn seconds(d: Duration) -> String {
    MESSAGES.current().decimal(d.as_secs_f64(), 1)
}

const REQUESTS: usize = 20;

// ANCHOR: small_pool
#[rstest]
#[case::pool_of_5(5)]
#[case::pool_of_10(10)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_requests_through_a_small_pool_create_one_payment(#[case] connections: u32) {
    let db = TestDb::create(reference_schema()).await;
    // A healthy burst of 20 through 5 connections takes milliseconds; a deadlocked
    // pool is caught at the first timeout, and each timeout that rescues a waiter
    // can add one more: 1 s keeps that short.
    let size = PoolSize::of(connections).with_acquire_timeout(Duration::from_secs(1));
    let pool = db.pool(size);
    let body = PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body();

    let (results, state_while_waiting) = db
        .fire_watched(&pool, size.acquire_timeout / 2, REQUESTS, |_| {
            let (pool, body) = (pool.clone(), body.clone());
            async move { create_payment(&pool, "key-1", &body).await }
        })
        .await;

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record(&format!("stage5.pool_of_{connections}"));
    println!("{}", outcome.table());
    let timed_out = outcome.count(ReplyKind::PoolTimedOut);
    let said = outcome.to_string();
    assert!(
        timed_out == 0,
        "{}",
        t!(
            MESSAGES,
            "deadlock",
            count = timed_out,
            requests = REQUESTS,
            seconds = seconds(size.acquire_timeout),
            state = state_while_waiting
                .clone()
                .unwrap_or_else(|| t!(MESSAGES, "the-burst-ended-before-the-pool-was-looked-at")),
            outcome = &said
        )
    );
    assert!(
        outcome.payments == 1,
        "{}",
        t!(MESSAGES, "one-key-one-payment", outcome = &said)
    );
    assert!(
        outcome.count(ReplyKind::Status(201)) == REQUESTS,
        "{}",
        t!(MESSAGES, "every-caller-gets-the-201", outcome = &said)
    );
    assert!(
        outcome.distinct_bodies == 1,
        "{}",
        t!(MESSAGES, "the-same-payment-replayed", outcome = &said)
    );
}
// ANCHOR_END: small_pool

// ANCHOR: slow_request
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slow_request_does_not_starve_requests_for_other_keys() {
    let db = TestDb::create(reference_schema()).await;
    // Bounded code gets the other key its connection in about 1 s (the duplicates
    // queued ahead of it go through 4 connections, 250 ms a round); starved, it
    // times out at 2 s.
    let size = PoolSize::of(5).with_acquire_timeout(Duration::from_secs(2));
    let pool = db.pool(size);

    // How long the request for the other key took, queue for a connection included
    // (printed, never asserted: it depends on the machine).
    let unrelated_took = Arc::new(Mutex::new(None));
    let slow = slow_first_request(&db, &pool, |key, body| {
        let (pool, took) = (pool.clone(), unrelated_took.clone());
        async move {
            let started = Instant::now();
            let reply = create_payment(&pool, key, &body).await;
            if key == "other-key"
                && let Ok(mut took) = took.lock()
            {
                *took = Some(started.elapsed());
            }
            reply
        }
    })
    .await;

    let unrelated = ReplyKind::of(&slow.unrelated);
    let took_ms = unrelated_took
        .lock()
        .ok()
        .and_then(|took| *took)
        .map(|took| took.as_millis());
    println!(
        "{}",
        t!(
            MESSAGES,
            "the-request-for-the-other-key-took",
            reply = unrelated.said(),
            took = took_ms.map_or_else(|| "-".to_owned(), |ms| ms.to_string())
        )
    );
    harness::observe(
        "stage5.slow_first_request",
        &serde_json::json!({ "unrelated": unrelated.to_string(), "unrelated_ms": took_ms }),
    );
    assert!(
        unrelated == ReplyKind::Status(201),
        "{}",
        t!(
            MESSAGES,
            "another-key-is-starved",
            got = unrelated.said(),
            state = &slow.state
        )
    );
    let in_flight = slow
        .duplicates
        .iter()
        .filter(|r| ReplyKind::of(r) == ReplyKind::Status(409))
        .count();
    assert!(
        slow.duplicates_answered_while_held,
        "{}",
        t!(
            MESSAGES,
            "duplicates-of-a-slow-request-are-answered-while-it-is-held",
            count = in_flight
        )
    );
    assert!(
        in_flight == 19,
        "{}",
        t!(
            MESSAGES,
            "duplicates-of-a-slow-request-are-told-409",
            count = in_flight
        )
    );
    let first = slow.first.as_ref().map(|r| r.status).ok();
    assert!(
        first == Some(201),
        "{}",
        t!(
            MESSAGES,
            "the-slow-request-completes-once-let-go",
            got = slow.first.shown()
        )
    );
    assert!(
        slow.payments == 2,
        "{}",
        t!(
            MESSAGES,
            "the-slow-request-and-the-other-key-pay",
            payments = slow.payments
        )
    );
}
// ANCHOR_END: slow_request

// ANCHOR: lock_timeout_restored
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_the_reserving_insert_runs_under_the_bounded_wait() {
    let db = TestDb::create(reference_schema()).await;
    // The database's own lock_timeout (an operator's choice), and a trigger that
    // records the lock_timeout the payment's INSERT runs under.
    db.execute(
        "DO $$ BEGIN
           EXECUTE format('ALTER DATABASE %I SET lock_timeout = %L', current_database(), '7s');
         END $$;
         CREATE TABLE lock_timeout_seen (setting TEXT NOT NULL);
         CREATE FUNCTION record_lock_timeout() RETURNS trigger LANGUAGE plpgsql AS $f$
         BEGIN
           INSERT INTO lock_timeout_seen VALUES (current_setting('lock_timeout'));
           RETURN NEW;
         END $f$;
         CREATE TRIGGER record_lock_timeout BEFORE INSERT ON payments
           FOR EACH ROW EXECUTE FUNCTION record_lock_timeout();",
    )
    .await;
    let pool = db.pool(PoolSize::of(2));
    let body = PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body();

    let reply = create_payment(&pool, "key-1", &body).await;

    assert!(
        reply.as_ref().map(|r| r.status).ok() == Some(201),
        "{}",
        t!(MESSAGES, "a-new-key-is-answered-201", got = reply.shown())
    );
    let mut conn = db.connect().await;
    let seen: Vec<String> = sqlx::query_scalar("SELECT setting FROM lock_timeout_seen")
        .fetch_all(&mut conn)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "the-triggers-table-can-be-read",
                    error = e.to_string()
                )
            )
        });
    assert!(
        seen == ["7s"],
        "{}",
        t!(
            MESSAGES,
            "the-payment-runs-under-the-databases-lock-timeout",
            seen = seen.join(", ")
        )
    );
}
// ANCHOR_END: lock_timeout_restored

// ANCHOR: rolled_back_on_return
/// The database refuses the payment after the key was reserved. When
/// `create_payment` returns its error (the route's 500), its transaction must be
/// over, and the key free for a retry sent at once.
#[tokio::test]
async fn a_failed_payment_has_rolled_back_when_create_payment_returns() {
    let db = TestDb::create(reference_schema()).await;
    let body = PaymentRequest {
        order_id: 13,
        amount: 100,
    }
    .to_body();

    let seen = harness::failed_payment_as_it_returns(&db, async |pool| {
        create_payment(pool, "key-13", &body).await
    })
    .await;

    assert!(
        seen.failed.is_err(),
        "{}",
        t!(
            MESSAGES,
            "a-failed-payment-fails-the-call",
            got = seen.failed.shown()
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
// ANCHOR_END: rolled_back_on_return

/// The database refuses to store keys: the reserving INSERT fails with an error
/// that is not a lock timeout. That is an error (the route's 500, "outcome
/// unknown"), not a 409: no request with the key is in flight, and a client told
/// "in flight, retry later" would be told so again at every retry.
#[tokio::test]
async fn a_reservation_that_fails_for_another_reason_is_an_error_not_a_409() {
    let db = TestDb::create(reference_schema()).await;
    harness::refuse_keys(&db).await;
    let pool = db.pool(PoolSize::of(2));
    let body = PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body();

    let result = create_payment(&pool, "key-1", &body).await;

    assert!(
        matches!(&result, Err(e) if e.sqlstate().as_deref() == Some("P0001")),
        "{}",
        t!(
            MESSAGES,
            "only-a-lock-timeout-is-a-409",
            got = result.shown()
        )
    );
}
