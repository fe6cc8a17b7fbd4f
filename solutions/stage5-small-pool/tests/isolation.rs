//! The design relies on READ COMMITTED, PostgreSQL's default isolation level.
//!
//! A duplicate's `INSERT ... ON CONFLICT DO NOTHING` waits for the first request's
//! transaction; when that one commits, under READ COMMITTED the waiter sees the
//! committed key and does nothing (0 rows), then replays the stored answer. Under
//! REPEATABLE READ or SERIALIZABLE, the committed key is newer than the waiter's
//! snapshot, and PostgreSQL refuses with a serialization failure (SQLSTATE 40001)
//! instead.
//!
//! The scenario is made certain with the harness's payment gate: the first request
//! is held inside its transaction until all 19 duplicates wait on its key. It uses
//! stage 4's `create_payment` (the same reservation, without stage 5's 250 ms bound,
//! so no duplicate gives up with a 409 while the gate is closed).

use harness::{PaymentGate, PoolSize, SLOW_ORDER, TestDb, reference_schema, wait_for_lock_waiters};
use payment_model::{PaymentError, PaymentRequest, Reply};
use rstest::rstest;

const DUPLICATES: usize = 19;

/// What the duplicates of a held first request end with, at one isolation level.
async fn duplicates_of_a_held_request(
    isolation: &str,
) -> (Result<Reply, PaymentError>, Vec<String>, i64) {
    let db = TestDb::create(reference_schema()).await;
    if isolation == "serializable" {
        // Every new session of this database starts its transactions SERIALIZABLE.
        db.execute(
            "DO $$ BEGIN
               EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L',
                              current_database(), 'serializable');
             END $$",
        )
        .await;
    }
    let pool = db.pool(PoolSize::of(20));
    let body = PaymentRequest {
        order_id: SLOW_ORDER,
        amount: 100,
    }
    .to_body();
    let gate = PaymentGate::close(&db, SLOW_ORDER).await;
    let first = tokio::spawn({
        let (pool, body) = (pool.clone(), body.clone());
        async move { stage4::create_payment(&pool, "key-1", &body).await }
    });
    gate.wait_until_held(&db, 1).await;
    let duplicates: Vec<_> = (0..DUPLICATES)
        .map(|_| {
            let (pool, body) = (pool.clone(), body.clone());
            tokio::spawn(async move { stage4::create_payment(&pool, "key-1", &body).await })
        })
        .collect();
    wait_for_lock_waiters(&db, DUPLICATES as i64).await;
    gate.open().await;

    let bound = std::time::Duration::from_secs(10);
    let first = harness::within(bound, "the first request", first)
        .await
        .expect("the first request's task");
    let mut ends = Vec::new();
    for duplicate in duplicates {
        let end = harness::within(bound, "a duplicate", duplicate)
            .await
            .expect("a duplicate's task");
        ends.push(match end {
            Ok(reply) => reply.status.to_string(),
            Err(e) => format!("error {}", e.sqlstate().unwrap_or_else(|| e.to_string())),
        });
    }
    (first, ends, db.payment_count().await)
}

// ANCHOR: isolation
#[rstest]
#[case::read_committed("read committed", "201")]
#[case::serializable("serializable", "error 40001")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_duplicates_replay_the_answer_only_under_read_committed(
    #[case] isolation: &str,
    #[case] every_duplicate_ends_with: &str,
) {
    let (first, duplicates, payments) = duplicates_of_a_held_request(isolation).await;

    println!(
        "{isolation}: first {:?}, duplicates {duplicates:?}",
        first.as_ref().map(|r| r.status)
    );
    assert_eq!(
        first.map(|r| r.status).ok(),
        Some(201),
        "the first request pays"
    );
    assert_eq!(payments, 1, "one payment at every isolation level");
    assert_eq!(
        duplicates,
        vec![every_duplicate_ends_with; DUPLICATES],
        "under {isolation}, each of the {DUPLICATES} duplicates that waited on the key"
    );
}
// ANCHOR_END: isolation
