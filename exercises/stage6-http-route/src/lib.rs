//! Stage 6: `POST /payments` over HTTP, on top of stage 5's `create_payment`.
//!
//! Write the handler `create` in `handler.rs` and `IdempotencyKey::parse` in
//! `parse_key.rs`; run `cargo workbook stage 6`, and `cargo workbook hint 6` when
//! stuck. The rest is given: the model answer's `route.rs` (the router, axum's
//! refusals as problems, `respond`) and `key.rs` (the key, and reading it from the
//! headers), compiled into this crate.
//!
//! The route requires an `Idempotency-Key`: a route that pays must not let a client
//! forget it and find out only when a retry charges twice. Every refusal is an RFC
//! 9457 problem (`application/problem+json`), and nothing is stored for a request
//! that is refused before it reaches `create_payment`.

mod handler;
#[path = "../../../solutions/stage6-http-route/src/key.rs"]
mod key;
mod parse_key;
#[path = "../../../solutions/stage6-http-route/src/route.rs"]
mod route;

pub use axum::Router;
pub use key::IdempotencyKey;
pub use payment_model::{KeyProblem, MAX_KEY_LENGTH};
pub use route::{BODY_READ_TIMEOUT, respond, router, serve};
