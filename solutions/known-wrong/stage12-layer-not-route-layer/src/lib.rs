//! Known wrong: the model answer's layer, applied with `MethodRouter::layer`
//! instead of `route_layer`. `layer` also wraps the method router's fallback, the
//! 405 axum sends for a method no handler takes: a `GET /payments` with a key goes
//! through the layer, which reserves the key and stores the 405. The `POST` with
//! that key is then another request (another method): 422, and it never pays.

use axum::routing::post;
use sqlx::PgPool;
pub use stage12_answer::{
    Config, CrashPoint, IdempotencyLayer, MIGRATION, MIGRATION_SOURCE, Router, bare_router,
    fingerprint, idempotency_layer, router_with_layer, serve,
};
use stage12_answer::{pay, refund};

pub fn router(pool: PgPool) -> Router {
    router_with(pool, Config::default())
}

pub fn router_with(pool: PgPool, config: Config) -> Router {
    let idempotency = idempotency_layer(pool.clone(), config);
    // The bug: `layer`, not `route_layer`.
    Router::new()
        .route("/payments", post(pay).layer(idempotency.clone()))
        .route("/refunds", post(refund).layer(idempotency))
        .with_state(pool)
}
