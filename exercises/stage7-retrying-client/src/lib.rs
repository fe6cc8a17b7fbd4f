//! Stage 7: the client (write `pay`; `cargo workbook stage 7`, and `cargo workbook hint 7`
//! when stuck).
//! One key per payment, made before the first try; every
//! retry sends the same key, so however many times the request reaches the
//! server, it pays once, and the client ends with the answer of the one payment.

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables, dead_code)]

use std::time::{Duration, Instant, SystemTime};

use payment_model::{PaymentRequest, Reply};
use serde_json::Value;

/// How hard `pay` tries.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Tries in all, the first included.
    pub attempts: u32,
    /// The wait before the second try; it doubles each time, with jitter.
    pub first_delay: Duration,
    /// The longest wait between two tries, whatever the backoff or the server's
    /// `Retry-After` asks for.
    pub max_delay: Duration,
    /// How long one try may take before the client gives up on it.
    pub timeout: Duration,
    /// How long `pay` keeps trying: no try starts after this much time since the
    /// first one (so `pay` ends within `budget + timeout`).
    pub budget: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 4,
            first_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(10),
            timeout: Duration::from_secs(5),
            budget: Duration::from_secs(30),
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

    /// Pays `amount` for `order_id`, retrying until the server gives an answer
    /// that is not worth retrying.
    ///
    /// - Make one key (`uuid::Uuid::new_v4().to_string()`) per call of `pay`.
    /// - Try at most `self.policy.attempts` times: POST `PaymentRequest { .. }.to_body()`
    ///   to `self.url` with the `idempotency-key` header and `.timeout(self.policy.timeout)`.
    /// - Retry on a transport error (timeout, connection refused or closed), on 408,
    ///   409, 429 and 5xx. Any other status is the answer: return it as a `Reply`
    ///   (status and JSON body).
    /// - Before a retry, wait `self.wait_before_next_try(attempt, asked)`, where
    ///   `asked` is the answer's `Retry-After` read with `retry_after(..)` (or `None`).
    ///   If that wait would end more than `self.policy.budget` after the first try
    ///   started, do not wait: give up.
    /// - After the last try, `PayError::GaveUp` with the number of tries made.
    pub async fn pay(&self, order_id: i64, amount: i32) -> Result<Reply, PayError> {
        todo!(
            "stage 7: write the retrying client (see the comment above, or `cargo workbook hint 7`)"
        )
    }

    /// `first_delay × 2^(attempt-1)`, times a random factor in [0.5, 1.5): clients
    /// that failed together must not retry together.
    fn backoff(&self, attempt: u32) -> Duration {
        let growing = self.policy.first_delay * 2u32.saturating_pow(attempt - 1);
        growing.mul_f64(0.5 + fastrand::f64())
    }

    /// The wait after try `attempt`: what the server asked for with `Retry-After`,
    /// or else the backoff; never more than `max_delay`.
    fn wait_before_next_try(&self, attempt: u32, asked: Option<Duration>) -> Duration {
        asked
            .unwrap_or_else(|| self.backoff(attempt))
            .min(self.policy.max_delay)
    }
}

/// The wait a `Retry-After` value asks for (RFC 9110 §10.2.3): delay-seconds, or
/// an HTTP-date (a date already past asks for no wait). `None` when it is neither.
///
/// `response.headers().get(reqwest::header::RETRY_AFTER)` gives the header.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse().ok().map(Duration::from_secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}
