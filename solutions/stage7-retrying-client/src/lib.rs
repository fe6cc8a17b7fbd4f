//! Stage 7: the client. One key per payment, made with it before the first try
//! and kept by the caller with its order; every try, and every later call for the
//! same payment, sends that key, so however many times the request reaches the
//! server, even from a process started again, it pays once, and the client ends
//! with the answer of the one payment.

mod client;
mod pay;

pub use client::{PayError, Payment, PaymentsClient, RetryPolicy, retry_after};
pub use pay::Attempt;
