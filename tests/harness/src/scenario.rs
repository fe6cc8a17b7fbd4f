//! Scenarios of calls made one after another, which more than one stage runs on
//! its `create_payment` (stages 3 and 10). The harness makes the calls and counts;
//! each stage's test asserts on what came back, in its own words, as with
//! [`crate::slow_first_request`].

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::PgPool;

use crate::db::TestDb;
use crate::pool::PoolSize;

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
    let said = crate::messages::MESSAGES.say(
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
    refuse_order_13(db, "P0001").await;
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

/// From now on the database refuses every payment for order 13, inside the
/// paying transaction, with SQLSTATE `sqlstate` (`P0001` a plain error, `40001` a
/// serialization failure), and counts the payments it refused
/// ([`refused_payments`]) in a sequence, which no rollback undoes.
pub async fn refuse_order_13(db: &TestDb, sqlstate: &str) {
    assert!(
        sqlstate.len() == 5 && sqlstate.bytes().all(|b| b.is_ascii_alphanumeric()),
        "harness: {sqlstate:?} is not a SQLSTATE"
    );
    let mut conn = db.connect().await;
    let installed = sqlx::Executor::execute(
        &mut conn,
        sqlx::AssertSqlSafe(format!(
            "CREATE SEQUENCE refused_payments;
             CREATE FUNCTION refuse_order_13() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF NEW.order_id = 13 THEN
                 PERFORM nextval('refused_payments');
                 RAISE EXCEPTION 'payments for order 13 are down' USING ERRCODE = '{sqlstate}';
               END IF;
               RETURN NEW;
             END $$;
             CREATE TRIGGER refuse_order_13 BEFORE INSERT ON payments
               FOR EACH ROW EXECUTE FUNCTION refuse_order_13();"
        )),
    )
    .await;
    if let Err(e) = installed {
        panic!("harness: could not make the database refuse payments: {e}");
    }
    let _ = sqlx::Connection::close(conn).await;
}

/// How many payments [`refuse_order_13`] refused so far.
pub async fn refused_payments(db: &TestDb) -> i64 {
    db.count("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM refused_payments")
        .await
}

/// From now on the database refuses to store any key: a trigger raises an error
/// (SQLSTATE `P0001`) in their INSERT.
pub async fn refuse_keys(db: &TestDb) {
    db.execute(
        "CREATE FUNCTION refuse_keys() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'keys cannot be stored'; END $$;
         CREATE TRIGGER refuse_keys BEFORE INSERT ON idempotency_keys
           FOR EACH ROW EXECUTE FUNCTION refuse_keys();",
    )
    .await;
}

/// What [`failed_payment_as_it_returns`] saw.
#[derive(Debug)]
pub struct FailedPaymentReturned<T> {
    /// What the call returned.
    pub failed: Result<T, PaymentError>,
    /// The state of every other session of the test's database (`idle`, `idle in
    /// transaction (aborted)`, ...) at the moment the call returned.
    pub sessions: Vec<String>,
}

impl<T> FailedPaymentReturned<T> {
    /// The sessions still inside a transaction block when the call returned.
    pub fn in_a_transaction(&self) -> usize {
        self.sessions
            .iter()
            .filter(|state| state.starts_with("idle in transaction"))
            .count()
    }
}

// ANCHOR: failed_payment_as_it_returns
/// A payment the database refuses after its key was reserved (order 13, as in
/// [`failed_payment_retried`]), made by `call`; then the states of the database's
/// sessions at the very moment `call` returned, read from another thread before
/// this test's runtime runs anything else. A transaction the call left for a task
/// to end (sqlx queues the ROLLBACK of a dropped transaction, and a task sends it
/// when the connection goes back to its pool) is still open then, its key still
/// locked: a retry sent at once would wait on it.
///
/// Needs the current-thread runtime of a plain `#[tokio::test]`: on it, no task
/// runs while this test does not yield.
pub async fn failed_payment_as_it_returns<T>(
    db: &TestDb,
    call: impl AsyncFnOnce(&PgPool) -> Result<T, PaymentError>,
) -> FailedPaymentReturned<T> {
    let flavor = tokio::runtime::Handle::current().runtime_flavor();
    assert!(
        flavor == tokio::runtime::RuntimeFlavor::CurrentThread,
        "harness: failed_payment_as_it_returns needs #[tokio::test]'s current-thread runtime, \
         not {flavor:?}"
    );
    refuse_order_13(db, "P0001").await;
    let pool = db.pool(PoolSize::of(2));
    let failed = call(&pool).await;
    // No `.await` from here until the states are read: nothing else runs on this
    // runtime meanwhile.
    let sessions = session_states_now(db.options().clone());
    FailedPaymentReturned { failed, sessions }
}
// ANCHOR_END: failed_payment_as_it_returns

/// The states of the other sessions of the database of `options`, read on a
/// thread and a runtime of their own while the caller's thread waits.
fn session_states_now(options: sqlx::postgres::PgConnectOptions) -> Vec<String> {
    let read = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("harness: no runtime to read the sessions on: {e}"));
        runtime.block_on(crate::within(
            crate::gate::CONDITION_BOUND,
            "the read of the database's sessions",
            async move {
                use sqlx::Connection;
                let mut conn = sqlx::PgConnection::connect_with(&options)
                    .await
                    .unwrap_or_else(|e| panic!("harness: cannot read the sessions: {e}"));
                let states: Vec<String> = sqlx::query_scalar(
                    "SELECT coalesce(state, '') FROM pg_stat_activity
                     WHERE datname = current_database() AND pid <> pg_backend_pid()
                       AND backend_type = 'client backend'",
                )
                .fetch_all(&mut conn)
                .await
                .unwrap_or_else(|e| panic!("harness: cannot read the sessions: {e}"));
                let _ = conn.close().await;
                states
            },
        ))
    });
    match read.join() {
        Ok(states) => states,
        Err(panicked) => std::panic::resume_unwind(panicked),
    }
}
