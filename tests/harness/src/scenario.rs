//! Scenarios of calls made one after another, which more than one stage runs on
//! its `create_payment` (stages 3 and 10). The harness makes the calls and counts;
//! each stage's test asserts on what came back, in its own words, as with
//! [`crate::slow_first_request`].

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::PgPool;

use crate::db::{PoolSize, TestDb};

/// The body of a payment request.
fn body(order_id: i64, amount: i32) -> String {
    PaymentRequest { order_id, amount }.to_body()
}

/// What [`later_retry`] saw.
#[derive(Debug)]
pub struct LaterRetry {
    /// The first request's answer.
    pub first: Reply,
    /// The answer to the same request sent again, once the first was answered.
    pub retry: Reply,
    /// The payments made by both.
    pub payments: i64,
}

/// A request with `key-1`, then, once it was answered, the same request again.
pub async fn later_retry(
    db: &TestDb,
    create_payment: impl AsyncFn(&PgPool, &str, &str) -> Result<Reply, PaymentError>,
) -> LaterRetry {
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .unwrap_or_else(|e| failed("scenario-first-request-failed", "key-1", &e));
    let retry = create_payment(&pool, "key-1", &body(1, 100))
        .await
        .unwrap_or_else(|e| failed("scenario-retry-failed", "key-1", &e));
    LaterRetry {
        first,
        retry,
        payments: db.payment_count().await,
    }
}

/// What [`two_keys`] saw.
#[derive(Debug)]
pub struct TwoKeys {
    /// The answer to the request with `key-a`.
    pub a: Reply,
    /// The answer to the same body with `key-b`.
    pub b: Reply,
    /// The payments made by both.
    pub payments: i64,
}

/// The same body sent with two keys, `key-a` then `key-b`.
pub async fn two_keys(
    db: &TestDb,
    create_payment: impl AsyncFn(&PgPool, &str, &str) -> Result<Reply, PaymentError>,
) -> TwoKeys {
    let pool = db.pool(PoolSize::of(2));
    let a = create_payment(&pool, "key-a", &body(1, 100))
        .await
        .unwrap_or_else(|e| failed("scenario-key-failed", "key-a", &e));
    let b = create_payment(&pool, "key-b", &body(1, 100))
        .await
        .unwrap_or_else(|e| failed("scenario-key-failed", "key-b", &e));
    TwoKeys {
        a,
        b,
        payments: db.payment_count().await,
    }
}

/// A scenario's request that had to succeed failed: the test fails, saying so.
fn failed(id: &str, key: &str, error: &PaymentError) -> ! {
    let said = crate::MESSAGES.say(
        id,
        &[
            ("key", l10n::Arg::from(key)),
            ("error", l10n::Arg::from(error.to_string())),
        ],
    );
    panic!("{said}")
}

/// What [`failed_payment_retried`] saw. The answers are kept as they came: what
/// a failed payment must return is the stage test's to say.
#[derive(Debug)]
pub struct FailedPayment {
    /// The request whose payment the database refused.
    pub failed: Result<Reply, PaymentError>,
    /// The rows of `idempotency_keys` just after it.
    pub keys_left: i64,
    /// The same request again, once payments were accepted again.
    pub retry: Result<Reply, PaymentError>,
    /// The payments made by both.
    pub payments: i64,
}

// ANCHOR: failed_payment
/// A real failure inside the request, after its key was reserved: the database
/// refuses payments for order 13 (a trigger raises an error in their INSERT)
/// while the request with `key-13` is sent, then payments work again, and the
/// request is retried.
pub async fn failed_payment_retried(
    db: &TestDb,
    create_payment: impl AsyncFn(&PgPool, &str, &str) -> Result<Reply, PaymentError>,
) -> FailedPayment {
    db.execute(
        "CREATE FUNCTION refuse_order_13() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.order_id = 13 THEN RAISE EXCEPTION 'payments for order 13 are down'; END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_order_13 BEFORE INSERT ON payments
           FOR EACH ROW EXECUTE FUNCTION refuse_order_13();",
    )
    .await;
    let pool = db.pool(PoolSize::of(2));

    let failed = create_payment(&pool, "key-13", &body(13, 100)).await;
    let keys_left = db.count("SELECT count(*) FROM idempotency_keys").await;

    db.execute("DROP TRIGGER refuse_order_13 ON payments").await;
    let retry = create_payment(&pool, "key-13", &body(13, 100)).await;
    FailedPayment {
        failed,
        keys_left,
        retry,
        payments: db.payment_count().await,
    }
}
// ANCHOR_END: failed_payment
