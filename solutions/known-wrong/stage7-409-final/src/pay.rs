//! Stage 7's `pay`, with 409 taken as a final answer.

use std::time::{Duration, Instant, SystemTime};

use payment_model::Reply;
use serde_json::Value;

use crate::{PayError, Payment, PaymentsClient, retry_after};

impl PaymentsClient {
    // ANCHOR: pay
    /// Makes `payment`, retrying until the server gives an answer that is not
    /// worth retrying. Called again with the same payment (after an error, or in
    /// a process started again), it sends the same key: at most one payment.
    pub async fn pay(&self, payment: &Payment) -> Result<Reply, PayError> {
        // The payment's own key, made before its first try and kept by the caller:
        // a key made here would die with this call, and a new key per try would
        // turn every retry into a new payment.
        let key = payment.key.as_str();
        let body = payment.request.to_body();
        let started = Instant::now();
        let mut attempt = 0;
        let last = loop {
            attempt += 1;
            let (why, asked) = match self.try_once(key, &body).await {
                Attempt::Answered(reply) => return Ok(reply),
                Attempt::Retry { why, retry_after } => (why, retry_after),
                Attempt::Broken(e) => return Err(e),
            };
            if attempt == self.policy.attempts {
                break why;
            }
            let wait = self.wait_before_next_try(attempt, asked);
            if started.elapsed() + wait > self.policy.budget {
                break format!(
                    "{why} (the next try, {} ms later, would start after the {} ms budget)",
                    wait.as_millis(),
                    self.policy.budget.as_millis()
                );
            }
            tokio::time::sleep(wait).await;
        };
        Err(PayError::GaveUp {
            attempts: attempt,
            key: key.to_owned(),
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
            Err(e) => return Attempt::retry(e.to_string()),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| retry_after(value, SystemTime::now()));
        let text = match response.text().await {
            Ok(text) => text,
            Err(e) => return Attempt::retry(e.to_string()),
        };
        // The mistake: 409 ("a request with this key is still in flight") is left
        // out, so it ends `pay` as if it were the answer.
        if matches!(status, 408 | 429) || status >= 500 {
            return Attempt::Retry {
                why: format!("HTTP {status}: {text}"),
                retry_after,
            };
        }
        // Anything else is the answer, a refusal included: repeating a 400 or a 422
        // would get the same refusal. An answer that cannot be read says nothing of
        // the payment: the key goes back to the caller with the error.
        match serde_json::from_str::<Value>(&text) {
            Ok(body) => Attempt::Answered(Reply { status, body }),
            Err(_) => Attempt::Broken(PayError::NotJson {
                key: key.to_owned(),
                status,
                text,
            }),
        }
    }
    // ANCHOR_END: try_once
}

/// What one try ended with.
pub enum Attempt {
    /// An answer worth keeping, a refusal included.
    Answered(Reply),
    /// No answer, or one that says "try again" (408, 409, 429, 5xx): why, and the
    /// wait the server asked for with `Retry-After`, if it did.
    Retry {
        why: String,
        retry_after: Option<Duration>,
    },
    /// An answer that cannot be read.
    Broken(PayError),
}

impl Attempt {
    /// A try without an answer: the server asked for nothing.
    fn retry(why: String) -> Self {
        Self::Retry {
            why,
            retry_after: None,
        }
    }
}
