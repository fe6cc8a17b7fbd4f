//! Stage 7: the client. One key per payment, made before the first try; every
//! retry sends the same key, so however many times the request reaches the
//! server, it pays once, and the client ends with the answer of the one payment.

mod client;
mod pay;

pub use client::{PayError, PaymentsClient, RetryPolicy, retry_after};
pub use pay::Attempt;
