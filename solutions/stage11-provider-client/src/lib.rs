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
}

impl Default for Config {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            provider_timeout: Duration::from_secs(10),
        }
    }
}

impl Config {
    /// The lease as a PostgreSQL `interval` literal, in whole milliseconds: bound
    /// as text and cast with `$n::interval`.
    pub fn lease_interval(&self) -> String {
        format!("{} milliseconds", self.lease.as_millis())
    }
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

/// Why the provider did not confirm a charge. Whatever the reason, the card may
/// or may not have been charged: only a retry with the same provider key tells.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("the provider could not be reached, or its answer was lost: {0}")]
    Transport(#[from] reqwest::Error),
    #[error("the provider answered {status}: {body}")]
    Refused { status: u16, body: String },
    #[error("the provider's answer has no charge id: {0}")]
    NoChargeId(String),
}

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
    /// key. Sent again with the same key, the call replays the first charge
    /// instead of charging again. Returns the charge's id.
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
        let body = response.text().await?;
        if status != 200 {
            return Err(ProviderError::Refused { status, body });
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
