//! Stage 11's given parts: the client of the payment provider, and what the route
//! needs to run (its pool, that client, its settings). The exercise and the model
//! answer share them; the phases of a payment are the stage's lesson, in each
//! package's `payment.rs`.

use std::time::Duration;

use payment_model::{Reply, problem};
use serde_json::{Value, json};
use sqlx::PgPool;

/// The route's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// How long a request that reserved a key is presumed alive. A request that
    /// finds the key unfinished and its lease expired takes it over, and resumes
    /// from the key's recovery point. Longer than `provider_timeout`, so that a
    /// request still waiting for the provider is never taken over.
    pub lease: Duration,
    /// How long one call to the provider may take before it counts as failed.
    pub provider_timeout: Duration,
    /// How long after its first use a `started` key may still be resumed through
    /// the provider. Shorter than the provider keeps its idempotency keys (Stripe:
    /// "at least 24 hours"), by more than a lease: past it, the provider may have
    /// forgotten the key, and asking it again could charge the card a second time.
    pub resume_window: Duration,
    /// How long a finished key replays its answer, counted from when it finished,
    /// before the reaper deletes it.
    pub retention: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            provider_timeout: Duration::from_secs(10),
            resume_window: Duration::from_secs(23 * 60 * 60),
            retention: Duration::from_secs(24 * 60 * 60),
        }
    }
}

impl Config {
    /// The lease as a PostgreSQL `interval` literal, in whole milliseconds: bound
    /// as text and cast with `$n::interval`.
    pub fn lease_interval(&self) -> String {
        interval(self.lease)
    }

    /// The resume window, as [`Config::lease_interval`] gives the lease.
    pub fn resume_window_interval(&self) -> String {
        interval(self.resume_window)
    }

    /// The retention window, as [`Config::lease_interval`] gives the lease.
    pub fn retention_interval(&self) -> String {
        interval(self.retention)
    }
}

fn interval(span: Duration) -> String {
    format!("{} milliseconds", span.as_millis())
}

/// Everything a payment needs: the database, the provider, the settings.
#[derive(Debug, Clone)]
pub struct App {
    pub pool: PgPool,
    pub provider: Provider,
    pub config: Config,
}

impl App {
    /// The app with a provider client for `provider_url` (e.g. `http://127.0.0.1:4000`).
    pub fn new(pool: PgPool, provider_url: &str, config: Config) -> Result<Self, ProviderError> {
        let provider = Provider::new(provider_url, config.provider_timeout)?;
        Ok(Self {
            pool,
            provider,
            config,
        })
    }
}

// ANCHOR: provider_error
/// Why the provider did not confirm a charge, sorted by what it means for the
/// card (charged, not charged, unknown) and for a retry with the same provider
/// key (can it change the answer?).
///
/// Stripe's v1 API saves the status and body of the first request with a key
/// once its endpoint began executing, errors included, and replays them to every
/// retry with that key, marked `Idempotent-Replayed: true`; what is refused
/// before the endpoint (a rate limit's 429, a 401, most 400s, a request whose key
/// is executing: 409) is not saved, and a retry runs afresh.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// No answer: the card may or may not have been charged. A retry with the
    /// same provider key tells (it replays the charge, or makes it).
    #[error("the provider could not be reached, or its answer was lost: {0}")]
    Transport(#[from] reqwest::Error),
    /// A 5xx the provider did not say it replayed: unknown (Stripe: "treat the
    /// result of a 500 request as indeterminate"). A retry with the same key
    /// charges, or replays what the provider saved.
    #[error("the provider failed ({status}): {body}")]
    Unavailable { status: u16, body: String },
    /// Another request with this provider key is executing at the provider now
    /// (its 409): nothing was saved for this one.
    #[error("the provider is still processing another request with this key: {0}")]
    InFlight(String),
    /// A 4xx (or a 3xx) it did not say it replayed: turned away before its
    /// idempotency layer (a rate limit's 429, a 408, a 401: Stripe's rate
    /// limiters run before that layer), or a request of ours it refused without
    /// keeping the refusal (most 400s, a 403, a 404: our request or our
    /// configuration is wrong). Nothing was charged, and nothing is final: a
    /// retry with the key charges once the provider takes it (later, or once an
    /// operator fixed what is wrong).
    #[error("the provider turned the charge away ({status}): {body}")]
    TurnedAway { status: u16, body: String },
    /// The provider's final refusal for this key: a 402 (a declined card), or a
    /// 4xx it replayed. Nothing was charged, and the same key never will be.
    #[error("the provider refused the charge ({status}): {body}")]
    Declined { status: u16, body: String },
    /// A 5xx the provider replayed: the error it keeps for this key. Whether it
    /// charged is unknown (Stripe may roll a failed charge forward), and asking
    /// again only replays the error: a case for reconciliation.
    #[error("the provider keeps an error for this key ({status}); the charge is unknown: {body}")]
    Indeterminate { status: u16, body: String },
    /// A 2xx without a charge id: the card was charged, and the provider replays
    /// this very answer to a retry. A case for reconciliation.
    #[error("the provider charged ({status}) but its answer has no charge id: {body}")]
    NoChargeId { status: u16, body: String },
}
// ANCHOR_END: provider_error

/// One answer of the provider, as it came: what [`charge_id`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderAnswer {
    pub status: u16,
    /// The `Idempotent-Replayed` header, if the provider sent one.
    pub replayed: Option<String>,
    pub body: String,
}

impl ProviderAnswer {
    /// `Idempotent-Replayed: true`: the key's saved answer, sent again. Stripe
    /// sends the header only on a replay; a `false` is no replay.
    pub fn is_replay(&self) -> bool {
        self.replayed
            .as_deref()
            .is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
    }
}

// ANCHOR: charge_id
/// The charge's id in the provider's answer, or what the answer means when it
/// is not a charge.
pub fn charge_id(answer: ProviderAnswer) -> Result<String, ProviderError> {
    let replayed = answer.is_replay();
    let ProviderAnswer { status, body, .. } = answer;
    match status {
        200..=299 => {
            let id = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|answer| answer["id"].as_str().map(str::to_owned));
            id.ok_or(ProviderError::NoChargeId { status, body })
        }
        402 => Err(ProviderError::Declined { status, body }),
        // Never saved: it says nothing about the key, replayed or not.
        409 => Err(ProviderError::InFlight(body)),
        500.. if replayed => Err(ProviderError::Indeterminate { status, body }),
        500.. => Err(ProviderError::Unavailable { status, body }),
        _ if replayed => Err(ProviderError::Declined { status, body }),
        _ => Err(ProviderError::TurnedAway { status, body }),
    }
}
// ANCHOR_END: charge_id

/// The client of the payment provider: `POST {url}/charges`.
#[derive(Debug, Clone)]
pub struct Provider {
    http: reqwest::Client,
    charges_url: String,
}

impl Provider {
    /// A client whose every call gives up after `timeout`. It follows no
    /// redirect: a charge is never sent again somewhere else behind our back.
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, ProviderError> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Self {
            http,
            charges_url: format!("{}/charges", base_url.trim_end_matches('/')),
        })
    }

    // ANCHOR: charge
    /// Charges `amount` once per `provider_key`: the provider's own idempotency
    /// key. Sent again with the same key, the call replays the first answer
    /// (the charge, or the refusal) instead of charging again. Returns the
    /// charge's id.
    pub async fn charge(&self, provider_key: &str, amount: i32) -> Result<String, ProviderError> {
        charge_id(self.answer(provider_key, amount).await?)
    }
    // ANCHOR_END: charge

    /// Sends the charge, and returns the provider's answer as it came.
    pub async fn answer(
        &self,
        provider_key: &str,
        amount: i32,
    ) -> Result<ProviderAnswer, reqwest::Error> {
        let response = self
            .http
            .post(&self.charges_url)
            .header("idempotency-key", provider_key)
            .header("content-type", "application/json")
            .body(json!({ "amount": amount }).to_string())
            .send()
            .await?;
        let status = response.status().as_u16();
        let replayed = response
            .headers()
            .get("idempotent-replayed")
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        let body = response.text().await?;
        Ok(ProviderAnswer {
            status,
            replayed,
            body,
        })
    }
}

/// `402`: the provider refused the charge, and keeps that refusal as its answer
/// for this payment's provider key. The key's answer is final: stored, and
/// replayed to every retry.
pub fn payment_refused(provider_status: u16) -> Reply {
    problem(
        402,
        "payment-refused",
        "The payment provider refused the charge",
        &format!(
            "The provider answered {provider_status} and keeps that answer for this payment: \
             nothing was charged. Retrying with this Idempotency-Key replays this answer; \
             a new attempt to pay needs a new Idempotency-Key."
        ),
    )
}

/// `502 Bad Gateway`: the provider did not confirm the charge. The client retries
/// with the same Idempotency-Key; the route then asks the provider again with the
/// same provider key, and the card is charged at most once.
pub fn provider_failed() -> Reply {
    problem(
        502,
        "provider-failed",
        "The payment provider did not confirm the charge",
        "The card was charged at most once. Retry with the same Idempotency-Key: \
         the retry finishes this payment, and never charges the card a second time.",
    )
}

/// `502 Bad Gateway`: the provider turned the charge away before taking it (it
/// asked us to come back later, or our side of it is misconfigured). Nothing was
/// charged; the same Idempotency-Key charges once the provider takes it.
pub fn provider_not_charged() -> Reply {
    problem(
        502,
        "provider-did-not-charge",
        "The payment provider did not take the charge",
        "Nothing was charged. Retry later with the same Idempotency-Key: the retry charges \
         the card once.",
    )
}

// ANCHOR: payment_pending
/// `202 Accepted`: the provider's final answer for this payment does not say
/// whether (or what) it charged, and asking it again would only repeat that
/// answer. The payment is settled by reconciliation, not by a retry; this answer
/// is stored with the key and replayed until then.
pub fn payment_pending() -> Reply {
    Reply {
        status: 202,
        body: json!({
            "status": "pending",
            "title": "The payment's outcome is being reconciled",
            "detail": "The payment provider's answer did not say whether the card was charged. \
                       Do not pay again with a new Idempotency-Key: the card may have been \
                       charged. The payment is settled by reconciliation with the provider; \
                       retrying with this Idempotency-Key replays this answer until then.",
        }),
    }
}
// ANCHOR_END: payment_pending
