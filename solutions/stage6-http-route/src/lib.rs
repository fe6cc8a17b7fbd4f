//! Stage 6: `POST /payments` over HTTP, on top of stage 5's `create_payment`.
//!
//! The route requires an `Idempotency-Key`: a route that pays must not let a client
//! forget it and find out only when a retry charges twice. Every refusal is an RFC
//! 9457 problem (`application/problem+json`), and nothing is stored for a request
//! that is refused before it reaches `create_payment`.

mod handler;
mod key;
mod parse_key;
mod route;
pub use axum::Router;
pub use key::IdempotencyKey;
pub use payment_model::{KeyProblem, MAX_KEY_LENGTH};
pub use route::{
    BODY_READ_TIMEOUT, body_within_bound, refusals_as_problems, respond, router, serve,
};
