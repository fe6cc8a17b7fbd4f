//! Stage 2: the naive version, check then write. These tests pass when
//! `create_payment` is naive: they measure the race it loses, exactly.

use harness::{Outcome, PoolSize, ReplyKind, Shown, TestDb, fire_concurrently, reference_schema};
use harness::{catalogue, t};
use payment_model::{PaymentError, PaymentRequest, RaceWindow, Reply};
use stage2::create_payment;

// What these tests say, in the learner's language (tests/locales/*/stage2_naive.ftl).
catalogue!(static MESSAGES = "locales", "stage2_naive");

/// A request that had to be answered, or the test fails saying which.
fn answered(result: Result<Reply, PaymentError>, which: &str) -> Reply {
    result.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-request-must-be-answered",
                which = which,
                error = e.to_string()
            )
        )
    })
}

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
    assert!(
        outcome.payments == 20,
        "{}",
        t!(
            MESSAGES,
            "all-twenty-checked-so-all-twenty-pay",
            outcome = outcome.to_string()
        )
    );
    let distinct_ids: i64 = db.count("SELECT count(DISTINCT id) FROM payments").await;
    assert!(
        distinct_ids == 20,
        "{}",
        t!(
            MESSAGES,
            "each-payment-has-an-id-of-its-own",
            ids = distinct_ids
        )
    );
    assert!(
        outcome.count(ReplyKind::Status(201)) == 1,
        "{}",
        t!(
            MESSAGES,
            "one-caller-gets-a-201",
            outcome = outcome.to_string()
        )
    );
    assert!(
        outcome.count(ReplyKind::UniqueViolation) == 19,
        "{}",
        t!(
            MESSAGES,
            "nineteen-key-inserts-are-rejected",
            outcome = outcome.to_string()
        )
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
        let said = |id: &str| {
            MESSAGES.say(
                id,
                &[("run", run.into()), ("outcome", outcome.to_string().into())],
            )
        };
        assert!(
            (1..=20).contains(&outcome.payments),
            "{}",
            said("a-burst-pays-at-least-once-at-most-twenty-times")
        );
        assert!(
            outcome.payments as usize == 1 + outcome.count(ReplyKind::UniqueViolation),
            "{}",
            said("each-extra-payment-belongs-to-a-failed-key-insert")
        );
        assert!(
            outcome.count(ReplyKind::Status(201)) + outcome.count(ReplyKind::UniqueViolation)
                == REQUESTS,
            "{}",
            said("every-caller-gets-a-201-or-a-unique-violation")
        );
        paid_per_run.push(outcome.payments);
    }
    let runs_with_duplicates = paid_per_run.iter().filter(|&&paid| paid > 1).count();
    println!(
        "{}",
        t!(
            MESSAGES,
            "payments-per-run",
            payments = format!("{paid_per_run:?}"),
            duplicates = runs_with_duplicates,
            runs = RUNS
        )
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
    let first = answered(
        create_payment(&pool, "key-1", &body(100), &RaceWindow::open()).await,
        "the-first-request-must-be-answered",
    );
    let retry = answered(
        create_payment(&pool, "key-1", &body(100), &RaceWindow::open()).await,
        "the-retry-must-be-answered",
    );
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-creates-the-payment",
            got = first.shown()
        )
    );
    assert!(
        retry == first,
        "{}",
        t!(
            MESSAGES,
            "one-after-the-other-the-stored-answer-is-replayed",
            first = first.shown(),
            retry = retry.shown()
        )
    );
    let payments = db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "one-after-the-other-it-pays-once",
            payments = payments
        )
    );
}

#[tokio::test]
async fn the_same_key_with_another_body_is_not_detected() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = answered(
        create_payment(&pool, "key-1", &body(100), &RaceWindow::open()).await,
        "the-first-request-must-be-answered",
    );
    let other = answered(
        create_payment(&pool, "key-1", &body(999), &RaceWindow::open()).await,
        "the-second-request-must-be-answered",
    );
    let outcome = Outcome::new(
        &[Ok(first.clone()), Ok(other.clone())],
        db.payment_count().await,
    );
    outcome.record_with(
        "stage2.changed_body",
        harness::second_request(&first, &other, outcome.payments),
    );
    assert!(
        other == first,
        "{}",
        t!(
            MESSAGES,
            "the-naive-version-never-compares-bodies",
            first = first.shown(),
            other = other.shown()
        )
    );
    assert!(
        other.body["amount"] == 100,
        "{}",
        t!(
            MESSAGES,
            "the-client-asked-for-999-and-was-told-100",
            amount = other.body["amount"].to_string()
        )
    );
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "one-payment-for-the-key",
            payments = outcome.payments
        )
    );
}
