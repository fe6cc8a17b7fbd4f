//! The two traps of stage 5, proven caught: the deadlocking shape fails by pool
//! timeout within a bounded time, and an unbounded wait on a slow request's key
//! starves a small pool.

use std::time::{Duration, Instant};

use harness::{Outcome, PoolSize, ReplyKind, TestDb, reference_schema, slow_first_request};
use payment_model::PaymentRequest;
use rstest::rstest;

// ANCHOR: deadlock_test
#[rstest]
#[case::pool_of_10(10)]
#[case::pool_of_5(5)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reading_through_the_pool_inside_the_transaction_deadlocks_a_small_pool(
    #[case] connections: u32,
) {
    let db = TestDb::create(reference_schema()).await;
    let size = PoolSize::of(connections);
    let pool = db.warm_pool(size).await;
    let body = PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body();
    let started = Instant::now();

    let (results, state) = db
        .fire_watched(&pool, size.acquire_timeout / 2, 20, |_| {
            let (pool, body) = (pool.clone(), body.clone());
            async move { stage5::deadlocking::create_payment(&pool, "key-1", &body).await }
        })
        .await;

    let took = started.elapsed();
    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record(&format!("stage5.deadlocking_pool_of_{connections}"));
    println!("{}\nwhile it hung: {state:?}", outcome.table());
    // Until the first acquire timeout nothing moves: every connection is held by a
    // request waiting for a second one (the snapshot below proves it). Then each
    // timeout rolls back a transaction and frees a connection, which may rescue a
    // waiter; how many are rescued varies from run to run (1 to 11 of 20 end with a
    // 201 here, more under load). What is certain:
    assert_eq!(outcome.payments, 1, "the winner paid, once: {outcome}");
    assert!(
        outcome.count(ReplyKind::PoolTimedOut) >= 1,
        "the deadlock ends only when acquires time out: {outcome}"
    );
    assert_eq!(
        outcome.count(ReplyKind::Status(201)) + outcome.count(ReplyKind::PoolTimedOut),
        20,
        "every request ends with the 201 or a pool timeout: {outcome}"
    );
    assert!(
        took < size.acquire_timeout + Duration::from_secs(3),
        "the deadlock is reported at the acquire timeout, not after a hang: took {took:?}"
    );
    let state = state.expect("the burst was still stuck when the harness looked");
    assert!(
        state.contains(&format!(
            "{connections} open of {connections} at most, 0 idle"
        )) && state.contains("idle in transaction"),
        "while stuck, every connection is checked out and the server sees idle-in-transaction sessions: {state}"
    );
}
// ANCHOR_END: deadlock_test

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pool_as_large_as_the_burst_hides_the_deadlock() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(20));
    let body = PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body();
    let results = harness::fire_concurrently(20, |_| {
        let (pool, body) = (pool.clone(), body.clone());
        async move { stage5::deadlocking::create_payment(&pool, "key-1", &body).await }
    })
    .await;
    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record("stage5.deadlocking_pool_of_20");
    assert_eq!(
        outcome.count(ReplyKind::Status(201)),
        20,
        "with a connection per request, the bug stays hidden: {outcome}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_a_bounded_wait_a_slow_request_starves_a_pool_of_5() {
    let db = TestDb::create(reference_schema()).await;
    // The acquire timeout of stage 5's slow-request test, which this one mirrors.
    let pool = db.pool(PoolSize::of(5).with_acquire_timeout(Duration::from_secs(2)));
    // Stage 4's answer: correct, and no bound on the wait for the key's lock.
    let slow = slow_first_request(&db, &pool, |key, body| {
        let pool = pool.clone();
        async move { stage4::create_payment(&pool, key, &body).await }
    })
    .await;
    let unrelated = ReplyKind::of(&slow.unrelated);
    harness::observe(
        "stage5.slow_unbounded",
        &serde_json::json!({ "unrelated": unrelated.to_string() }),
    );
    assert_eq!(
        unrelated,
        ReplyKind::PoolTimedOut,
        "the duplicates hold every connection while they wait; state: {}",
        slow.state
    );
    assert_eq!(
        slow.first.as_ref().map(|r| r.status).ok(),
        Some(201),
        "the slow request completes"
    );
}
