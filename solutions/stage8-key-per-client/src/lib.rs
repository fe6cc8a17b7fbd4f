//! Stage 8: one key per client.
//!
//! Every request says which client sends it (`Authorization: Bearer <token>`), and
//! a key is that client's: the key's identity is `(client_id, key)`. Two clients
//! that pick the same key text make two payments, and neither ever receives the
//! other's stored answer. A replayed answer says so (`Idempotent-Replayed: true`),
//! and a transaction that PostgreSQL rolls back with a serialization failure is run
//! again, a bounded number of times.
//!
//! [`global_key`] keeps the trap (a key shared by all clients), for the tests that
//! prove it is caught.

mod answer;
mod authenticate;
mod client;
pub mod global_key;
mod payment;
mod route;

pub use answer::{Answer, is_serialization_failure, lock_timeout, pay_and_record, stored_answer};
pub use authenticate::authenticate;
pub use axum::Router;
pub use client::{AuthError, ClientId, Unauthenticated, bearer_token, token_hash};
pub use payment::{bound_lock_wait, create_payment, restore_lock_wait};
pub use route::{
    Admitted, App, Config, IDEMPOTENT_REPLAYED, Payments, admit, answer, payments_router, router,
    router_with, serve,
};

/// The migration this stage's tables come from, and its path (named in errors).
pub const MIGRATION: &str = include_str!("../migrations/0001_clients.sql");
pub const MIGRATION_SOURCE: &str = "solutions/stage8-key-per-client/migrations/0001_clients.sql";
