//! `cargo workbook review`: the evidence. One test per item of the review checklist, run
//! against every route of `review/routes/` over real HTTP and a real PostgreSQL.
//! A route passes the test of an item exactly when it gets that item right; a
//! failure says what was observed, then `;`, then why it matters, in the learner's
//! language (tests/locales/*/review_routes.ftl), and `cargo workbook review` shows
//! what was observed beside the learner's review.

use std::net::SocketAddr;
use std::time::Duration;

use harness::l10n::Arg;
use harness::provider::{FakeProvider, ProviderFault};
use harness::{
    Call, CallError, PoolSize, Shown, TestDb, fire_concurrently, fire_while_first_is_held,
    reference_schema,
};
use harness::{catalogue, t};
use payment_model::Reply;
use rstest::rstest;

// What these tests say, in the learner's language.
catalogue!(static MESSAGES = "locales", "review_routes");

/// What a route did, then why it matters: the evidence `cargo workbook review`
/// shows (message `id`), `; `, and the reason (`id-why`), given the same facts.
fn evidence(id: &str, facts: &[(&str, Arg)]) -> String {
    let why = format!("{id}-why");
    format!("{}; {}", MESSAGES.say(id, facts), MESSAGES.say(&why, facts))
}

/// The first request of a test must have paid (201), or the test fails saying so.
fn first_request_paid(first: &Reply) {
    assert!(
        first.status == 201,
        "{}",
        evidence(
            "the-first-request-was-answered",
            &[("got", first.shown().into())]
        )
    );
}

/// The route, served on 127.0.0.1 with a pool of `connections`, and a payment
/// provider that charges whatever it is asked to (for the routes that call one);
/// keep it for as long as the route serves.
async fn serve(db: &TestDb, connections: u32) -> (SocketAddr, FakeProvider) {
    let provider = FakeProvider::start().await;
    (serve_with(db, connections, &provider).await, provider)
}

async fn serve_with(db: &TestDb, connections: u32, provider: &FakeProvider) -> SocketAddr {
    let app = review_support::App {
        pool: db.pool(PoolSize::of(connections)),
        provider: review_support::Provider::new(&provider.url(), ANSWER_BOUND).unwrap_or_else(
            |e| {
                panic!(
                    "{}",
                    t!(
                        MESSAGES,
                        "no-client-for-the-fake-provider",
                        error = e.to_string()
                    )
                )
            },
        ),
    };
    harness::serve(|listener| review_support::serve(listener, review_route::router(app))).await
}

/// Long enough for any answer of a healthy route; a route whose requests wait for
/// each other forever fails within it instead of hanging the test.
const ANSWER_BOUND: Duration = Duration::from_secs(10);

/// POST /payments; `Err` when no answer came within the bound (a panic, a hang),
/// or one whose body is not JSON.
async fn post(addr: SocketAddr, key: Option<&str>, body: &str) -> Result<Reply, CallError> {
    let call = Call::post(addr, "/payments", body).key(key);
    Ok(call.within(ANSWER_BOUND).try_send().await?.reply())
}

async fn post_answered(addr: SocketAddr, key: Option<&str>, body: &str) -> Reply {
    post(addr, key, body).await.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(MESSAGES, "post-payments-got", error = e.to_string())
        )
    })
}

fn body(order_id: i64, amount: i32) -> String {
    format!(r#"{{"orderId":{order_id},"amount":{amount}}}"#)
}

// ANCHOR: key_required
#[tokio::test]
async fn a_request_without_a_key_is_refused_and_pays_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let (addr, _provider) = serve(&db, 5).await;

    let answer = post_answered(addr, None, &body(1, 100)).await;

    let payments = db.payment_count().await;
    assert!(
        (400..500).contains(&answer.status) && payments == 0,
        "{}",
        evidence(
            "a-request-without-a-key-was-answered",
            &[
                ("status", answer.status.into()),
                ("payments", payments.into())
            ]
        )
    );
}
// ANCHOR_END: key_required

// ANCHOR: reservation
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_requests_with_one_key_make_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    // Room for all 20 at once: this test is about the reservation, not the pool.
    let (addr, _provider) = serve(&db, 25).await;
    let order = 7;

    // The first request is held inside its payment INSERT until the other 19 have
    // arrived: the window a check-then-write route leaves open is held open.
    let answers = fire_while_first_is_held(&db, order, 20, |_| async move {
        Ok(post_answered(addr, Some("key-1"), &body(order, 100)).await)
    })
    .await;

    let payments = db.payment_count().await;
    let statuses: Vec<String> = answers
        .iter()
        .flatten()
        .map(|reply| reply.status.to_string())
        .collect();
    assert!(
        payments == 1,
        "{}",
        evidence(
            "twenty-concurrent-requests-with-one-key-made",
            &[
                ("payments", payments.into()),
                ("answers", statuses.join(", ").into())
            ]
        )
    );
}
// ANCHOR_END: reservation

// ANCHOR: one_transaction
/// A failure inside the request: the payment INSERT fails, or storing the answer
/// does. Order 13 is refused by a trigger until the test drops it.
#[rstest]
#[case::the_payment_fails(
    "payments",
    "IF NEW.order_id = 13 THEN RAISE EXCEPTION 'payments for order 13 are down'; END IF;"
)]
#[case::storing_the_answer_fails(
    "idempotency_keys",
    "IF NEW.response->>'orderId' = '13' THEN RAISE EXCEPTION 'the key store is down'; END IF;"
)]
#[tokio::test]
async fn a_request_that_fails_halfway_leaves_nothing_behind_and_its_retry_pays_once(
    #[case] table: &str,
    #[case] refusal: &str,
) {
    let db = TestDb::create(reference_schema()).await;
    let mut admin = db.connect().await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "CREATE FUNCTION refuse_order_13() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN {refusal} RETURN NEW; END $$;
         CREATE TRIGGER refuse_order_13 BEFORE INSERT OR UPDATE ON {table}
           FOR EACH ROW EXECUTE FUNCTION refuse_order_13();"
    )))
    .execute(&mut admin)
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-trigger-is-not-created",
                error = e.to_string()
            )
        )
    });
    let (addr, _provider) = serve(&db, 5).await;

    let first = post_answered(addr, Some("key-13"), &body(13, 100)).await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "DROP TRIGGER refuse_order_13 ON {table}"
    )))
    .execute(&mut admin)
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-trigger-is-not-dropped",
                error = e.to_string()
            )
        )
    });
    let retry = post_answered(addr, Some("key-13"), &body(13, 100)).await;

    let payments = db.payment_count().await;
    assert!(
        payments == 1 && (200..300).contains(&retry.status),
        "{}",
        evidence(
            if table == "payments" {
                "the-payment-insert-failed-and-its-retry-left"
            } else {
                "storing-the-answer-failed-and-its-retry-left"
            },
            &[
                ("first", first.status.into()),
                ("retry", retry.status.into()),
                ("payments", payments.into()),
            ]
        )
    );
}
// ANCHOR_END: one_transaction

// ANCHOR: replay
#[tokio::test]
async fn a_retry_gets_the_first_answer_again() {
    let db = TestDb::create(reference_schema()).await;
    let (addr, _provider) = serve(&db, 5).await;

    let first = post_answered(addr, Some("key-1"), &body(1, 100)).await;
    let retry = post_answered(addr, Some("key-1"), &body(1, 100)).await;

    first_request_paid(&first);
    assert!(
        retry == first,
        "{}",
        evidence(
            "the-retry-was-answered-instead-of-the-first-answer",
            &[
                ("retry", format!("{} {}", retry.status, retry.body).into()),
                ("first", format!("{} {}", first.status, first.body).into())
            ]
        )
    );
}
// ANCHOR_END: replay

// ANCHOR: other_body
#[tokio::test]
async fn the_same_key_with_another_body_is_refused_with_422() {
    let db = TestDb::create(reference_schema()).await;
    let (addr, _provider) = serve(&db, 5).await;

    let first = post_answered(addr, Some("key-1"), &body(1, 100)).await;
    let other = post_answered(addr, Some("key-1"), &body(1, 999)).await;

    first_request_paid(&first);
    assert!(
        other.status == 422,
        "{}",
        evidence(
            "the-same-key-with-another-amount-was-answered",
            &[("got", format!("{} {}", other.status, other.body).into())]
        )
    );
}
// ANCHOR_END: other_body

// ANCHOR: one_connection
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_requests_through_a_pool_of_five_are_all_answered() {
    let db = TestDb::create(reference_schema()).await;
    let (addr, _provider) = serve(&db, 5).await;

    let answers = fire_concurrently(20, |_| async move {
        post(addr, Some("key-1"), &body(1, 100)).await
    })
    .await;

    let failed: Vec<String> = answers
        .iter()
        .filter_map(|a| match a {
            Ok(reply) if reply.status < 500 => None,
            Ok(reply) => Some(format!("{} {}", reply.status, reply.body["title"])),
            Err(e) => Some(e.to_string()),
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{}",
        evidence(
            "requests-through-a-pool-of-five-got-no-answer",
            &[
                ("count", failed.len().into()),
                (
                    "first",
                    failed.first().map(String::as_str).unwrap_or("").into()
                )
            ]
        )
    );
}
// ANCHOR_END: one_connection

// ANCHOR: external_key
#[tokio::test]
async fn a_lost_provider_answer_is_retried_into_one_charge() {
    let db = TestDb::create(reference_schema()).await;
    let provider = FakeProvider::start().await;
    // The first call to the provider charges the card, and its answer is lost.
    provider.inject([ProviderFault::ChargeThenDropAnswer]);
    let addr = serve_with(&db, 5, &provider).await;

    let first = post_answered(addr, Some("key-1"), &body(1, 100)).await;
    let retry = post_answered(addr, Some("key-1"), &body(1, 100)).await;

    let calls = provider.requests().len();
    if calls == 0 {
        // The route calls nothing outside the database: nothing to review here.
        return;
    }
    let charges = provider.charges().len();
    assert!(
        charges == 1 && retry.status == 201,
        "{}",
        evidence(
            "a-lost-provider-answer-then-a-retry-left",
            &[
                ("charges", charges.into()),
                ("calls", calls.into()),
                ("first", first.status.into()),
                ("retry", retry.status.into())
            ]
        )
    );
}
// ANCHOR_END: external_key
