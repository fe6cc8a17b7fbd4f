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
    /// How long a finished key replays its answer before the reaper deletes it.
    pub retention: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            retention: Duration::from_secs(24 * 60 * 60),
            provider_timeout: Duration::from_secs(10),
        }
    }
}

impl Config {
    /// The lease as a PostgreSQL `interval` literal, in whole milliseconds: bound
    /// as text and cast with `$n::interval`.
    pub fn lease_interval(&self) -> String {
        interval(self.lease)
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
/// Why the provider did not confirm a charge.
///
/// The provider saves the status and body of the first request with a key once
/// its endpoint began executing, errors included, and replays them to every
/// retry with that key. So an answer it refused with is final for that key; a
/// failure it did not save (or that we cannot tell it saved) is for a retry.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The card may or may not have been charged: a retry with the same provider
    /// key tells (it replays the charge, or makes it).
    #[error("the provider could not be reached, or its answer was lost: {0}")]
    Transport(#[from] reqwest::Error),
    /// A server error the provider did not say it replayed: it may be saved or
    /// not. A retry with the same key charges, or replays the saved error.
    #[error("the provider failed ({status}): {body}")]
    Unavailable { status: u16, body: String },
    /// Another request with this provider key is executing at the provider now
    /// (its 409): nothing was saved for this one.
    #[error("the provider is still processing another request with this key: {0}")]
    InFlight(String),
    /// The provider's final answer for this key, replayed to any retry with it: a
    /// 4xx (a declined card), or a 5xx it replayed (`Idempotent-Replayed: true`).
    /// Nothing was charged, and the same key never will be.
    #[error("the provider refused the charge ({status}): {body}")]
    Refused { status: u16, body: String },
    /// A 200 with no charge id: the card may have been charged; a retry tells.
    #[error("the provider's answer has no charge id: {0}")]
    NoChargeId(String),
}
// ANCHOR_END: provider_error

/// The client of the payment provider: `POST {url}/charges`.
#[derive(Debug, Clone)]
pub struct Provider {
    http: reqwest::Client,
    charges_url: String,
}

impl Provider {
    /// A client whose every call gives up after `timeout`.
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, ProviderError> {
        let http = reqwest::Client::builder().timeout(timeout).build()?;
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
        let response = self
            .http
            .post(&self.charges_url)
            .header("idempotency-key", provider_key)
            .header("content-type", "application/json")
            .body(json!({ "amount": amount }).to_string())
            .send()
            .await?;
        let status = response.status().as_u16();
        let replayed = response.headers().contains_key("idempotent-replayed");
        let body = response.text().await?;
        match status {
            200 => {}
            409 => return Err(ProviderError::InFlight(body)),
            500.. if !replayed => return Err(ProviderError::Unavailable { status, body }),
            _ => return Err(ProviderError::Refused { status, body }),
        }
        let answer: Value =
            serde_json::from_str(&body).map_err(|_| ProviderError::NoChargeId(body.clone()))?;
        answer["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or(ProviderError::NoChargeId(body))
    }
    // ANCHOR_END: charge
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
