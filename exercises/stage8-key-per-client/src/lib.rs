//! Stage 8: one key per client.
//!
//! Every request says which client sends it (`Authorization: Bearer <token>`), and
//! a key is that client's: the key's identity is `(client_id, key)`. Two clients
//! that pick the same key text make two payments, and neither ever receives the
//! other's stored answer. A replayed answer says so (`Idempotent-Replayed: true`),
//! and a transaction that PostgreSQL rolls back with a serialization failure is run
//! again, a bounded number of times.
//!
//! Write `authenticate` in `client.rs`, `create_payment` and `attempt_once` in
//! `payment.rs`, and the primary key in `migrations/0001_clients.sql`; run
//! `cargo workbook stage 8`, and `cargo workbook hint 8` when stuck. The route is
//! given: it is the model answer's own `route.rs`, compiled into this crate.

#[path = "../../../solutions/stage8-key-per-client/src/answer.rs"]
mod answer;
mod authenticate;
#[path = "../../../solutions/stage8-key-per-client/src/client.rs"]
mod client;
mod payment;
#[path = "../../../solutions/stage8-key-per-client/src/route.rs"]
mod route;

pub use answer::{Answer, is_serialization_failure, lock_timeout, pay_and_record, stored_answer};
pub use authenticate::authenticate;
pub use axum::Router;
pub use client::{AuthError, ClientId, Unauthenticated, bearer_token, token_hash};
pub use payment::create_payment;
pub use route::{
    Admitted, App, Config, IDEMPOTENT_REPLAYED, Payments, admit, answer, payments_router, router,
    router_with, serve,
};

/// The migration this stage's tables come from, and its path (named in errors).
pub const MIGRATION: &str = include_str!("../migrations/0001_clients.sql");
pub const MIGRATION_SOURCE: &str = "exercises/stage8-key-per-client/migrations/0001_clients.sql";
