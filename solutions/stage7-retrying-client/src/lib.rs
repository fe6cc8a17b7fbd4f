//! Stage 7: the client. One key per payment, made before the first try; every
//! retry sends the same key, so however many times the request reaches the
//! server, it pays once, and the client ends with the answer of the one payment.

use std::time::Duration;

use payment_model::{PaymentRequest, Reply};
use serde_json::Value;

/// How hard `pay` tries.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Tries in all, the first included.
    pub attempts: u32,
    /// The wait before the second try; it doubles each time, with jitter.
    pub first_delay: Duration,
    /// How long one try may take before the client gives up on it.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 4,
            first_delay: Duration::from_millis(200),
            timeout: Duration::from_secs(5),
        }
    }
}

/// Why `pay` has no answer.
#[derive(Debug, thiserror::Error)]
pub enum PayError {
    #[error("no answer after {attempts} tries with Idempotency-Key {key}; the last: {last}")]
    GaveUp {
        attempts: u32,
        key: String,
        last: String,
    },
    #[error("the server's answer is not JSON: {0}")]
    NotJson(String),
}

/// A client of `POST /payments`.
#[derive(Debug, Clone)]
pub struct PaymentsClient {
    http: reqwest::Client,
    url: String,
    policy: RetryPolicy,
}

impl PaymentsClient {
    /// A client of the API at `base_url` (e.g. `http://127.0.0.1:8080`).
    pub fn new(base_url: &str, policy: RetryPolicy) -> Self {
        Self {
            http: reqwest::Client::new(),
            url: format!("{}/payments", base_url.trim_end_matches('/')),
            policy,
        }
    }

    // ANCHOR: pay
    /// Pays `amount` for `order_id`, retrying until the server gives an answer
    /// that is not worth retrying.
    pub async fn pay(&self, order_id: i64, amount: i32) -> Result<Reply, PayError> {
        // One key for the whole operation, made before the first try: a new key per
        // try would turn every retry into a new payment.
        let key = uuid::Uuid::new_v4().to_string();
        let body = PaymentRequest { order_id, amount }.to_body();
        let mut last = String::new();
        for attempt in 1..=self.policy.attempts {
            match self.try_once(&key, &body).await {
                Attempt::Answered(reply) => return Ok(reply),
                Attempt::Retry(why) => last = why,
                Attempt::Broken(e) => return Err(e),
            }
            if attempt < self.policy.attempts {
                tokio::time::sleep(self.backoff(attempt)).await;
            }
        }
        Err(PayError::GaveUp {
            attempts: self.policy.attempts,
            key,
            last,
        })
    }
    // ANCHOR_END: pay

    // ANCHOR: try_once
    /// One try, and what to do about its outcome.
    pub async fn try_once(&self, key: &str, body: &str) -> Attempt {
        let sent = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .timeout(self.policy.timeout)
            .body(body.to_owned())
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            // Timed out, refused, reset, closed mid-answer: the request may or may
            // not have been processed. The same key makes trying again safe.
            Err(e) => return Attempt::Retry(e.to_string()),
        };
        let status = response.status().as_u16();
        let text = match response.text().await {
            Ok(text) => text,
            Err(e) => return Attempt::Retry(e.to_string()),
        };
        // 409: the first try is still in flight; 5xx: the server failed, before or
        // after it committed, and a retry with the same key is safe either way.
        if status == 409 || status >= 500 {
            return Attempt::Retry(format!("HTTP {status}: {text}"));
        }
        // Anything else is the answer, a refusal included: repeating a 400 or a 422
        // would get the same refusal.
        match serde_json::from_str::<Value>(&text) {
            Ok(body) => Attempt::Answered(Reply { status, body }),
            Err(_) => Attempt::Broken(PayError::NotJson(text)),
        }
    }
    // ANCHOR_END: try_once

    /// `first_delay × 2^(attempt-1)`, times a random factor in [0.5, 1.5): clients
    /// that failed together must not retry together.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let growing = self.policy.first_delay * 2u32.saturating_pow(attempt - 1);
        growing.mul_f64(0.5 + fastrand::f64())
    }
}

/// What one try ended with.
pub enum Attempt {
    /// An answer worth keeping, a refusal included.
    Answered(Reply),
    /// No answer, or one that says "try again" (409, 5xx): why.
    Retry(String),
    /// An answer that cannot be read.
    Broken(PayError),
}
