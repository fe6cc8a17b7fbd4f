// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! The handler of `POST /payments`: the key, the body, then stage 5's
//! `create_payment`. Write `create`; the router around it and `respond` are given:
//! the model answer's `route.rs`, compiled into this crate.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use payment_model::{PaymentError, Reply};
use sqlx::PgPool;

use crate::{IdempotencyKey, respond};

/// `POST /payments`. Refuse a request without a valid key with its problem
/// (`IdempotencyKey::from_headers`, then `KeyProblem::reply`), refuse a body that is
/// not UTF-8 with `Reply::invalid_body(..)`, then answer with what
/// `stage5::create_payment` returns: its `Reply`, a 400 problem for
/// `PaymentError::InvalidBody`, or `Reply::internal_error()` for any other error. Answer every
/// `Reply` with `respond(..)`.
pub async fn create(State(pool): State<PgPool>, headers: HeaderMap, body: Bytes) -> Response {
    todo!("stage 6: write the handler (see the comment above, or `cargo workbook hint 6`)")
}
