//! Stage 3: the unique key in the same transaction. Twenty concurrent requests
//! with one key: one payment, twenty identical 201s; and the key and the payment
//! commit, or vanish, together.

use harness::{
    FailedPayment, LaterRetry, Outcome, PoolSize, ReplyKind, Shown, TestDb, TwoKeys,
    failed_payment_retried, fire_while_first_is_held, later_retry, reference_schema, two_keys,
};
use harness::{catalogue, t};
use payment_model::PaymentRequest;
use stage3::create_payment;

// What these tests say, in the learner's language
// (tests/locales/*/stage3_unique_key.ftl).
catalogue!(static MESSAGES = "locales", "stage3_unique_key");

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

const REQUESTS: usize = 20;

fn body(order_id: i64, amount: i32) -> String {
    PaymentRequest { order_id, amount }.to_body()
}

// ANCHOR: burst
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_requests_create_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(REQUESTS as u32)).await;

    // The first request is held inside its payment until the 19 others have
    // arrived: they certainly come while the key is reserved and unanswered.
    let results = fire_while_first_is_held(&db, 1, REQUESTS, |_| {
        let pool = pool.clone();
        async move { create_payment(&pool, "key-1", &body(1, 100)).await }
    })
    .await;

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record("stage3.burst");
    println!("{}", outcome.table());
    let outcome_said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "twenty-requests-with-one-key-pay-once",
            outcome = &outcome_said
        )
    );
    assert!(
        outcome.count(ReplyKind::Status(201)) == REQUESTS,
        "{}",
        t!(
            MESSAGES,
            "every-caller-gets-the-201",
            outcome = &outcome_said
        )
    );
    assert!(
        outcome.distinct_bodies == 1,
        "{}",
        t!(
            MESSAGES,
            "all-twenty-bodies-are-the-same",
            outcome = &outcome_said
        )
    );
}
// ANCHOR_END: burst

#[tokio::test]
async fn a_later_retry_returns_the_same_body() {
    let db = TestDb::create(reference_schema()).await;
    let LaterRetry {
        first,
        retry,
        payments: made,
    } = later_retry(&db, create_payment).await;
    assert!(
        first.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-first-request-is-answered-201",
            got = first.shown()
        )
    );
    assert!(
        retry == first,
        "{}",
        t!(
            MESSAGES,
            "a-retry-gets-the-stored-answer-byte-for-byte",
            first = first.shown(),
            retry = retry.shown()
        )
    );
    payments_made_by_now(made, 1);
}

#[tokio::test]
async fn different_keys_make_different_payments() {
    let db = TestDb::create(reference_schema()).await;
    let TwoKeys {
        a,
        b,
        payments: made,
    } = two_keys(&db, create_payment).await;
    assert!(
        a.payment_id() != b.payment_id(),
        "{}",
        t!(
            MESSAGES,
            "two-keys-are-two-payments",
            id = a.payment_id().unwrap_or("-")
        )
    );
    payments_made_by_now(made, 2);
}

// ANCHOR: rollback
#[tokio::test]
async fn a_failed_payment_releases_its_key_so_a_retry_succeeds() {
    let db = TestDb::create(reference_schema()).await;
    // The database refuses the payment of `key-13` inside its transaction, after
    // the key was reserved; then it accepts payments again, and the request is
    // retried.
    let FailedPayment {
        failed,
        keys_left,
        retry,
        payments: made,
    } = failed_payment_retried(&db, create_payment).await;
    assert!(
        failed.is_err(),
        "{}",
        t!(
            MESSAGES,
            "a-failed-payment-fails-the-call",
            got = failed.shown()
        )
    );
    assert!(
        keys_left == 0,
        "{}",
        t!(
            MESSAGES,
            "the-failed-payments-key-is-rolled-back",
            keys = keys_left
        )
    );
    assert!(
        matches!(&retry, Ok(reply) if reply.status == 201),
        "{}",
        t!(
            MESSAGES,
            "the-retry-pays-once-payments-work",
            got = retry.shown()
        )
    );
    payments_made_by_now(made, 1);
}
// ANCHOR_END: rollback

// ANCHOR: answer_in_the_transaction
/// The server dies after the payment and before its answer is stored: here the
/// database refuses to store the answer of `key-13` (a trigger raises an error),
/// which is the same cut. Stored in the paying transaction, the answer fails with
/// the payment: nothing stays behind, and the retry pays. Stored after the COMMIT,
/// it leaves a payment and a key with no answer, which says "in flight" for ever.
#[tokio::test]
async fn a_failure_before_the_answer_is_stored_leaves_neither_payment_nor_key() {
    let db = TestDb::create(reference_schema()).await;
    db.execute(
        "CREATE FUNCTION refuse_answer_13() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.key = 'key-13' AND NEW.status IS NOT NULL THEN
             RAISE EXCEPTION 'the server died before it stored the answer of key-13';
           END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_answer_13 BEFORE INSERT OR UPDATE ON idempotency_keys
           FOR EACH ROW EXECUTE FUNCTION refuse_answer_13();",
    )
    .await;
    let pool = db.pool(PoolSize::of(2));

    let failed = create_payment(&pool, "key-13", &body(13, 100)).await;
    let paid = db.payment_count().await;
    let keys_left = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert!(
        failed.is_err(),
        "{}",
        t!(
            MESSAGES,
            "a-failed-answer-fails-the-call",
            got = failed.shown()
        )
    );
    assert!(
        (paid, keys_left) == (0, 0),
        "{}",
        t!(
            MESSAGES,
            "the-payment-and-its-answer-commit-together",
            payments = paid,
            keys = keys_left
        )
    );

    db.execute("DROP TRIGGER refuse_answer_13 ON idempotency_keys")
        .await;
    let retry = create_payment(&pool, "key-13", &body(13, 100)).await;
    assert!(
        matches!(&retry, Ok(reply) if reply.status == 201),
        "{}",
        t!(
            MESSAGES,
            "the-retry-pays-once-answers-are-stored",
            got = retry.shown()
        )
    );
    let again = create_payment(&pool, "key-13", &body(13, 100)).await;
    assert!(
        matches!((&again, &retry), (Ok(again), Ok(retry)) if again == retry),
        "{}",
        t!(
            MESSAGES,
            "a-later-retry-replays-the-201",
            first = retry.shown(),
            again = again.shown()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: answer_in_the_transaction
