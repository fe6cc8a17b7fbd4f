//! Stage 11: the payment provider. The card is charged by a fake provider on
//! 127.0.0.1 (`harness::provider`), whose list of charges is the truth: however a
//! request dies, the retry with the same key ends with exactly one charge, one
//! payment row and one answer. Crashes are injected by aborting the request's
//! future at a point the test holds it at; leases expire when the test moves
//! them back in the database, never by waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use harness::provider::{FakeProvider, ProviderFault};
use harness::{
    Outcome, PaymentGate, PoolSize, ReplyKind, Schema, Shown, TestDb, fire_concurrently, within,
};
use harness::{catalogue, t};
use payment_model::{PaymentError, Reply};
use rstest::rstest;
use sqlx::postgres::PgPoolOptions;
use stage11::{Answer, App, ClientId, Config};
use tokio::sync::Notify;

// What these tests say, in the learner's language
// (tests/locales/*/stage11_payment_provider.ftl).
catalogue!(static MESSAGES = "locales", "stage11_payment_provider");

/// An answer as the messages show it: its status and body, and whether it was
/// a replay.
fn shown(answer: &Answer) -> String {
    t!(
        MESSAGES,
        "an-answer",
        reply = answer.reply.shown(),
        replayed = answer.replayed.to_string()
    )
}

/// A call's answer, or the error it ended with.
fn shown_result(result: &Result<Answer, PaymentError>) -> String {
    match result {
        Ok(answer) => shown(answer),
        Err(e) => e.to_string(),
    }
}

/// A request's task once it ended: what it returned, or why it did not end
/// normally (a panic in the code under test).
fn ended<T>(joined: Result<T, tokio::task::JoinError>) -> T {
    joined.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(MESSAGES, "the-request-panicked", error = e.to_string())
        )
    })
}

/// The answer of a request that must have answered; `what` names it.
fn answered(what: &str, result: Result<Answer, PaymentError>) -> Answer {
    result.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "a-request-failed",
                what = what,
                error = e.to_string()
            )
        )
    })
}

fn schema() -> Schema {
    Schema::new(stage11::MIGRATION_SOURCE, stage11::MIGRATION)
}

/// Two clients (as in stage 8).
const CLIENTS: &str = "INSERT INTO clients (name, token_hash) VALUES
    ('client-a', encode(sha256(convert_to('token-of-a', 'UTF8')), 'hex')),
    ('client-b', encode(sha256(convert_to('token-of-b', 'UTF8')), 'hex'))";
const A: ClientId = ClientId(1);
const B: ClientId = ClientId(2);

const BODY: &str = r#"{"orderId":1,"amount":100}"#;

/// Every bounded wait of this file.
const BOUND: Duration = Duration::from_secs(10);

/// A database, the fake provider, and the route's app on a pool of its own.
struct Setup {
    db: TestDb,
    provider: FakeProvider,
    app: App,
}

async fn setup(pool: PoolSize) -> Setup {
    let db = TestDb::create(schema()).await;
    db.execute(CLIENTS).await;
    let provider = FakeProvider::start().await;
    let app = app_on(&provider, db.pool(pool));
    Setup { db, provider, app }
}

/// The default settings: a 30 s lease, which no test waits for.
fn app_on(provider: &FakeProvider, pool: sqlx::PgPool) -> App {
    App::new(pool, &provider.url(), Config::default()).expect("the fake provider's URL is valid")
}

async fn pay(app: &App, client: ClientId, key: &str, body: &str) -> Answer {
    match within(
        BOUND,
        "create_payment",
        stage11::create_payment(app, client, key, body),
    )
    .await
    {
        Ok(answer) => answer,
        Err(e) => panic!(
            "{}",
            t!(MESSAGES, "create-payment-failed", error = e.to_string())
        ),
    }
}

impl Setup {
    /// How many times the card was charged, at the provider.
    fn charges(&self) -> usize {
        self.provider.charges().len()
    }

    /// The provider keys the route sent, in order.
    fn provider_keys(&self) -> Vec<String> {
        self.provider
            .requests()
            .into_iter()
            .filter_map(|r| r.idempotency_key)
            .collect()
    }

    /// The charge ids of the payment rows.
    async fn payment_charge_ids(&self) -> Vec<String> {
        let mut conn = self.db.connect().await;
        sqlx::query_scalar("SELECT charge_id FROM payments ORDER BY id")
            .fetch_all(&mut conn)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "{}",
                    t!(MESSAGES, "the-payments-can-be-read", error = e.to_string())
                )
            })
    }

    /// The message of a failed "one charge" assertion: what the provider saw.
    fn charged_twice(&self) -> String {
        t!(
            MESSAGES,
            "charged-twice",
            charges = self.charges(),
            keys = format!("{:?}", self.provider_keys())
        )
    }

    /// Moves every key two days back: its first use, and its answer if it has one.
    async fn age_keys(&self) {
        self.db
            .execute(
                "UPDATE idempotency_keys SET created_at = created_at - interval '2 days',
                        finished_at = finished_at - interval '2 days'",
            )
            .await;
    }

    /// Runs the reaper once.
    async fn reap(&self) -> stage11::Reaped {
        within(
            BOUND,
            &t!(MESSAGES, "the-reaper"),
            stage11::reap(&self.app.pool, &self.app.config),
        )
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(MESSAGES, "the-reaper-failed", error = e.to_string())
            )
        })
    }

    /// The recovery point of every key, with its key.
    async fn points(&self) -> Vec<(String, String)> {
        let mut conn = self.db.connect().await;
        sqlx::query_as("SELECT key, recovery_point FROM idempotency_keys ORDER BY key")
            .fetch_all(&mut conn)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "{}",
                    t!(MESSAGES, "the-keys-can-be-read", error = e.to_string())
                )
            })
    }

    /// Ends the lease of every unfinished key, as if it had been taken long ago.
    async fn expire_leases(&self) {
        self.db
            .execute(
                "UPDATE idempotency_keys SET locked_until = now() - interval '1 second'
                 WHERE recovery_point <> 'finished'",
            )
            .await;
    }
}

// ANCHOR: derived_key
#[test]
fn a_derived_key_is_the_same_for_a_retry_and_never_shared() {
    let body = stage4_hash(BODY);
    let key =
        |client, key: &str, body: &str, step: &str| stage11::derived_key(client, key, body, step);
    let first = key(A, "order-1", &body, "charge");
    let again = key(A, "order-1", &body, "charge");
    assert!(
        first == again,
        "{}",
        t!(
            MESSAGES,
            "a-retry-sends-the-same-key",
            first = &first,
            again = &again
        )
    );
    assert!(
        first != "order-1",
        "{}",
        t!(MESSAGES, "the-clients-own-key-is-not-sent", key = &first)
    );
    let of_b = key(B, "order-1", &body, "charge");
    assert!(
        first != of_b,
        "{}",
        t!(MESSAGES, "two-clients-two-keys", key = &first)
    );
    let other_body = key(
        A,
        "order-1",
        &stage4_hash(r#"{"orderId":1,"amount":999}"#),
        "charge",
    );
    assert!(
        first != other_body,
        "{}",
        t!(MESSAGES, "another-body-another-key", key = &first)
    );
    let refund = key(A, "order-1", &body, "refund");
    assert!(
        first != refund,
        "{}",
        t!(MESSAGES, "two-steps-two-keys", key = &first)
    );
    let (joined, shifted) = (
        key(A, "order-1", &body, "charge"),
        key(A, "order-1c", &body, "harge"),
    );
    assert!(
        joined != shifted,
        "{}",
        t!(
            MESSAGES,
            "the-parts-do-not-run-into-each-other",
            key = &joined
        )
    );
}
// ANCHOR_END: derived_key

// ANCHOR: new_payment
#[tokio::test]
async fn a_new_payment_charges_the_card_once_and_records_the_charge() {
    let s = setup(PoolSize::of(5)).await;
    let first = pay(&s.app, A, "order-1", BODY).await;

    assert!(
        (first.reply.status, first.replayed) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "a-new-key-is-charged-and-answered-201",
            got = shown(&first)
        )
    );
    let charges = s.provider.charges();
    assert!(charges.len() == 1, "{}", s.charged_twice());
    assert!(
        charges[0].idempotency_key != "order-1",
        "{}",
        t!(MESSAGES, "the-provider-got-the-clients-own-key")
    );
    assert!(
        charges[0].amount == 100,
        "{}",
        t!(
            MESSAGES,
            "the-provider-charges-the-bodys-amount",
            charged = charges[0].amount.to_string()
        )
    );
    let ids = s.payment_charge_ids().await;
    assert!(
        ids == [charges[0].id.clone()],
        "{}",
        t!(
            MESSAGES,
            "one-payment-row-for-the-charge",
            charge = &charges[0].id,
            ids = format!("{ids:?}")
        )
    );
    let finished =
        s.db.count("SELECT count(*) FROM idempotency_keys WHERE recovery_point = 'finished'")
            .await;
    assert!(
        finished == 1,
        "{}",
        t!(MESSAGES, "the-key-ends-finished", finished = finished)
    );
    let again = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (&again.reply, again.replayed) == (&first.reply, true),
        "{}",
        t!(
            MESSAGES,
            "a-retry-replays-the-answer",
            first = shown(&first),
            retry = shown(&again)
        )
    );
    let calls = s.provider.requests().len();
    assert!(
        calls == 1,
        "{}",
        t!(
            MESSAGES,
            "a-finished-key-does-not-ask-the-provider",
            calls = calls
        )
    );
}
// ANCHOR_END: new_payment

/// Where the request dies: after which phase's commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DiesAfter {
    /// The key is `started`; the request is held at the provider before it charges,
    /// and never charged.
    Started,
    /// The provider charged the card; its answer is held, and the request dies
    /// before it arrives.
    ProviderCharged,
    /// The charge is recorded (`charged`); the request dies inserting the payment.
    ChargeRecorded,
    /// The answer is stored (`finished`); the client never read it.
    Finished,
}

/// Runs one request on a pool of its own and kills it at `crash`: its future is
/// aborted (what dies with a server process), and its connections are closed
/// (PostgreSQL rolls back what it had not committed). Returns the answer the
/// client lost, when the request got that far.
async fn crashed_request(s: &Setup, crash: DiesAfter) -> Option<Answer> {
    let pool = s.db.pool(PoolSize::of(2));
    let app = app_on(&s.provider, pool.clone());
    let gate = match crash {
        DiesAfter::ChargeRecorded => Some(PaymentGate::close(&s.db, 1).await),
        _ => None,
    };
    match crash {
        DiesAfter::Started => s.provider.inject([ProviderFault::HoldBeforeCharging]),
        DiesAfter::ProviderCharged => s.provider.inject([ProviderFault::AnswerLate]),
        _ => {}
    }
    let request =
        tokio::spawn(async move { stage11::create_payment(&app, A, "order-1", BODY).await });
    match (crash, &gate) {
        (DiesAfter::ChargeRecorded, Some(gate)) => gate.wait_until_held(&s.db, 1).await,
        (DiesAfter::Finished, _) => {
            let what = t!(MESSAGES, "the-first-request");
            let lost = ended(within(BOUND, &what, request).await);
            pool.close().await;
            return Some(answered(&what, lost));
        }
        _ => s.provider.wait_until_held(1).await,
    }
    request.abort();
    let _ = request.await;
    // Let go of what the dead request left behind: its held call (dropped before
    // the charge, or answered into a closed connection), its held INSERT.
    match crash {
        DiesAfter::Started => s.provider.drop_held(),
        DiesAfter::ProviderCharged => s.provider.release_held(),
        _ => {}
    }
    if let Some(gate) = gate {
        gate.open().await;
    }
    within(
        BOUND,
        &t!(MESSAGES, "closing-the-dead-requests-connections"),
        pool.close(),
    )
    .await;
    None
}

// ANCHOR: crash
#[rstest]
#[case::after_started(DiesAfter::Started, 2)]
#[case::after_the_provider_charged(DiesAfter::ProviderCharged, 2)]
#[case::after_the_charge_was_recorded(DiesAfter::ChargeRecorded, 1)]
#[case::after_finished(DiesAfter::Finished, 1)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crash_after_each_phase_is_retried_into_one_charge(
    #[case] crash: DiesAfter,
    #[case] provider_calls: usize,
) {
    let s = setup(PoolSize::of(5)).await;
    let lost = crashed_request(&s, crash).await;
    // The client retries once the dead request's lease has run out.
    s.expire_leases().await;
    let retry = pay(&s.app, A, "order-1", BODY).await;
    let again = pay(&s.app, A, "order-1", BODY).await;

    harness::observe(
        &format!("stage11.crash.{crash:?}"),
        &serde_json::json!({
            "charges": s.charges(),
            "payments": s.db.payment_count().await,
            "provider_calls": s.provider.requests().len(),
        }),
    );
    assert!(
        retry.reply.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-retry-of-a-dead-request-finishes-the-payment",
            got = retry.reply.shown()
        )
    );
    assert!(s.charges() == 1, "{}", s.charged_twice());
    if let Some(lost) = lost {
        assert!(
            retry.reply == lost.reply,
            "{}",
            t!(
                MESSAGES,
                "the-retry-replays-the-lost-answer",
                lost = lost.reply.shown(),
                retry = retry.reply.shown()
            )
        );
    }
    assert!(
        (&again.reply, again.replayed) == (&retry.reply, true),
        "{}",
        t!(
            MESSAGES,
            "every-later-retry-gets-the-same-body",
            before = shown(&retry),
            again = shown(&again)
        )
    );
    let charge = s.provider.charges()[0].id.clone();
    let ids = s.payment_charge_ids().await;
    assert!(
        ids == [charge.clone()],
        "{}",
        t!(
            MESSAGES,
            "one-payment-row-for-the-charge",
            charge = &charge,
            ids = format!("{ids:?}")
        )
    );
    let calls = s.provider.requests().len();
    assert!(
        calls == provider_calls,
        "{}",
        t!(
            MESSAGES,
            "a-retry-resumes-from-the-recovery-point",
            calls = calls,
            expected = provider_calls
        )
    );
}
// ANCHOR_END: crash

// ANCHOR: provider_faults
#[rstest]
#[case::charge_then_drop_answer(ProviderFault::ChargeThenDropAnswer)]
#[case::fail_before_charging(ProviderFault::FailBeforeCharging)]
#[tokio::test]
async fn a_failed_provider_call_is_answered_502_and_the_retry_charges_once(
    #[case] fault: ProviderFault,
) {
    let s = setup(PoolSize::of(5)).await;
    s.provider.inject([fault]);
    let first = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        first.reply.status == 502,
        "{}",
        t!(
            MESSAGES,
            "an-unconfirmed-charge-is-answered-502",
            got = shown(&first)
        )
    );
    assert!(
        first.reply == stage11::provider_failed(),
        "{}",
        t!(
            MESSAGES,
            "never-say-nothing-was-charged",
            expected = stage11::provider_failed().shown(),
            got = first.reply.shown()
        )
    );
    // No lease to wait for: the request that failed let its key go.
    let retry = pay(&s.app, A, "order-1", BODY).await;

    assert!(
        (retry.reply.status, retry.replayed) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "the-retry-takes-a-released-key-over-at-once",
            got = shown(&retry)
        )
    );
    assert!(s.charges() == 1, "{}", s.charged_twice());
    let keys = s.provider_keys();
    assert!(
        keys.len() == 2 && keys[0] == keys[1],
        "{}",
        t!(
            MESSAGES,
            "the-retry-sends-the-first-tries-key",
            keys = format!("{keys:?}")
        )
    );
    let made = s.db.payment_count().await;
    assert!(
        made == 1,
        "{}",
        t!(
            MESSAGES,
            "payments-made-by-now",
            wanted = 1,
            payments = made
        )
    );
}
// ANCHOR_END: provider_faults

// ANCHOR: in_flight
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn duplicates_of_a_request_held_at_the_provider_are_told_409() {
    let s = setup(PoolSize::of(5)).await;
    s.provider.inject([ProviderFault::AnswerLate]);
    let first = {
        let app = s.app.clone();
        tokio::spawn(async move { stage11::create_payment(&app, A, "order-1", BODY).await })
    };
    s.provider.wait_until_held(1).await;
    let started =
        s.db.count(
            "SELECT count(*) FROM idempotency_keys
             WHERE key = 'order-1' AND recovery_point = 'started'",
        )
        .await;
    assert!(
        started == 1,
        "{}",
        t!(
            MESSAGES,
            "the-key-is-committed-started-before-the-call",
            points = format!("{:?}", s.points().await)
        )
    );

    let duplicates = fire_concurrently(19, |_| {
        let app = s.app.clone();
        async move { stage11::create_payment(&app, A, "order-1", BODY).await }
    })
    .await;
    let told_409 = duplicates
        .iter()
        .filter(|d| matches!(d, Ok(answer) if answer.reply.status == 409))
        .count();
    harness::observe(
        "stage11.in_flight",
        &serde_json::json!({ "duplicates_409": told_409 }),
    );
    assert!(
        told_409 == 19,
        "{}",
        t!(
            MESSAGES,
            "duplicates-of-a-live-lease-are-told-409",
            count = told_409,
            got = tally(duplicates.iter().map(shown_result))
        )
    );
    s.provider.release_held();
    let what = t!(MESSAGES, "the-held-request");
    let first = answered(&what, ended(within(BOUND, &what, first).await));
    assert!(
        first.reply.status == 201,
        "{}",
        t!(MESSAGES, "the-held-request-pays", got = shown(&first))
    );
    let retry = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (&retry.reply, retry.replayed) == (&first.reply, true),
        "{}",
        t!(
            MESSAGES,
            "a-retry-replays-the-answer",
            first = shown(&first),
            retry = shown(&retry)
        )
    );
    assert!(s.charges() == 1, "{}", s.charged_twice());
    let made = s.db.payment_count().await;
    assert!(
        made == 1,
        "{}",
        t!(
            MESSAGES,
            "payments-made-by-now",
            wanted = 1,
            payments = made
        )
    );
}
// ANCHOR_END: in_flight

/// Answers as a failure message lists them: each different one once, with how
/// many calls got it (`19 × 409 {...}`).
fn tally(answers: impl Iterator<Item = String>) -> String {
    let mut counted = std::collections::BTreeMap::new();
    for answer in answers {
        *counted.entry(answer).or_insert(0_usize) += 1;
    }
    counted
        .iter()
        .map(|(answer, n)| format!("{n} × {answer}"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn as_reply(answer: Result<Answer, PaymentError>) -> Result<Reply, PaymentError> {
    answer.map(|a| a.reply)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_requests_with_one_key_charge_once() {
    let s = setup(PoolSize::of(20)).await;
    let results: Vec<_> = fire_concurrently(20, |_| {
        let app = s.app.clone();
        async move { stage11::create_payment(&app, A, "order-1", BODY).await }
    })
    .await
    .into_iter()
    .map(as_reply)
    .collect();

    let outcome = Outcome::new(&results, s.db.payment_count().await);
    outcome.record_with(
        "stage11.burst",
        serde_json::json!({ "charges": s.charges() }),
    );
    assert!(s.charges() == 1, "{}", s.charged_twice());
    let said = outcome.to_string();
    assert!(
        outcome.payments == 1,
        "{}",
        t!(MESSAGES, "one-key-one-payment", outcome = &said)
    );
    assert!(
        outcome.count(ReplyKind::Status(201)) + outcome.count(ReplyKind::Status(409)) == 20,
        "{}",
        t!(
            MESSAGES,
            "each-request-gets-the-201-or-409",
            outcome = &said
        )
    );
    let retry = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (retry.reply.status, retry.replayed) == (201, true),
        "{}",
        t!(
            MESSAGES,
            "a-retry-after-the-burst-replays-the-201",
            got = shown(&retry)
        )
    );
}

// ANCHOR: two_clients
#[tokio::test]
async fn the_same_key_from_two_clients_charges_twice() {
    let s = setup(PoolSize::of(5)).await;
    let of_a = pay(&s.app, A, "order-1", BODY).await;
    let of_b = stage11::create_payment(&s.app, B, "order-1", BODY).await;

    let keys = s.provider_keys();
    assert!(
        keys.len() == 2 && keys[0] != keys[1],
        "{}",
        t!(
            MESSAGES,
            "two-clients-reach-the-provider-as-two-keys",
            got = shown_result(&of_b),
            keys = format!("{keys:?}")
        )
    );
    let of_b = answered(&t!(MESSAGES, "bs-payment"), of_b);
    assert!(
        (of_a.reply.status, of_b.reply.status) == (201, 201),
        "{}",
        t!(
            MESSAGES,
            "two-clients-two-payments",
            of_a = shown(&of_a),
            of_b = shown(&of_b)
        )
    );
    let charges = s.charges();
    assert!(
        charges == 2,
        "{}",
        t!(MESSAGES, "one-charge-per-client", charges = charges)
    );
    let made = s.db.payment_count().await;
    assert!(
        made == 2,
        "{}",
        t!(
            MESSAGES,
            "payments-made-by-now",
            wanted = 2,
            payments = made
        )
    );
}
// ANCHOR_END: two_clients

#[tokio::test]
async fn the_same_key_with_another_body_is_refused_without_a_charge() {
    let s = setup(PoolSize::of(5)).await;
    let first = pay(&s.app, A, "order-1", BODY).await;
    let other = pay(&s.app, A, "order-1", r#"{"orderId":1,"amount":999}"#).await;

    assert!(
        first.reply.status == 201,
        "{}",
        t!(MESSAGES, "the-first-request-pays", got = shown(&first))
    );
    assert!(
        other.reply == Reply::key_reused(),
        "{}",
        t!(
            MESSAGES,
            "another-body-with-a-used-key-is-refused",
            got = shown(&other)
        )
    );
    let charges = s.charges();
    assert!(
        charges == 1,
        "{}",
        t!(
            MESSAGES,
            "the-refused-request-charges-nothing",
            charges = charges
        )
    );
    let calls = s.provider.requests().len();
    assert!(
        calls == 1,
        "{}",
        t!(
            MESSAGES,
            "the-refused-request-does-not-ask-the-provider",
            calls = calls
        )
    );
}

// ANCHOR: slow_provider
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_slow_provider_does_not_starve_requests_for_other_keys() {
    let size = PoolSize::of(5).with_acquire_timeout(Duration::from_secs(2));
    let s = setup(size).await;
    // Five payments, as many as the pool has connections, each held at the provider.
    s.provider.inject([ProviderFault::AnswerLate; 5]);
    let slow: Vec<_> = (1..=5)
        .map(|i| {
            let app = s.app.clone();
            tokio::spawn(async move {
                let key = format!("slow-{i}");
                stage11::create_payment(&app, A, &key, BODY).await
            })
        })
        .collect();
    s.provider.wait_until_held(5).await;
    let state = s.db.describe(&s.app.pool).await;

    let unrelated = as_reply(
        within(
            size.acquire_timeout + BOUND,
            &t!(MESSAGES, "the-request-for-another-key"),
            stage11::create_payment(&s.app, A, "other-key", BODY),
        )
        .await,
    );
    let unrelated = ReplyKind::of(&unrelated);
    harness::observe(
        "stage11.slow_provider",
        &serde_json::json!({ "unrelated": unrelated.to_string() }),
    );
    s.provider.release_held();
    for request in slow {
        let answer = ended(
            within(
                BOUND,
                &t!(MESSAGES, "a-slow-request-once-released"),
                request,
            )
            .await,
        );
        assert!(
            answer.as_ref().map(|a| a.reply.status).ok() == Some(201),
            "{}",
            t!(
                MESSAGES,
                "a-slow-request-pays-once-released",
                got = shown_result(&answer)
            )
        );
    }
    assert!(
        unrelated == ReplyKind::Status(201),
        "{}",
        t!(
            MESSAGES,
            "another-key-is-starved-by-a-slow-provider",
            got = unrelated.said(),
            state = &state
        )
    );
    let charges = s.charges();
    assert!(
        charges == 6,
        "{}",
        t!(
            MESSAGES,
            "five-slow-payments-and-the-other-keys",
            charges = charges
        )
    );
}
// ANCHOR_END: slow_provider

// ANCHOR: fencing
#[tokio::test]
async fn a_request_that_was_taken_over_writes_nothing() {
    let s = setup(PoolSize::of(5)).await;
    let hash = stage4_hash(BODY);
    let reserve = || stage11::reserve(&s.app, A, "order-1", &hash);
    let Some(first) = ran("reserve", reserve().await) else {
        panic!("{}", t!(MESSAGES, "a-new-key-is-reserved"));
    };
    // The first request stalls past its lease; a retry takes the key over.
    s.expire_leases().await;
    let Some(second) = ran("reserve", reserve().await) else {
        panic!("{}", t!(MESSAGES, "a-dead-key-is-taken-over"));
    };
    assert!(
        first.lease != second.lease,
        "{}",
        t!(
            MESSAGES,
            "a-takeover-gives-a-new-lease-number",
            lease = first.lease.0.to_string()
        )
    );

    // The stalled request wakes up, and tries each write it could still make.
    let released = stage11::release(&s.app.pool, A, "order-1", first.lease).await;
    ran("release", released);
    let duplicate = ran("reserve", reserve().await);
    assert!(
        duplicate.is_none(),
        "{}",
        t!(MESSAGES, "a-stale-release-ends-the-new-owners-lease")
    );
    let recorded = ran(
        "record_charge",
        stage11::record_charge(&s.app.pool, A, "order-1", first.lease, "ch_stale").await,
    );
    assert!(
        !recorded,
        "{}",
        t!(MESSAGES, "a-stale-request-records-no-charge")
    );
    let pending = stage11::payment_pending();
    let refused = stage11::payment_refused(402);
    let stale_refusal = stage11::refuse(&s.app.pool, A, "order-1", first.lease, &refused).await;
    let stale_set_aside =
        stage11::set_aside(&s.app.pool, A, "order-1", first.lease, &pending).await;
    let stored = (
        ran("refuse", stale_refusal),
        ran("set_aside", stale_set_aside),
    );
    assert!(
        stored == (false, false),
        "{}",
        t!(
            MESSAGES,
            "a-stale-request-stores-no-final-answer",
            refused = stored.0.to_string(),
            set_aside = stored.1.to_string()
        )
    );
    let untouched =
        s.db.count(
            "SELECT count(*) FROM idempotency_keys
             WHERE recovery_point = 'started' AND charge_id IS NULL",
        )
        .await;
    assert!(
        untouched == 1,
        "{}",
        t!(
            MESSAGES,
            "the-key-is-as-its-new-owner-left-it",
            points = format!("{:?}", s.points().await)
        )
    );
    // The request that took the key over records its charge; the stalled one
    // tries to finish with its own.
    let ours = stage11::record_charge(&s.app.pool, A, "order-1", second.lease, "ch_ours").await;
    assert!(
        ran("record_charge", ours),
        "{}",
        t!(MESSAGES, "the-new-owner-records-its-charge")
    );
    let request = payment_model::PaymentRequest::parse(BODY).expect("the test's body");
    let stale = ran(
        "finish",
        stage11::finish(
            &s.app.pool,
            A,
            "order-1",
            &hash,
            first.lease,
            &request,
            "ch_stale",
        )
        .await,
    );
    let payments = s.db.payment_count().await;
    assert!(
        (&stale.reply, payments) == (&Reply::in_flight(), 0),
        "{}",
        t!(
            MESSAGES,
            "a-stale-request-writes-no-payment",
            got = stale.reply.shown(),
            payments = payments
        )
    );
}

/// What one of the phases returned, when it must run: it fails the test, naming
/// the phase (`reserve`, `release`...), when it returned an error.
fn ran<T>(phase: &str, result: Result<T, PaymentError>) -> T {
    result.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "a-phase-failed",
                phase = phase,
                error = e.to_string()
            )
        )
    })
}
// ANCHOR_END: fencing

fn stage4_hash(body: &str) -> String {
    stage4::request_hash(body).expect("the test's body is a payment")
}

// ANCHOR: taken_over_release
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_request_taken_over_does_not_end_the_lease_of_the_request_that_took_the_key() {
    let s = setup(PoolSize::of(5)).await;
    // The first request's call is stuck on its way to the provider.
    s.provider.inject([ProviderFault::HoldBeforeCharging]);
    let first = spawn_payment(&s.app);
    s.provider.wait_until_held(1).await;
    // Its lease runs out; the client's retry takes the key over, and the
    // provider charges it, its answer on the way.
    s.expire_leases().await;
    s.provider.inject([ProviderFault::AnswerLate]);
    let second = spawn_payment(&s.app);
    s.provider.wait_until_held_by(2, &second).await;
    // The first call fails at last: the first request releases its lease, and
    // learns that it was no longer its own.
    s.provider.drop_first_held();
    let what = t!(MESSAGES, "the-first-request");
    let first = answered(&what, ended(within(BOUND, &what, first).await));
    assert!(
        first.reply == Reply::in_flight(),
        "{}",
        t!(
            MESSAGES,
            "a-request-taken-over-answers-from-the-key",
            got = first.reply.shown()
        )
    );

    let duplicate = pay(&s.app, A, "order-1", BODY).await;
    harness::observe(
        "stage11.taken_over_release",
        &serde_json::json!({ "duplicate": duplicate.reply.status }),
    );
    assert!(
        duplicate.reply.status == 409,
        "{}",
        t!(
            MESSAGES,
            "a-stale-release-lets-a-duplicate-in",
            got = duplicate.reply.shown()
        )
    );
    s.provider.release_held();
    let what = t!(MESSAGES, "the-request-that-took-the-key-over");
    let second = answered(&what, ended(within(BOUND, &what, second).await));
    assert!(
        second.reply.status == 201,
        "{}",
        t!(MESSAGES, "the-new-owner-pays", got = shown(&second))
    );
    assert!(s.charges() == 1, "{}", s.charged_twice());
    let payments = s.db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "a-stale-release-lets-no-second-payment-in",
            payments = payments
        )
    );
}
// ANCHOR_END: taken_over_release

fn spawn_payment(app: &App) -> tokio::task::JoinHandle<Result<Answer, PaymentError>> {
    let app = app.clone();
    tokio::spawn(async move { stage11::create_payment(&app, A, "order-1", BODY).await })
}

/// What the provider keeps as its answer for the key.
#[derive(Debug, Clone, Copy)]
enum SavedRefusal {
    /// A declined card (402), saved at once.
    Decline,
    /// An error inside the provider (500), saved: the first answer does not say
    /// it is final, the replay does; and neither says whether it charged.
    Error,
}

// ANCHOR: saved_refusal
#[rstest]
#[case::a_declined_card(SavedRefusal::Decline, ProviderFault::Decline, 1)]
#[case::a_saved_error(SavedRefusal::Error, ProviderFault::FailWhileCharging, 2)]
#[tokio::test]
async fn a_refusal_the_provider_keeps_is_the_keys_final_answer(
    #[case] refusal: SavedRefusal,
    #[case] fault: ProviderFault,
    #[case] provider_calls: usize,
) {
    let s = setup(PoolSize::of(5)).await;
    s.provider.inject([fault]);
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(pay(&s.app, A, "order-1", BODY).await);
    }
    let statuses: Vec<u16> = answers.iter().map(|a| a.reply.status).collect();
    harness::observe(
        &format!("stage11.saved_refusal.{refusal:?}"),
        &serde_json::json!({
            "statuses": statuses,
            "last": statuses.last(),
            "provider_calls": s.provider.requests().len(),
        }),
    );
    let expected = match refusal {
        SavedRefusal::Decline => [402, 402, 402],
        SavedRefusal::Error => [502, 202, 202],
    };
    assert!(
        statuses == expected,
        "{}",
        t!(
            MESSAGES,
            "a-kept-refusal-is-final",
            expected = format!("{expected:?}"),
            got = format!("{statuses:?}"),
            answers = answers.iter().map(shown).collect::<Vec<_>>().join("; ")
        )
    );
    let last = answers.last().expect("three answers");
    let before = &answers[answers.len() - 2];
    assert!(
        (&last.reply, last.replayed) == (&before.reply, true),
        "{}",
        t!(
            MESSAGES,
            "the-final-answer-is-stored-and-replayed",
            before = shown(before),
            last = shown(last)
        )
    );
    let calls = s.provider.requests().len();
    assert!(
        calls == provider_calls,
        "{}",
        t!(
            MESSAGES,
            "a-stored-refusal-is-replayed-without-asking-the-provider",
            calls = calls,
            expected = provider_calls
        )
    );
    let charges = s.charges();
    assert!(
        charges == 0,
        "{}",
        t!(MESSAGES, "nothing-was-charged", charges = charges)
    );
    let payments = s.db.payment_count().await;
    assert!(
        payments == 0,
        "{}",
        t!(MESSAGES, "no-payment-was-written", payments = payments)
    );
}
// ANCHOR_END: saved_refusal

// ANCHOR: provider_409
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_charge_still_running_at_the_provider_is_told_409_and_a_later_retry_charges_once() {
    let s = setup(PoolSize::of(5)).await;
    // The first request's charge is executing at the provider, slowly.
    s.provider.inject([ProviderFault::HoldWhileCharging]);
    let first = spawn_payment(&s.app);
    s.provider.wait_until_held(1).await;
    // Its lease runs out; the client's retry takes the key over and asks the
    // provider with the same key while the first charge still runs.
    s.expire_leases().await;
    let second = pay(&s.app, A, "order-1", BODY).await;
    let calls = s.provider.requests().len();
    assert!(
        calls == 2,
        "{}",
        t!(
            MESSAGES,
            "the-retry-takes-the-key-over-and-asks-the-provider",
            got = second.reply.shown()
        )
    );
    assert!(
        second.reply == Reply::in_flight(),
        "{}",
        t!(
            MESSAGES,
            "the-providers-409-is-answered-409",
            got = second.reply.shown()
        )
    );
    s.provider.release_held();
    let what = t!(MESSAGES, "the-first-request");
    let first = answered(&what, ended(within(BOUND, &what, first).await));
    assert!(
        first.reply == Reply::in_flight(),
        "{}",
        t!(
            MESSAGES,
            "a-request-taken-over-records-nothing",
            got = first.reply.shown()
        )
    );
    let retry = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (retry.reply.status, retry.replayed) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "a-later-retry-charges-once-and-pays",
            got = shown(&retry)
        )
    );
    assert!(s.charges() == 1, "{}", s.charged_twice());
    let payments = s.db.payment_count().await;
    assert!(
        payments == 1,
        "{}",
        t!(
            MESSAGES,
            "the-providers-409-ends-in-one-payment",
            payments = payments
        )
    );
}
// ANCHOR_END: provider_409

// ANCHOR: reaper
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_reaper_deletes_old_finished_keys_and_never_a_charged_one() {
    let s = setup(PoolSize::of(5)).await;
    let done = pay(&s.app, A, "order-2", r#"{"orderId":2,"amount":100}"#).await;
    assert!(
        done.reply.status == 201,
        "{}",
        t!(MESSAGES, "the-first-request-pays", got = shown(&done))
    );
    // A request dies after recording its charge, and no retry comes for days.
    crashed_request(&s, DiesAfter::ChargeRecorded).await;
    s.expire_leases().await;
    s.age_keys().await;

    let reaped = s.reap().await;
    harness::observe(
        "stage11.reaper",
        &serde_json::json!({
            "deleted": reaped.deleted,
            "stranded": reaped.stranded.len(),
        }),
    );
    let charged =
        s.db.count("SELECT count(*) FROM idempotency_keys WHERE recovery_point = 'charged'")
            .await;
    assert!(
        charged == 1,
        "{}",
        t!(MESSAGES, "the-reaper-keeps-a-charged-key")
    );
    assert!(
        reaped.deleted == 1,
        "{}",
        t!(
            MESSAGES,
            "the-old-finished-key-is-deleted",
            deleted = reaped.deleted
        )
    );
    let keys: Vec<_> = reaped.stranded.iter().map(|k| k.key.as_str()).collect();
    assert!(
        keys == ["order-1"],
        "{}",
        t!(
            MESSAGES,
            "the-charged-key-is-listed-for-reconciliation",
            keys = format!("{keys:?}")
        )
    );

    let retry = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (retry.reply.status, retry.replayed) == (201, false),
        "{}",
        t!(
            MESSAGES,
            "the-kept-charged-key-is-taken-over-and-finished",
            got = shown(&retry)
        )
    );
    let charges = s.charges();
    assert!(
        charges == 2,
        "{}",
        t!(
            MESSAGES,
            "the-old-payments-charge-and-this-ones",
            charges = charges
        )
    );
    let calls = s.provider.requests().len();
    assert!(
        calls == 2,
        "{}",
        t!(MESSAGES, "the-retry-resumed-from-charged", calls = calls)
    );
    let payments = s.db.payment_count().await;
    assert!(
        payments == 2,
        "{}",
        t!(
            MESSAGES,
            "the-old-payment-and-the-retrys",
            payments = payments
        )
    );
}
// ANCHOR_END: reaper

// ANCHOR: retention_from_finish
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_finished_today_replays_for_the_whole_retention_however_old_it_is() {
    let s = setup(PoolSize::of(5)).await;
    // A request dies after recording its charge; its retry comes two days later.
    crashed_request(&s, DiesAfter::ChargeRecorded).await;
    s.expire_leases().await;
    s.age_keys().await;
    let finished = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        finished.reply.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-retry-of-a-dead-request-finishes-the-payment",
            got = finished.reply.shown()
        )
    );

    let reaped = s.reap().await;
    assert!(
        reaped.deleted == 0,
        "{}",
        t!(MESSAGES, "retention-counts-from-finished-at")
    );
    let again = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (&again.reply, again.replayed) == (&finished.reply, true),
        "{}",
        t!(
            MESSAGES,
            "a-retry-replays-the-answer",
            first = shown(&finished),
            retry = shown(&again)
        )
    );
    let calls = s.provider.requests().len();
    assert!(
        calls == 1,
        "{}",
        t!(
            MESSAGES,
            "a-finished-key-does-not-ask-the-provider",
            calls = calls
        )
    );
}
// ANCHOR_END: retention_from_finish

const OTHER_AMOUNT: &str = r#"{"orderId":1,"amount":999}"#;

/// What the provider still knows of a key when its client uses it again, once
/// our row of it was reaped.
#[derive(Debug, Clone, Copy)]
enum ReusedWith {
    /// The same body, while the provider still remembers its key.
    SameBody,
    /// Another amount, while the provider still remembers the first one's key.
    AnotherAmount,
    /// The same body, once the provider forgot its key too.
    SameBodyProviderForgot,
}

impl ReusedWith {
    /// The case as the messages name it (a selector of theirs).
    fn id(self) -> &'static str {
        match self {
            Self::SameBody => "same-body",
            Self::AnotherAmount => "another-amount",
            Self::SameBodyProviderForgot => "same-body-provider-forgot",
        }
    }
}

// ANCHOR: reused_key
#[rstest]
#[case::the_same_body(ReusedWith::SameBody)]
#[case::another_amount(ReusedWith::AnotherAmount)]
#[case::the_same_body_once_the_provider_forgot(ReusedWith::SameBodyProviderForgot)]
#[tokio::test]
async fn a_key_used_again_after_the_reaper_deleted_it_is_answered(#[case] reuse: ReusedWith) {
    let s = setup(PoolSize::of(5)).await;
    let first = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        first.reply.status == 201,
        "{}",
        t!(MESSAGES, "the-first-request-pays", got = shown(&first))
    );
    s.age_keys().await;
    let deleted = s.reap().await.deleted;
    assert!(
        deleted == 1,
        "{}",
        t!(MESSAGES, "the-key-is-past-its-retention", deleted = deleted)
    );
    if let ReusedWith::SameBodyProviderForgot = reuse {
        s.provider.forget_keys();
    }
    let body = match reuse {
        ReusedWith::AnotherAmount => OTHER_AMOUNT,
        _ => BODY,
    };

    let reused = within(
        BOUND,
        &t!(MESSAGES, "create-payment-with-the-reused-key"),
        stage11::create_payment(&s.app, A, "order-1", body),
    )
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-reused-key-failed",
                error = e.to_string(),
                keys = format!("{:?}", s.provider_keys())
            )
        )
    });
    let again = pay(&s.app, A, "order-1", body).await;
    let (charges, payments, answer) = match reuse {
        // The provider says it is the first payment: it is, played again.
        ReusedWith::SameBody => (1, 1, (&first.reply, true)),
        // Another payment, charged under another provider key.
        ReusedWith::AnotherAmount | ReusedWith::SameBodyProviderForgot => {
            (2, 2, (&reused.reply, false))
        }
    };
    let made = (reused.reply.status, s.charges(), s.db.payment_count().await);
    assert!(
        made == (201, charges, payments),
        "{}",
        t!(
            MESSAGES,
            "a-reused-key-is-paid-once",
            reuse = reuse.id(),
            got = shown(&reused),
            charges = made.1,
            payments = made.2,
            keys = format!("{:?}", s.provider_keys())
        )
    );
    assert!(
        (&reused.reply, reused.replayed) == answer,
        "{}",
        t!(
            MESSAGES,
            "a-reused-key-gets-its-answer",
            reuse = reuse.id(),
            got = shown(&reused),
            first = shown(&first)
        )
    );
    assert!(
        (&again.reply, again.replayed) == (&reused.reply, true),
        "{}",
        t!(
            MESSAGES,
            "a-retry-replays-the-answer",
            first = shown(&reused),
            retry = shown(&again)
        )
    );
}
// ANCHOR_END: reused_key

// ANCHOR: another_body_after_a_crash
#[rstest]
#[case::after_the_provider_charged(DiesAfter::ProviderCharged)]
#[case::after_the_charge_was_recorded(DiesAfter::ChargeRecorded)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dead_requests_key_is_not_taken_over_with_another_body(#[case] crash: DiesAfter) {
    let s = setup(PoolSize::of(5)).await;
    crashed_request(&s, crash).await;
    s.expire_leases().await;

    let other = pay(&s.app, A, "order-1", OTHER_AMOUNT).await;
    let charges = s.charges();
    assert!(
        (&other.reply, charges) == (&Reply::key_reused(), 1),
        "{}",
        t!(
            MESSAGES,
            "a-dead-key-is-not-taken-over-with-another-body",
            got = shown(&other),
            charges = charges
        )
    );
    let retry = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        (retry.reply.status, &retry.reply.body["amount"]) == (201, &serde_json::json!(100)),
        "{}",
        t!(
            MESSAGES,
            "the-retry-with-the-first-body-finishes-the-payment",
            got = shown(&retry)
        )
    );
    let made = (s.charges(), s.db.payment_count().await);
    assert!(
        made == (1, 1),
        "{}",
        t!(
            MESSAGES,
            "one-charge-one-payment",
            charges = made.0,
            payments = made.1
        )
    );
}
// ANCHOR_END: another_body_after_a_crash

// ANCHOR: forgotten_key
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_started_key_the_provider_may_have_forgotten_is_set_aside_not_charged_again() {
    let s = setup(PoolSize::of(5)).await;
    // The provider charged; the request died before its answer arrived, and no
    // retry came for two days: the provider has pruned its key since.
    crashed_request(&s, DiesAfter::ProviderCharged).await;
    s.expire_leases().await;
    s.age_keys().await;
    s.provider.forget_keys();

    let retry = pay(&s.app, A, "order-1", BODY).await;
    let again = pay(&s.app, A, "order-1", BODY).await;
    let asked = (s.charges(), s.provider.requests().len());
    assert!(
        asked == (1, 1),
        "{}",
        t!(
            MESSAGES,
            "a-forgotten-key-is-not-asked-again",
            got = retry.reply.shown(),
            charges = asked.0,
            calls = asked.1
        )
    );
    let pending = stage11::payment_pending();
    assert!(
        (&retry.reply, retry.replayed) == (&pending, false),
        "{}",
        t!(
            MESSAGES,
            "a-forgotten-key-is-set-aside",
            expected = pending.shown(),
            got = shown(&retry)
        )
    );
    assert!(
        (&again.reply, again.replayed) == (&retry.reply, true),
        "{}",
        t!(
            MESSAGES,
            "every-later-retry-gets-the-same-body",
            before = shown(&retry),
            again = shown(&again)
        )
    );
    let reaped = s.reap().await;
    let listed: Vec<_> = reaped
        .stranded
        .iter()
        .map(|k| (k.key.as_str(), k.recovery_point.as_str()))
        .collect();
    assert!(
        listed == [("order-1", "unknown")],
        "{}",
        t!(
            MESSAGES,
            "the-reaper-lists-the-set-aside-key",
            listed = format!("{listed:?}")
        )
    );
}
// ANCHOR_END: forgotten_key

// ANCHOR: outlived_key
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_request_that_outlived_its_key_writes_nothing_into_the_keys_next_use() {
    let s = setup(PoolSize::of(5)).await;
    // Request A's call is stuck on its way to the provider; its lease runs out,
    // and the client's retry takes the key over and pays.
    s.provider.inject([ProviderFault::HoldBeforeCharging]);
    let stalled = spawn_pay(&s.app, BODY);
    s.provider.wait_until_held(1).await;
    s.expire_leases().await;
    let paid = pay(&s.app, A, "order-1", BODY).await;
    assert!(
        paid.reply.status == 201,
        "{}",
        t!(
            MESSAGES,
            "the-retry-of-a-dead-request-finishes-the-payment",
            got = paid.reply.shown()
        )
    );
    // Days later the key is reaped, and the client uses it again for another
    // payment, whose charge is made, its answer on the way.
    s.age_keys().await;
    let deleted = s.reap().await.deleted;
    assert!(
        deleted == 1,
        "{}",
        t!(MESSAGES, "the-key-is-past-its-retention", deleted = deleted)
    );
    s.provider.inject([ProviderFault::AnswerLate]);
    let next = spawn_pay(&s.app, OTHER_AMOUNT);
    s.provider.wait_until_held_by(2, &next).await;

    // A wakes up at last: the provider replays the first payment's charge to it.
    s.provider.release_first_held();
    let stalled = ended(within(BOUND, &t!(MESSAGES, "the-stalled-request"), stalled).await);
    s.provider.release_held();
    let what = t!(MESSAGES, "the-keys-next-use");
    let next = answered(&what, ended(within(BOUND, &what, next).await));
    assert!(
        (next.reply.status, &next.reply.body["amount"]) == (201, &serde_json::json!(999)),
        "{}",
        t!(
            MESSAGES,
            "a-request-that-outlived-its-key-writes-nothing",
            got = shown(&next),
            stalled = shown_result(&stalled)
        )
    );
    let ids = s.payment_charge_ids().await;
    assert!(
        ids == ["ch_1", "ch_2"],
        "{}",
        t!(MESSAGES, "one-payment-per-charge", ids = format!("{ids:?}"))
    );
}
// ANCHOR_END: outlived_key

fn spawn_pay(
    app: &App,
    body: &'static str,
) -> tokio::task::JoinHandle<Result<Answer, PaymentError>> {
    let app = app.clone();
    tokio::spawn(async move { stage11::create_payment(&app, A, "order-1", body).await })
}

// ANCHOR: reaped_under_a_read
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_reaped_between_its_reservation_and_its_read_is_reserved_anew() {
    let s = setup(PoolSize::of(5)).await;
    let first = pay(&s.app, A, "order-1", BODY).await;
    s.age_keys().await;
    // The retry runs on a pool of one connection that stops it the second time
    // it asks for a connection: after its reservation found the finished key,
    // before it reads the key's answer.
    let (paused, go) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let hook = (paused.clone(), go.clone(), Arc::new(AtomicBool::new(false)));
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .before_acquire(move |_, _| {
            let (paused, go, done) = hook.clone();
            Box::pin(async move {
                if !done.swap(true, Ordering::SeqCst) {
                    let resumed = go.notified();
                    paused.notify_one();
                    let _ = tokio::time::timeout(BOUND, resumed).await;
                }
                Ok(true)
            })
        })
        .connect_lazy_with(s.db.options().clone());
    let app = app_on(&s.provider, pool);
    let retry =
        tokio::spawn(async move { stage11::create_payment(&app, A, "order-1", BODY).await });
    within(
        BOUND,
        &t!(MESSAGES, "the-retry-reading-the-key"),
        paused.notified(),
    )
    .await;
    // The reaper deletes the key now.
    let deleted = s.reap().await.deleted;
    assert!(
        deleted == 1,
        "{}",
        t!(MESSAGES, "the-key-is-past-its-retention", deleted = deleted)
    );
    go.notify_one();

    let retry = ended(within(BOUND, &t!(MESSAGES, "the-retry"), retry).await).unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "a-key-reaped-under-a-read-is-reserved-anew",
                error = e.to_string()
            )
        )
    });
    let made = (s.charges(), s.db.payment_count().await);
    assert!(
        (&retry.reply, made.0, made.1) == (&first.reply, 1, 1),
        "{}",
        t!(
            MESSAGES,
            "reserved-anew-the-key-replays-the-first-charge",
            first = shown(&first),
            got = shown(&retry),
            charges = made.0,
            payments = made.1
        )
    );
}
// ANCHOR_END: reaped_under_a_read

/// What one provider answer means, as the route must read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meaning {
    /// The card was charged: a payment, 201.
    Charged,
    /// Turned away before the provider's idempotency layer, or a request of
    /// ours it refused without keeping the refusal: nothing was charged, and
    /// the retry with the same key charges.
    NotChargedRetry,
    /// The provider's final answer leaves the charge unknown: the key is set
    /// aside for reconciliation (202), and never sent to the provider again.
    Unknown,
    /// The provider's final refusal for the key: nothing was charged (402).
    Refused,
}

impl Meaning {
    /// The meaning as the messages name it (a selector of theirs).
    fn id(self) -> &'static str {
        match self {
            Self::Charged => "charged",
            Self::NotChargedRetry => "not-charged-retry",
            Self::Unknown => "unknown",
            Self::Refused => "refused",
        }
    }
}

// ANCHOR: provider_answers
#[rstest]
#[case::created_201(ProviderFault::ChargeAnswering(201), Meaning::Charged)]
#[case::accepted_202(ProviderFault::ChargeAnswering(202), Meaning::Charged)]
#[case::ok_without_a_charge_id(ProviderFault::ChargeWithoutId, Meaning::Unknown)]
#[case::too_many_requests_429(ProviderFault::TurnAway(429), Meaning::NotChargedRetry)]
#[case::request_timeout_408(ProviderFault::TurnAway(408), Meaning::NotChargedRetry)]
#[case::bad_request_400(ProviderFault::TurnAway(400), Meaning::NotChargedRetry)]
#[case::unauthorized_401(ProviderFault::TurnAway(401), Meaning::NotChargedRetry)]
#[case::forbidden_403(ProviderFault::TurnAway(403), Meaning::NotChargedRetry)]
#[case::not_found_404(ProviderFault::TurnAway(404), Meaning::NotChargedRetry)]
#[case::a_redirect_307(ProviderFault::TurnAway(307), Meaning::NotChargedRetry)]
#[case::a_kept_refusal_400(ProviderFault::RefuseWhileCharging(400), Meaning::Refused)]
#[case::charged_then_a_kept_500(ProviderFault::ChargeThenFail, Meaning::Unknown)]
#[tokio::test]
async fn each_provider_answer_is_read_for_what_it_says_about_the_card(
    #[case] fault: ProviderFault,
    #[case] meaning: Meaning,
) {
    let s = setup(PoolSize::of(5)).await;
    s.provider.inject([fault]);
    let first = pay(&s.app, A, "order-1", BODY).await;
    let retry = pay(&s.app, A, "order-1", BODY).await;
    let again = pay(&s.app, A, "order-1", BODY).await;

    let statuses = [first.reply.status, retry.reply.status, again.reply.status];
    let charged = usize::from(matches!(
        fault,
        ProviderFault::ChargeAnswering(_)
            | ProviderFault::ChargeWithoutId
            | ProviderFault::ChargeThenFail
    ));
    // What the client must be told, and how many calls the provider gets.
    let (expected, calls, charges, payments) = match meaning {
        Meaning::Charged => ([201, 201, 201], 1, 1, 1),
        Meaning::NotChargedRetry => ([502, 201, 201], 2, 1, 1),
        Meaning::Unknown if fault == ProviderFault::ChargeThenFail => ([502, 202, 202], 2, 1, 0),
        Meaning::Unknown => ([202, 202, 202], 1, charged, 0),
        Meaning::Refused => ([502, 402, 402], 2, 0, 0),
    };
    let got = (
        statuses,
        s.provider.requests().len(),
        s.charges(),
        s.db.payment_count().await,
    );
    assert!(
        got == (expected, calls, charges, payments),
        "{}",
        t!(
            MESSAGES,
            "a-provider-answer-read-for-what-it-says",
            fault = format!("{fault:?}"),
            meaning = meaning.id(),
            expected = format!("{expected:?}"),
            calls = calls,
            charges = charges,
            payments = payments,
            got = format!("{:?}", got.0),
            got_calls = got.1,
            got_charges = got.2,
            got_payments = got.3,
            answers = [&first, &retry, &again].map(shown).join("; ")
        )
    );
    if meaning == Meaning::NotChargedRetry {
        let not_charged = stage11::provider_not_charged();
        assert!(
            first.reply == not_charged,
            "{}",
            t!(
                MESSAGES,
                "nothing-was-charged-say-so",
                expected = not_charged.shown(),
                got = first.reply.shown()
            )
        );
    }
    if meaning == Meaning::Unknown {
        let points = s.points().await;
        let pending = stage11::payment_pending();
        assert!(
            (&again.reply, again.replayed, &points)
                == (
                    &pending,
                    true,
                    &vec![("order-1".to_owned(), "unknown".to_owned())]
                ),
            "{}",
            t!(
                MESSAGES,
                "an-unknown-charge-is-set-aside",
                expected = pending.shown(),
                got = shown(&again),
                points = format!("{points:?}")
            )
        );
    }
}
// ANCHOR_END: provider_answers

#[tokio::test]
async fn the_provider_client_returns_the_charge_id_or_why_there_is_none() {
    let s = setup(PoolSize::of(5)).await;
    s.provider
        .inject([ProviderFault::Pass, ProviderFault::Decline]);
    let charged = s.app.provider.charge("key-1", 100).await;
    let declined = s.app.provider.charge("key-2", 100).await;
    let got = format!("{charged:?}");
    assert!(
        charged.ok().as_deref() == Some("ch_1"),
        "{}",
        t!(
            MESSAGES,
            "the-charges-id-from-the-providers-answer",
            got = got
        )
    );
    assert!(
        matches!(
            declined,
            Err(stage11::ProviderError::Declined { status: 402, .. })
        ),
        "{}",
        t!(
            MESSAGES,
            "a-declined-card-is-a-final-refusal",
            got = format!("{declined:?}")
        )
    );
}

// ANCHOR: replayed_false
#[tokio::test]
async fn an_answer_marked_idempotent_replayed_false_is_not_a_replay() {
    let s = setup(PoolSize::of(5)).await;
    s.provider.say_not_replayed();
    s.provider.inject([ProviderFault::FailBeforeCharging]);
    let first = pay(&s.app, A, "order-1", BODY).await;
    let retry = pay(&s.app, A, "order-1", BODY).await;
    let charges = s.charges();
    assert!(
        (first.reply.status, retry.reply.status, charges) == (502, 201, 1),
        "{}",
        t!(
            MESSAGES,
            "replayed-false-is-not-a-replay",
            first = shown(&first),
            retry = shown(&retry),
            charges = charges
        )
    );
}
// ANCHOR_END: replayed_false
