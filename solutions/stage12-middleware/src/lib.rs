//! Stage 12: the middleware, and its limits.
//!
//! [`IdempotencyLayer`] is a tower layer that gives any axum route idempotency: it
//! reads and checks the `Idempotency-Key` (stage 6's parser) and the client
//! (stage 8's bearer token), fingerprints the request (method, path, normalised
//! body), reserves the key in a statement that commits at once, runs the route,
//! and stores the route's status, the headers worth replaying and its body. A
//! duplicate is told 409 while the first request is in flight, 422 if it is
//! another request, and gets the stored answer otherwise.
//!
//! Its limit: the route commits its effect in its own transaction, between the
//! layer's two statements. A request that dies after that commit and before the
//! store leaves a key that says nothing of the effect, and the retry pays again.

mod idempotency;
mod layer;
mod responses;
mod routes;

pub use idempotency::{
    answer_within, fingerprint, frees_the_key, idempotent, own, release, reserve, store, stored,
};
pub use layer::{
    BoxFuture, Config, CrashPoint, Handle, IdempotencyLayer, Idempotent, LayerState, Lease,
    NothingDone, Route, run_route,
};
pub use responses::{
    REPLAYED_HEADERS, Stored, answer_stored, internal_error, outcome_unknown, too_large,
};
pub use routes::{
    Router, bare_router, handle, idempotency_layer, pay, refund, router, router_with,
    router_with_layer, serve,
};
pub use stage8::{ClientId, IDEMPOTENT_REPLAYED};

/// The migration of this stage's tables: stage 8's, then the layer's table and the
/// refunds; and the path of the file this stage adds (named in errors).
pub const MIGRATION: &str = concat!(
    include_str!("../../../solutions/stage8-key-per-client/migrations/0001_clients.sql"),
    include_str!("../../../solutions/stage12-middleware/migrations/0002_layer.sql"),
);
pub const MIGRATION_SOURCE: &str = "solutions/stage12-middleware/migrations/0002_layer.sql";
