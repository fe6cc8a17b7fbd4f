//! Stage 7: the client. One key per payment, made with it before the first try
//! and kept by the caller with its order; every try, and every later call for the
//! same payment, sends that key, so however many times the request reaches the
//! server, even from a process started again, it pays once, and the client ends
//! with the answer of the one payment.
//!
//! Write `pay` in `pay.rs`; run `cargo workbook stage 7`, and
//! `cargo workbook hint 7` when stuck. The client around it is given: the model
//! answer's `client.rs`, compiled into this crate.

// `pay` reads the client's fields: until it is written, they go unused.
#[allow(dead_code)]
#[path = "../../../solutions/stage7-retrying-client/src/client.rs"]
mod client;
mod pay;

pub use client::{PayError, Payment, PaymentsClient, RetryPolicy, retry_after};
