//! Stage 4: the same key with another body is refused with 422, and the same
//! body written differently is still the same request.

use harness::{Outcome, PoolSize, ReplyKind, TestDb, fire_concurrently, reference_schema};
use payment_model::PaymentRequest;
use rstest::rstest;
use stage4::{create_payment, request_hash};

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
    let reference = request_hash(r#"{"orderId":1,"amount":100}"#).expect("a valid body hashes");
    assert_eq!(
        request_hash(written_differently).expect("a valid body hashes"),
        reference,
        "{written_differently:?} is the same request as {{\"orderId\":1,\"amount\":100}}: normalise \
         the JSON (sorted keys, no spacing) before hashing it"
    );
}

#[test]
fn request_hash_differs_for_another_amount() {
    assert_ne!(
        request_hash(r#"{"orderId":1,"amount":100}"#).expect("a valid body hashes"),
        request_hash(r#"{"orderId":1,"amount":999}"#).expect("a valid body hashes"),
        "another amount is another request"
    );
}

/// The canonical text is the body as compact JSON with its keys sorted: what
/// Python's `json.dumps(body, sort_keys=True, separators=(",", ":"))` writes, as the
/// article's other servers do (servers/). A key row stored by one of them can be
/// checked by another.
#[test]
fn request_hash_is_the_sha256_of_the_compact_json_with_sorted_keys() {
    assert_eq!(
        request_hash("{ \"orderId\": 1,\n  \"amount\": 100 }").expect("a valid body hashes"),
        payment_model::raw_body_hash(r#"{"amount":100,"orderId":1}"#),
        "the hash is SHA-256 (in hex) of the canonical text {{\"amount\":100,\"orderId\":1}}: \
         keys sorted, a comma between members, no spacing"
    );
    // Stage 12's layer hashes any route's body with it: nested objects and arrays too.
    assert_eq!(
        request_hash(r#"{ "b": [1, 2], "a": { "d": 1, "c": [] } }"#).expect("JSON hashes"),
        payment_model::raw_body_hash(r#"{"a":{"c":[],"d":1},"b":[1,2]}"#),
        "nested objects have their keys sorted too, and an array keeps its order, with a comma \
         between items: [1,2] and [12] are not the same body"
    );
}

#[test]
fn request_hash_differs_for_another_order() {
    assert_ne!(
        request_hash(r#"{"orderId":1,"amount":100}"#).expect("a valid body hashes"),
        request_hash(r#"{"orderId":2,"amount":100}"#).expect("a valid body hashes"),
        "another order is another request: every field of the body goes into the hash"
    );
}

// ANCHOR: other_body
#[tokio::test]
async fn the_same_key_with_another_amount_is_refused_with_422() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", &body(100))
        .await
        .expect("the first request pays");
    let other = create_payment(&pool, "key-1", &body(999))
        .await
        .expect("the second request is answered");

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
        "the first request should be answered 201: it was answered {}",
        first.status
    );
    assert_eq!(
        other.status, 422,
        "the key was used with another body: 422, got {other:?}"
    );
    assert_eq!(
        other.body["title"], "Idempotency-Key already used with a different request body",
        "the problem body's title says what went wrong: {other:?}"
    );
    assert_eq!(outcome.payments, 1, "the refused request pays nothing");
    let replay = create_payment(&pool, "key-1", &body(100))
        .await
        .expect("the original is answered");
    let payments = db.payment_count().await;
    harness::observe(
        "stage4.after_refusal",
        &harness::second_request(&first, &replay, payments),
    );
    assert_eq!(
        replay, first,
        "the refusal changed nothing: the original body still replays its 201"
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
    let first = create_payment(&pool, "key-1", &body_for(1, 100))
        .await
        .expect("the first request pays");
    let other = create_payment(&pool, "key-1", &body_for(2, 100))
        .await
        .expect("the second request is answered");
    assert!(
        first.status == 201,
        "the first request should be answered 201: it was answered {}",
        first.status
    );
    assert_eq!(
        other.status, 422,
        "the key was used for order 1 and is now sent for order 2, with the same amount: \
         that is another request, so 422; a replay would tell the client order 2 was paid \
         (hash every field of the body, not only the amount). Got {other:?}"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}
// ANCHOR_END: other_order

#[rstest]
#[case::other_key_order(r#"{"amount":100,"orderId":1}"#)]
#[case::other_spacing("{ \"orderId\": 1, \"amount\": 100 }")]
#[tokio::test]
async fn the_same_body_written_differently_replays_the_201(#[case] written_differently: &str) {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let first = create_payment(&pool, "key-1", r#"{"orderId":1,"amount":100}"#)
        .await
        .expect("the first request pays");
    let again = create_payment(&pool, "key-1", written_differently)
        .await
        .expect("the repeat is answered");
    assert_eq!(
        again, first,
        "{written_differently:?} means the same as the first body, so it must replay the 201, not be refused"
    );
    let made = db.payment_count().await;
    assert!(
        made == 1,
        "1 payment should have been made by now: there are {made}"
    );
}

#[tokio::test]
async fn a_body_that_is_not_a_payment_is_an_error_and_stores_nothing() {
    let db = TestDb::create(reference_schema()).await;
    let pool = db.pool(PoolSize::of(2));
    let result = create_payment(&pool, "key-1", r#"{"orderId":1,"amount":"a lot"}"#).await;
    assert!(
        matches!(result, Err(payment_model::PaymentError::InvalidBody(_))),
        "an invalid body is refused before anything is stored: {result:?}"
    );
    assert_eq!(
        db.count("SELECT count(*) FROM idempotency_keys").await,
        0,
        "no key was reserved"
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
    assert_eq!(outcome.payments, 1, "one key, one payment: {outcome}");
    assert_eq!(
        outcome.count(ReplyKind::Status(201)),
        10,
        "the winner's ten get its 201: {outcome}"
    );
    assert_eq!(
        outcome.count(ReplyKind::Status(422)),
        10,
        "the other body's ten get 422: {outcome}"
    );
    assert_eq!(
        outcome.distinct_bodies, 2,
        "one 201 body, one problem body: {outcome}"
    );
    let winner = results
        .iter()
        .flatten()
        .find(|reply| reply.status == 201)
        .map(|reply| reply.body["amount"].clone());
    for (i, reply) in results.iter().enumerate() {
        let reply = reply.as_ref().expect("every request is answered");
        let won = Some(serde_json::json!(amount(i))) == winner;
        assert_eq!(
            reply.status,
            if won { 201 } else { 422 },
            "request {i} (amount {}) sent the {} body",
            amount(i),
            if won { "winning" } else { "losing" }
        );
    }
}
// ANCHOR_END: two_bodies
