// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! `pay`: every try sends the key the payment was made with. Write `pay`. The
//! client around it (`Payment` and its key, `PaymentsClient::new`, its
//! `RetryPolicy`, `PayError`, `wait_before_next_try`, `retry_after`) is given:
//! the model answer's `client.rs`, compiled into this crate.

use std::time::{Duration, Instant, SystemTime};

use payment_model::Reply;
use serde_json::Value;

use crate::{PayError, Payment, PaymentsClient, retry_after};

impl PaymentsClient {
    /// Makes `payment`, retrying until the server gives an answer that is not
    /// worth retrying.
    ///
    /// - Every try sends `payment.key`: the key was made with the payment, before
    ///   any try, and the caller keeps it with its order. Called again with the
    ///   same payment (after an error, or after a restart), `pay` sends it again.
    /// - Try at most `self.policy.attempts` times: POST `payment.request.to_body()`
    ///   to `self.url` with the `idempotency-key` header and `.timeout(self.policy.timeout)`.
    /// - Retry on a transport error (timeout, connection refused or closed), on 408,
    ///   409, 429 and 5xx. Any other status is the answer: return it as a `Reply`
    ///   (status and JSON body); a body that is not JSON is `PayError::NotJson`.
    /// - Before a retry, wait `self.wait_before_next_try(attempt, asked)`, where
    ///   `asked` is the answer's `Retry-After` read with `retry_after(..)` (or `None`;
    ///   `response.headers().get(reqwest::header::RETRY_AFTER)` gives the header).
    ///   If that wait would end more than `self.policy.budget` after the first try
    ///   started, do not wait: give up.
    /// - After the last try, `PayError::GaveUp` with the number of tries made and
    ///   the payment's key.
    pub async fn pay(&self, payment: &Payment) -> Result<Reply, PayError> {
        todo!(
            "stage 7: write the retrying client (see the comment above, or `cargo workbook hint 7`)"
        )
    }
}
