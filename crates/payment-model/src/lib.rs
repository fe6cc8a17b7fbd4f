//! The vocabulary every stage shares, so that each stage's exercise and solution
//! differ only in what the stage teaches: how `create_payment` talks to PostgreSQL.
//!
//! - [`PaymentRequest`]: the body a client sends to `POST /payments`.
//! - [`Reply`]: the HTTP status and JSON body the server answers, and stores for replays.
//! - [`PaymentError`]: what can go wrong that is not an answer to the client.
//! - [`RaceWindow`]: the pause point stage 2's tests use to hold every request
//!   between its check and its write.

use std::sync::Arc;

#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
pub use serve::{HEADER_READ_TIMEOUT, serve, serve_with};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::Barrier;

/// The body of `POST /payments`: `{"orderId": 1, "amount": 100}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PaymentRequest {
    pub order_id: i64,
    /// In cents; must be positive.
    pub amount: i32,
}

impl PaymentRequest {
    /// Parses a raw request body, as the server received it.
    pub fn parse(body: &str) -> Result<Self, InvalidBody> {
        let request: Self = serde_json::from_str(body).map_err(InvalidBody::NotAPayment)?;
        if request.amount <= 0 {
            return Err(InvalidBody::NonPositiveAmount(request.amount));
        }
        Ok(request)
    }

    /// The JSON text of this request, as a client would send it.
    pub fn to_body(&self) -> String {
        json!({ "orderId": self.order_id, "amount": self.amount }).to_string()
    }
}

/// Why a request body is not a payment.
#[derive(Debug, thiserror::Error)]
pub enum InvalidBody {
    #[error(
        "the body is not a payment request ({0}); expected {{\"orderId\": 1, \"amount\": 100}}"
    )]
    NotAPayment(#[source] serde_json::Error),
    #[error("the amount must be a positive number of cents, got {0}")]
    NonPositiveAmount(i32),
}

/// What the server answers: an HTTP status and a JSON body.
///
/// This is also what the `idempotency_keys` table stores (`status`, `response`), so
/// that a repeated request gets the very same answer as the first one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    /// `201 Created` with the body of a new payment.
    pub fn created(payment_id: i64, request: &PaymentRequest) -> Self {
        Self {
            status: 201,
            body: json!({
                // A string, as the seed's API does: ids are opaque to clients.
                "id": payment_id.to_string(),
                "orderId": request.order_id,
                "amount": request.amount,
                "status": "approved",
            }),
        }
    }

    /// `422 Unprocessable Content`: this key was already used with another body.
    pub fn key_reused() -> Self {
        problem(
            422,
            "key-reused",
            "Idempotency-Key already used with a different request body",
            "Send a new Idempotency-Key for a new payment; repeat this key only with the exact same body.",
        )
    }

    /// `409 Conflict`: a request with this key is still being processed.
    pub fn in_flight() -> Self {
        problem(
            409,
            "request-in-flight",
            "A request with this Idempotency-Key is still in flight",
            "Retry later with the same Idempotency-Key and body.",
        )
    }

    /// `400 Bad Request`: the body is not a payment; nothing was stored.
    pub fn invalid_body(detail: &str) -> Self {
        problem(
            400,
            "invalid-body",
            "The request body is not a valid payment",
            detail,
        )
    }

    /// `500`: the server does not know whether the payment was made. Either nothing
    /// was committed (the transaction rolled back), or the error came after PostgreSQL
    /// committed (the acknowledgement of `COMMIT` was lost with the connection). In
    /// both cases a retry with the same key is safe: it pays, or it replays the
    /// stored answer.
    pub fn internal_error() -> Self {
        problem(
            500,
            "internal-error",
            "The payment could not be processed",
            "The outcome is unknown: the payment was not made, or it was made and its answer was lost. \
             Retry with the same Idempotency-Key: a retry pays at most once, or replays the payment's answer.",
        )
    }

    /// `503 Service Unavailable`: the payment's COMMIT did not get its standby's
    /// confirmation within the route's bound (stage 13). The retry, with the same
    /// key, learns the outcome.
    pub fn unconfirmed() -> Self {
        problem(
            503,
            "payment-unconfirmed",
            "The payment is not confirmed yet",
            "The standby server did not confirm this payment in time. Retry with the same \
             Idempotency-Key: the retry answers with the payment's outcome.",
        )
    }

    /// The answer stored with a key, as read back from `idempotency_keys`.
    ///
    /// A key whose `status` or `response` is still NULL belongs to a request that is
    /// still in flight: the answer is 409, retry later.
    pub fn from_stored(status: Option<i32>, response: Option<Value>) -> Self {
        match (status.and_then(|s| u16::try_from(s).ok()), response) {
            (Some(status), Some(body)) => Self { status, body },
            _ => Self::in_flight(),
        }
    }

    /// The seconds a client should wait before it retries with the same key, for
    /// the answers that ask for such a retry: 409 (a request with this key is in
    /// flight), 502 (the provider did not confirm) and 503 (the standby did not
    /// confirm). Sent as `Retry-After` (RFC 9110, 10.2.3), which stage 7's client
    /// honours.
    pub fn retry_after(&self) -> Option<u32> {
        matches!(self.status, 409 | 502 | 503).then_some(RETRY_AFTER_SECONDS)
    }

    /// The status as the `INT` the table stores.
    pub fn status_code(&self) -> i32 {
        i32::from(self.status)
    }

    /// The payment id in a `201` body, if this is one.
    pub fn payment_id(&self) -> Option<&str> {
        self.body.get("id").and_then(Value::as_str)
    }
}

/// How long a client is asked to wait before retrying a 409, a 502 or a 503
/// ([`Reply::retry_after`]): a request in flight usually ends within it.
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// Longer `Idempotency-Key`s are refused: a key is an identifier, not a payload.
pub const MAX_KEY_LENGTH: usize = 255;

/// Why a request's `Idempotency-Key` was refused (each is a 400 problem of its own type).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyProblem {
    #[error("the Idempotency-Key header is missing")]
    Missing,
    #[error("the Idempotency-Key header is empty")]
    Empty,
    #[error("the Idempotency-Key is {0} characters long; at most {MAX_KEY_LENGTH} are allowed")]
    TooLong(usize),
    #[error("the Idempotency-Key is not a structured-field string nor a plain token: {0}")]
    Malformed(&'static str),
}

impl KeyProblem {
    /// The `400` problem that answers it.
    pub fn reply(&self) -> Reply {
        let (slug, title) = match self {
            Self::Missing | Self::Empty => (
                "idempotency-key-missing",
                "The Idempotency-Key header is required",
            ),
            Self::TooLong(_) => (
                "idempotency-key-too-long",
                "The Idempotency-Key is too long",
            ),
            Self::Malformed(_) => (
                "idempotency-key-malformed",
                "The Idempotency-Key is malformed",
            ),
        };
        problem(400, slug, title, &self.to_string())
    }
}

/// The base of the `type` URIs of our problem bodies (RFC 9457).
pub const PROBLEM_BASE: &str = "https://idempotency-workbook.example/problems/";

/// An RFC 9457 problem body.
pub fn problem(status: u16, slug: &str, title: &str, detail: &str) -> Reply {
    Reply {
        status,
        body: json!({
            "type": format!("{PROBLEM_BASE}{slug}"),
            "title": title,
            "status": status,
            "detail": detail,
        }),
    }
}

/// What can go wrong in `create_payment` that is not an answer for the client.
#[derive(Debug, thiserror::Error)]
pub enum PaymentError {
    #[error(transparent)]
    InvalidBody(#[from] InvalidBody),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("the key {0:?} has no stored row, although the INSERT said it exists")]
    MissingKeyRow(String),
}

impl PaymentError {
    /// The SQLSTATE of a database error, e.g. `23505` for a unique violation.
    pub fn sqlstate(&self) -> Option<String> {
        match self {
            Self::Database(sqlx::Error::Database(db)) => db.code().map(|c| c.into_owned()),
            _ => None,
        }
    }

    /// True when the pool gave no connection within its `acquire_timeout`.
    pub fn is_pool_timeout(&self) -> bool {
        matches!(self, Self::Database(sqlx::Error::PoolTimedOut))
    }
}

/// SHA-256 of the body's bytes, in hex: what stages 2 and 3 store in `body_hash`.
///
/// Two bodies that mean the same but are written differently get different hashes;
/// stage 4 is about doing better.
pub fn raw_body_hash(body: &str) -> String {
    hex(&Sha256::digest(body.as_bytes()))
}

/// Lower-case hex of some bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The window between a naive request's check and its write.
///
/// In production it is open and costs nothing. Stage 2's tests close it with a
/// barrier, so that every request has checked before any of them writes: the race
/// then happens every time, not just when the scheduler feels like it.
#[derive(Debug, Clone, Default)]
pub struct RaceWindow {
    barrier: Option<Arc<Barrier>>,
}

impl RaceWindow {
    /// No pause: what production code passes.
    pub fn open() -> Self {
        Self::default()
    }

    /// Holds each request until `requests` of them have reached the window.
    pub fn held_for(requests: usize) -> Self {
        Self {
            barrier: Some(Arc::new(Barrier::new(requests))),
        }
    }

    /// Call this after the check and before the write.
    pub async fn between_check_and_write(&self) {
        if let Some(barrier) = &self.barrier {
            barrier.wait().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_answers_that_ask_for_a_retry_say_when() {
        let provider_failed = problem(502, "provider-failed", "t", "d");
        assert_eq!(Reply::in_flight().retry_after(), Some(RETRY_AFTER_SECONDS));
        assert_eq!(provider_failed.retry_after(), Some(RETRY_AFTER_SECONDS));
        assert_eq!(
            Reply::unconfirmed().retry_after(),
            Some(RETRY_AFTER_SECONDS)
        );
        let request = PaymentRequest {
            order_id: 1,
            amount: 100,
        };
        for final_answer in [Reply::created(1, &request), Reply::key_reused()] {
            assert_eq!(final_answer.retry_after(), None, "{final_answer:?}");
        }
    }

    #[test]
    fn a_body_with_a_non_positive_amount_is_invalid() {
        assert!(matches!(
            PaymentRequest::parse(r#"{"orderId":1,"amount":0}"#),
            Err(InvalidBody::NonPositiveAmount(0))
        ));
    }

    #[test]
    fn a_body_with_a_missing_field_is_invalid() {
        assert!(matches!(
            PaymentRequest::parse(r#"{"orderId":1}"#),
            Err(InvalidBody::NotAPayment(_))
        ));
    }

    #[test]
    fn the_created_reply_carries_the_id_as_a_string() {
        let request = PaymentRequest {
            order_id: 7,
            amount: 100,
        };
        let reply = Reply::created(42, &request);
        assert_eq!(reply.status, 201);
        assert_eq!(reply.payment_id(), Some("42"));
        assert_eq!(reply.body["status"], "approved");
    }

    #[test]
    fn the_internal_error_claims_no_outcome_and_asks_for_a_retry_with_the_same_key() {
        let reply = Reply::internal_error();
        assert_eq!(reply.status, 500);
        let detail = reply.body["detail"].as_str().unwrap_or_default();
        // COMMIT's answer can be lost after the server committed: a 500 must not
        // tell the client that nothing was charged.
        assert!(detail.contains("outcome is unknown"), "{detail}");
        assert!(detail.contains("same Idempotency-Key"), "{detail}");
    }

    #[test]
    fn the_raw_hash_changes_with_whitespace() {
        assert_ne!(
            raw_body_hash(r#"{"orderId":1,"amount":100}"#),
            raw_body_hash(r#"{ "orderId": 1, "amount": 100 }"#)
        );
    }
}
