//! Stage 12: the middleware, and its limits.
//!
//! Write the layer's handling of one request in `idempotency.rs`; run
//! `cargo workbook stage 12`, and `cargo workbook hint 12` when stuck. The tower
//! plumbing (`layer.rs`), the two routes and the layer's handler (`routes.rs`) and
//! the responses the layer sends of its own (`responses.rs`) are given: they are
//! the model answer's own files, and hold no part of the answer.

#[path = "../../../solutions/stage12-middleware/src/layer.rs"]
mod layer;
#[path = "../../../solutions/stage12-middleware/src/responses.rs"]
mod responses;
#[path = "../../../solutions/stage12-middleware/src/routes.rs"]
mod routes;

mod idempotency;

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
