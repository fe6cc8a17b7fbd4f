//! Known wrong: the model answer's layer, with a fingerprint of the method and the
//! path only. The same key with another amount is taken for the same request, and
//! replays the first payment's 201: the client is told a payment it did not ask
//! for was made.

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use sqlx::PgPool;
pub use stage12_answer::{
    BoxFuture, Config, CrashPoint, IdempotencyLayer, LayerState, MIGRATION, MIGRATION_SOURCE,
    Route, Router, bare_router, serve,
};
use stage12_answer::{fingerprint, release, reserve, router_with_layer, run_route, store, stored};

pub fn router(pool: PgPool) -> Router {
    router_with(pool, Config::default())
}

pub fn router_with(pool: PgPool, config: Config) -> Router {
    router_with_layer(
        pool.clone(),
        IdempotencyLayer::with_handle(pool, config, handle),
    )
}

fn handle(state: LayerState, route: Route, request: Request) -> BoxFuture<Response> {
    Box::pin(async move {
        let (mut parts, body) = request.into_parts();
        let Ok(body) = axum::body::to_bytes(body, state.config.max_body_bytes).await else {
            return Response::new(Body::empty());
        };
        let admitted = match stage8::admit(&state.pool, &parts.headers, &body).await {
            Ok(admitted) => (admitted.client, admitted.key.as_str().to_owned()),
            Err(refused) => return refused,
        };
        let (client, key) = admitted;
        // The bug: the body is left out of the fingerprint.
        let fingerprint = fingerprint(&parts.method, parts.uri.path(), "");
        let Ok(Some(lease)) = reserve(&state, client, &key, &fingerprint).await else {
            return match stored(&state.pool, client, &key, &fingerprint).await {
                Ok(stored) => stored.into_response(),
                Err(_) => Response::new(Body::empty()),
            };
        };
        parts.extensions.insert(client);
        let (head, body) = run_route(route, Request::from_parts(parts, Body::from(body)))
            .await
            .into_parts();
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        if let Some(crash) = &state.config.after_route {
            crash.pass().await;
        }
        let _ = if head.status.is_server_error() {
            release(&state.pool, client, &key, lease).await
        } else {
            store(&state.pool, client, &key, lease, &head, Some(&body)).await
        };
        Response::from_parts(head, Body::from(body))
    })
}
