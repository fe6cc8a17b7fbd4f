// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! `pay`: one key per payment, made before the first try; every retry sends the
//! same key. Write `pay`. The client around it (`PaymentsClient::new`, its
//! `RetryPolicy`, `PayError`, `wait_before_next_try`, `retry_after`) is given: the
//! model answer's `client.rs`, compiled into this crate.

use std::time::{Duration, Instant, SystemTime};

use payment_model::{PaymentRequest, Reply};
use serde_json::Value;

use crate::{PayError, PaymentsClient, retry_after};

impl PaymentsClient {
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
    ///   `asked` is the answer's `Retry-After` read with `retry_after(..)` (or `None`;
    ///   `response.headers().get(reqwest::header::RETRY_AFTER)` gives the header).
    ///   If that wait would end more than `self.policy.budget` after the first try
    ///   started, do not wait: give up.
    /// - After the last try, `PayError::GaveUp` with the number of tries made.
    pub async fn pay(&self, order_id: i64, amount: i32) -> Result<Reply, PayError> {
        todo!(
            "stage 7: write the retrying client (see the comment above, or `cargo workbook hint 7`)"
        )
    }
}
