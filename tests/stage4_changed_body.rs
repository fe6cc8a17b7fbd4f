//! Stage 4: the same key with another body is refused with 422, and the same
//! body written differently is still the same request.

use harness::{Outcome, PoolSize, ReplyKind, Shown, TestDb, fire_concurrently, reference_schema};
use harness::{catalogue, t};
use payment_model::{PaymentError, PaymentRequest, Reply};
use rstest::rstest;
use stage4::{create_payment, request_hash};

// What these tests say, in the learner's language
// (tests/locales/*/stage4_changed_body.ftl).
catalogue!(static MESSAGES = "locales", "stage4_changed_body");

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

/// A request that had to be answered, or the test fails saying so (`failed`:
/// the message naming the request).
fn answered(result: Result<Reply, PaymentError>, failed: &str) -> Reply {
    result.unwrap_or_else(|e| {
        panic!(
            "{}",
            MESSAGES.say(failed, &[("error", e.to_string().into())])
        )
    })
}

/// The hash of a body the test knows is valid JSON.
fn hash(body: &str) -> String {
    request_hash(body).unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "a-valid-body-hashes",
                body = body,
                error = e.to_string()
            )
        )
    })
}

fn body(amount: i32) -> String {
    body_for(1, amount)
}

fn body_for(order_id: i64, amount: i32) -> String {
    PaymentRequest { order_id, amount }.to_body()
}

#[rstest]
#[case::other_key_order(r#"{"amount":100,"orderId":1}"#)]
#[case::other_spacing("{ \"orderId\": 1,\n  \"amount\": 100 }")]
#[case::both("\t{\"amount\" : 100 , \"orderId\" : 1}\n")]
fn request_hash_ignores_key_order_and_spacing(#[case] written_differently: &str) {
    let reference = hash(r#"{"orderId":1,"amount":100}"#);
    assert!(
        hash(written_differently) == reference,
        "{}",
        t!(
            MESSAGES,
            "the-same-body-written-differently-hashes-the-same",
            body = format!("{written_differently:?}")
        )
    );
}

#[test]
fn request_hash_differs_for_another_amount() {
    assert!(
        hash(r#"{"orderId":1,"amount":100}"#) != hash(r#"{"orderId":1,"amount":999}"#),
        "{}",
        t!(MESSAGES, "another-amount-is-another-request")
    );
}

/// The canonical text is the body as compact JSON with its keys sorted: what
/// Python's `json.dumps(body, sort_keys=True, separators=(",", ":"))` writes, as the
/// article's other servers do (servers/). A key row stored by one of them can be
/// checked by another.
#[test]
fn request_hash_is_the_sha256_of_the_compact_json_with_sorted_keys() {
    assert!(
        hash("{ \"orderId\": 1,\n  \"amount\": 100 }")
            == payment_model::raw_body_hash(r#"{"amount":100,"orderId":1}"#),
        "{}",
        t!(
            MESSAGES,
            "the-hash-is-sha256-of-the-canonical-text",
            canonical = r#"{"amount":100,"orderId":1}"#
        )
    );
    // Stage 12's layer hashes any route's body with it: nested objects and arrays too.
    assert!(
        hash(r#"{ "b": [1, 2], "a": { "d": 1, "c": [] } }"#)
            == payment_model::raw_body_hash(r#"{"a":{"c":[],"d":1},"b":[1,2]}"#),
        "{}",
        t!(MESSAGES, "nested-objects-are-canonical-too")
    );
}

#[test]
fn request_hash_differs_for_another_order() {
    assert!(
        hash(r#"{"orderId":1,"amount":100}"#) != hash(r#"{"orderId":2,"amount":100}"#),
        "{}",
        t!(MESSAGES, "another-order-is-another-request")
    );
}

// ANCHOR: other_body
#[tokio::test]
async fn the_same_key_with_another_amount_is_refused_with_422() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = answered(
        create_payment(&pool, "key-1", &body(100)).await,
        "the-first-request-must-pay",
    );
    let other = answered(
        create_payment(&pool, "key-1", &body(999)).await,
        "the-second-request-must-be-answered",
    );

    let outcome = Outcome::new(
        &[Ok(first.clone()), Ok(other.clone())],
        db.payment_count().await,
    );
    outcome.record_with(
        "stage4.other_body",
        harness::second_request(&first, &other, outcome.payments),
    );
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
        other.status == 422,
        "{}",
        t!(
            MESSAGES,
            "another-body-is-refused-with-422",
            got = other.shown()
        )
    );
    assert!(
        other.body["title"] == "Idempotency-Key already used with a different request body",
        "{}",
        t!(
            MESSAGES,
            "the-problems-title-says-what-went-wrong",
            title = "Idempotency-Key already used with a different request body",
            got = other.shown()
        )
    );
    assert!(
        outcome.payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-refused-request-pays-nothing",
            payments = outcome.payments
        )
    );
    let replay = answered(
        create_payment(&pool, "key-1", &body(100)).await,
        "the-original-must-be-answered",
    );
    let payments = db.payment_count().await;
    harness::observe(
        "stage4.after_refusal",
        &harness::second_request(&first, &replay, payments),
    );
    assert!(
        replay == first,
        "{}",
        t!(
            MESSAGES,
            "the-refusal-changed-nothing",
            first = first.shown(),
            replay = replay.shown()
        )
    );
}
// ANCHOR_END: other_body

// ANCHOR: other_order
/// The same key and amount for another order: a client that reused its key by
/// mistake. Replaying order 1's 201 would tell it order 2 was paid.
#[tokio::test]
async fn the_same_key_for_another_order_is_refused_with_422() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = answered(
        create_payment(&pool, "key-1", &body_for(1, 100)).await,
        "the-first-request-must-pay",
    );
    let other = answered(
        create_payment(&pool, "key-1", &body_for(2, 100)).await,
        "the-second-request-must-be-answered",
    );
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
        other.status == 422,
        "{}",
        t!(
            MESSAGES,
            "another-order-is-refused-with-422",
            got = other.shown()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}
// ANCHOR_END: other_order

#[rstest]
#[case::other_key_order(r#"{"amount":100,"orderId":1}"#)]
#[case::other_spacing("{ \"orderId\": 1, \"amount\": 100 }")]
#[tokio::test]
async fn the_same_body_written_differently_replays_the_201(#[case] written_differently: &str) {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = answered(
        create_payment(&pool, "key-1", r#"{"orderId":1,"amount":100}"#).await,
        "the-first-request-must-pay",
    );
    let again = answered(
        create_payment(&pool, "key-1", written_differently).await,
        "the-repeat-must-be-answered",
    );
    assert!(
        again == first,
        "{}",
        t!(
            MESSAGES,
            "the-same-body-written-differently-replays-the-201",
            body = format!("{written_differently:?}"),
            first = first.shown(),
            again = again.shown()
        )
    );
    payments_made_by_now(db.payment_count().await, 1);
}

#[tokio::test]
async fn a_body_that_is_not_a_payment_is_an_error_and_stores_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let result = create_payment(&pool, "key-1", r#"{"orderId":1,"amount":"a lot"}"#).await;
    assert!(
        matches!(result, Err(PaymentError::InvalidBody(_))),
        "{}",
        t!(MESSAGES, "an-invalid-body-is-refused", got = result.shown())
    );
    let keys: i64 = db.count("SELECT count(*) FROM idempotency_keys").await;
    assert!(
        keys == 0,
        "{}",
        t!(
            MESSAGES,
            "no-key-is-reserved-for-an-invalid-body",
            keys = keys
        )
    );
}

// ANCHOR: two_bodies
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_and_ten_concurrent_requests_with_two_bodies_create_one_payment() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.warm_pool(PoolSize::of(20)).await;
    // Requests 0-9 send amount 100, requests 10-19 amount 999, all with one key.
    let amount = |i: usize| if i < 10 { 100 } else { 999 };

    let results = fire_concurrently(20, |i| {
        let pool = pool.clone();
        async move { create_payment(&pool, "key-1", &body(amount(i))).await }
    })
    .await;

    let outcome = Outcome::new(&results, db.payment_count().await);
    outcome.record("stage4.two_bodies");
    println!("{}", outcome.table());
    let said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(MESSAGES, "one-key-one-payment", outcome = &said)
    );
    assert!(
        outcome.count(ReplyKind::Status(201)) == 10,
        "{}",
        t!(
            MESSAGES,
            "the-winners-ten-get-its-201",
            count = outcome.count(ReplyKind::Status(201)),
            outcome = &said
        )
    );
    assert!(
        outcome.count(ReplyKind::Status(422)) == 10,
        "{}",
        t!(
            MESSAGES,
            "the-other-bodys-ten-get-422",
            count = outcome.count(ReplyKind::Status(422)),
            outcome = &said
        )
    );
    assert!(
        outcome.distinct_bodies == 2,
        "{}",
        t!(
            MESSAGES,
            "one-201-body-one-problem-body",
            bodies = outcome.distinct_bodies,
            outcome = &said
        )
    );
    let winner = results
        .iter()
        .flatten()
        .find(|reply| reply.status == 201)
        .map(|reply| reply.body["amount"].clone());
    for (i, reply) in results.into_iter().enumerate() {
        let reply = answered(reply, "every-request-must-be-answered");
        let won = Some(serde_json::json!(amount(i))) == winner;
        let wanted = if won { 201 } else { 422 };
        assert!(
            reply.status == wanted,
            "{}",
            MESSAGES.say(
                if won {
                    "a-request-with-the-winning-body-gets-201"
                } else {
                    "a-request-with-the-other-body-gets-422"
                },
                &[
                    ("number", i.into()),
                    ("amount", amount(i).into()),
                    ("got", reply.shown().into()),
                ]
            )
        );
    }
}
// ANCHOR_END: two_bodies
