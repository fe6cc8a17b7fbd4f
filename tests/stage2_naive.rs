//! Stage 2: the naive version, check then write. These tests pass when
//! `create_payment` is naive: they measure the race it loses, exactly.

use harness::{Outcome, PoolSize, ReplyKind, TestDb, fire_concurrently, reference_schema};
use payment_model::{PaymentRequest, RaceWindow};
use stage2::create_payment;

const REQUESTS: usize = 20;

fn body(amount: i32) -> String {
    PaymentRequest {
        order_id: 1,
        amount,
    }
    .to_body()
}

// ANCHOR: held_burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_requests_held_between_check_and_write_create_twenty_payments() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;
    // Every request waits in the window until all 20 have checked: none of them
    // can see another's write, because there is none yet.
    let window = RaceWindow::held_for(REQUESTS);

    let results = fire_concurrently(REQUESTS, |_| {
        let (pool, window) = (pool.clone(), window.clone());
        async move { create_payment(&pool, "key-1", &body(100), &window).await }
    })
    .await;

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record("stage2.held_burst");
    println!("{}", outcome.table());
    assert_eq!(
        outcome.payments, 20,
        "all 20 requests checked before any wrote, so all 20 should have paid: {outcome}"
    );
    let distinct_ids: i64 = db.count("SELECT count(DISTINCT id) FROM payments").await;
    assert_eq!(distinct_ids, 20, "20 payments, each with an id of its own");
    assert_eq!(
        outcome.count(ReplyKind::Status(201)),
        1,
        "only the first key INSERT succeeds, so one caller gets a 201: {outcome}"
    );
    assert_eq!(
        outcome.count(ReplyKind::UniqueViolation),
        19,
        "the key's primary key rejects the other 19 key INSERTs, after their payments \
         were already made: {outcome}"
    );

    // One of the 19 callers told of an error retries with the same key.
    let winner = results
        .iter()
        .find_map(|r| r.as_ref().ok())
        .expect("one caller got its 201")
        .clone();
    let retry = create_payment(&pool, "key-1", &body(100), &RaceWindow::open()).await;
    let retry_got = match &retry {
        Ok(reply) if *reply == winner => "the winner's 201",
        Ok(reply) if reply.status == 201 => "a 201 of its own",
        Ok(_) | Err(_) => "an error",
    };
    harness::observe(
        "stage2.loser_retry",
        &serde_json::json!({ "retry": retry_got, "payments": db.payment_count().await }),
    );
    assert_eq!(
        retry.as_ref().ok(),
        Some(&winner),
        "a retry finds the key the winner stored and replays its 201, with the winner's \
         payment id: the caller whose own payment was made is never told about it"
    );
}
// ANCHOR_END: held_burst

/// Without the window, the race is real but its size depends on the scheduler.
/// What is certain: every burst pays at least once, every extra payment is a
/// caller who got a unique violation, and every caller gets an answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_undriven_burst_pays_once_per_caller_that_missed_the_key() {
    const RUNS: usize = 5;
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;
    let mut paid_per_run = Vec::with_capacity(RUNS);
    let mut before = 0;
    for run in 0..RUNS {
        let key = format!("key-{run}");
        let results = fire_concurrently(REQUESTS, |_| {
            let (pool, key) = (pool.clone(), key.clone());
            async move { create_payment(&pool, &key, &body(100), &RaceWindow::open()).await }
        })
        .await;
        let total = db.payment_count().await;
        let outcome = Outcome::new(&results, total - before);
        before = total;
        assert!(
            (1..=20).contains(&outcome.payments),
            "run {run}: a burst pays at least once, at most 20 times: {outcome}"
        );
        assert_eq!(
            outcome.payments as usize,
            1 + outcome.count(ReplyKind::UniqueViolation),
            "run {run}: each payment beyond the first belongs to a caller whose key INSERT failed: {outcome}"
        );
        assert_eq!(
            outcome.count(ReplyKind::Status(201)) + outcome.count(ReplyKind::UniqueViolation),
            REQUESTS,
            "run {run}: every caller gets a 201 or a unique violation: {outcome}"
        );
        paid_per_run.push(outcome.payments);
    }
    let runs_with_duplicates = paid_per_run.iter().filter(|&&paid| paid > 1).count();
    println!(
        "payments per run: {paid_per_run:?}; runs with duplicates: {runs_with_duplicates} of {RUNS}"
    );
    harness::observe(
        "stage2.undriven",
        &serde_json::json!({
            "runs": RUNS,
            "runs_with_duplicates": runs_with_duplicates,
            "payments_min": paid_per_run.iter().min(),
            "payments_max": paid_per_run.iter().max(),
        }),
    );
}

#[tokio::test]
async fn a_retry_after_the_first_answer_replays_it() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", &body(100), &RaceWindow::open())
        .await
        .expect("the first request pays");
    let retry = create_payment(&pool, "key-1", &body(100), &RaceWindow::open())
        .await
        .expect("the retry is answered");
    assert_eq!(first.status, 201, "the first request creates the payment");
    assert_eq!(
        retry, first,
        "one request after the other, the naive version does replay the stored answer"
    );
    assert_eq!(db.payment_count().await, 1, "and pays once");
}

#[tokio::test]
async fn the_same_key_with_another_body_is_not_detected() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", &body(100), &RaceWindow::open())
        .await
        .expect("the first request pays");
    let other = create_payment(&pool, "key-1", &body(999), &RaceWindow::open())
        .await
        .expect("the second request is answered");
    let outcome = Outcome::new(
        &[Ok(first.clone()), Ok(other.clone())],
        db.payment_count().await,
    );
    outcome.record_with(
        "stage2.changed_body",
        harness::second_request(&first, &other, outcome.payments),
    );
    assert_eq!(
        other, first,
        "the naive version answers a different body with the first payment's 201: it never compares"
    );
    assert_eq!(
        other.body["amount"], 100,
        "the client asked for 999 and was told 100 was paid"
    );
    assert!(
        outcome.payments == 1,
        "1 payment should have been made: {} were",
        outcome.payments
    );
}
