//! The client of `POST /payments` around `pay`: the payment and its key, the
//! retry policy, the errors, the backoff and the server's `Retry-After`. Given to
//! the learner as it is (the exercise compiles this file with `#[path]`); `pay.rs`
//! makes the payment.

use std::time::{Duration, SystemTime};

use payment_model::PaymentRequest;

// ANCHOR: payment
/// A payment the caller wants made once: its `Idempotency-Key` and its request.
///
/// The key is made with the payment, before the first try, and the caller keeps
/// it with the order it pays (written in the order's row before `pay` is called),
/// so that every try sends it, and so does every later call for the same payment:
/// after an error that left the outcome unknown, or from a process that crashed
/// and started again. A key that lives only in the client's memory dies with the
/// process, and the next process pays again under a new one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    /// The payment's `Idempotency-Key`.
    pub key: String,
    pub request: PaymentRequest,
}

impl Payment {
    /// A new payment of `amount` for `order_id`, with a key of its own (a random
    /// UUID v4), made now. Keep `key` with the order before you call `pay`.
    pub fn new(order_id: i64, amount: i32) -> Self {
        Self::resume(uuid::Uuid::new_v4().to_string(), order_id, amount)
    }

    /// The payment of `order_id` whose key was made and kept before: read back
    /// from the order after a restart, or taken from a [`PayError`] (its `key()`).
    /// Paid with the same key and the same request, it is made at most once.
    pub fn resume(key: impl Into<String>, order_id: i64, amount: i32) -> Self {
        Self {
            key: key.into(),
            request: PaymentRequest { order_id, amount },
        }
    }
}
// ANCHOR_END: payment

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

// ANCHOR: pay_error
/// Why `pay` has no answer. Either way the payment may have been made, or not:
/// each error hands back the payment's key ([`PayError::key`]), and paying again
/// with it (the same [`Payment`]) makes the payment at most once.
#[derive(Debug, thiserror::Error)]
pub enum PayError {
    #[error(
        "no answer after {attempts} tries with Idempotency-Key {key} (the last: {last}); the \
         payment may have been made: pay again with the same key"
    )]
    GaveUp {
        attempts: u32,
        key: String,
        last: String,
    },
    #[error(
        "the server answered {status} with a body that is not JSON, to Idempotency-Key {key} \
         ({text:?}); the payment may have been made: pay again with the same key"
    )]
    NotJson {
        key: String,
        status: u16,
        text: String,
    },
}

impl PayError {
    /// The key of the payment whose outcome this error left unknown.
    pub fn key(&self) -> &str {
        match self {
            Self::GaveUp { key, .. } | Self::NotJson { key, .. } => key,
        }
    }
}
// ANCHOR_END: pay_error

/// A client of `POST /payments`.
#[derive(Debug, Clone)]
pub struct PaymentsClient {
    pub(crate) http: reqwest::Client,
    pub(crate) url: String,
    pub(crate) policy: RetryPolicy,
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

    /// `first_delay × 2^(attempt-1)`, times a random factor in [0.5, 1.5): clients
    /// that failed together must not retry together.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let growing = self.policy.first_delay * 2u32.saturating_pow(attempt - 1);
        growing.mul_f64(0.5 + fastrand::f64())
    }

    /// The wait after try `attempt`: what the server asked for with `Retry-After`,
    /// or else the backoff; never more than `max_delay`.
    pub fn wait_before_next_try(&self, attempt: u32, asked: Option<Duration>) -> Duration {
        asked
            .unwrap_or_else(|| self.backoff(attempt))
            .min(self.policy.max_delay)
    }
}

/// The wait a `Retry-After` value asks for (RFC 9110 §10.2.3): delay-seconds, or
/// an HTTP-date (a date already past asks for no wait). `None` when it is neither.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse().ok().map(Duration::from_secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}
