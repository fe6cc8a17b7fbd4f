//! Known wrong: stage 7's client as it was, with the key made in memory when
//! `pay` is called: one key for all of that call's tries, and none kept with the
//! order. A caller that calls `pay` again after an error, or a process started
//! again after a crash, sends a new key, and pays again.

use std::time::{Duration, Instant};

use payment_model::Reply;
use stage7_answer::Attempt;
pub use stage7_answer::{PayError, Payment, RetryPolicy, retry_after};

pub struct PaymentsClient {
    client: stage7_answer::PaymentsClient,
    policy: RetryPolicy,
}

impl PaymentsClient {
    pub fn new(base_url: &str, policy: RetryPolicy) -> Self {
        Self {
            client: stage7_answer::PaymentsClient::new(base_url, policy),
            policy,
        }
    }

    /// The given backoff, the model answer's: only `pay` is wrong here.
    pub fn backoff(&self, attempt: u32) -> Duration {
        self.client.backoff(attempt)
    }

    /// The given wait between tries, the model answer's.
    pub fn wait_before_next_try(&self, attempt: u32, asked: Option<Duration>) -> Duration {
        self.client.wait_before_next_try(attempt, asked)
    }

    // ANCHOR: pay
    pub async fn pay(&self, payment: &Payment) -> Result<Reply, PayError> {
        // The mistake: one key per call, made here, in memory, instead of the key
        // the payment was made with and the caller kept.
        let key = uuid::Uuid::new_v4().to_string();
        let body = payment.request.to_body();
        let started = Instant::now();
        let mut attempt = 0;
        let last = loop {
            attempt += 1;
            let (why, asked) = match self.client.try_once(&key, &body).await {
                Attempt::Answered(reply) => return Ok(reply),
                Attempt::Retry { why, retry_after } => (why, retry_after),
                Attempt::Broken(e) => return Err(e),
            };
            if attempt == self.policy.attempts {
                break why;
            }
            let wait = self.client.wait_before_next_try(attempt, asked);
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
            key,
            last,
        })
    }
    // ANCHOR_END: pay
}
