//! Known wrong: a layer that stores the route's answer, but reserves nothing
//! first. It looks for a stored answer, finds none while the first request is
//! still running, and runs the route again: check, then write (stage 2), one
//! level up. A burst with one key pays once per request that looked too early.

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use sqlx::PgPool;
pub use stage12_answer::{
    BoxFuture, Config, CrashPoint, IdempotencyLayer, LayerState, Lease, MIGRATION,
    MIGRATION_SOURCE, Route, Router, Stored, bare_router, fingerprint, router_with_layer, serve,
};
use stage12_answer::{run_route, store, stored};

pub fn router(pool: PgPool) -> Router {
    router_with(pool, Config::default())
}

pub fn router_with(pool: PgPool, config: Config) -> Router {
    router_with_layer(pool.clone(), idempotency_layer(pool, config))
}

pub fn idempotency_layer(pool: PgPool, config: Config) -> IdempotencyLayer {
    IdempotencyLayer::with_handle(pool, config, handle)
}

fn handle(state: LayerState, route: Route, request: Request) -> BoxFuture<Response> {
    Box::pin(async move {
        let (mut parts, body) = request.into_parts();
        let Ok(body) = axum::body::to_bytes(body, state.config.max_body_bytes).await else {
            return Response::new(Body::empty());
        };
        let (client, key, fingerprint) =
            match stage8::admit(&state.pool, &parts.headers, &body).await {
                Ok(admitted) => (
                    admitted.client,
                    admitted.key.as_str().to_owned(),
                    fingerprint(&parts.method, parts.uri.path(), admitted.body),
                ),
                Err(refused) => return refused,
            };
        // The bug: a look, not a reservation. Nothing stops a second request from
        // looking before the first has stored its answer.
        match stored(&state.pool, client, &key, &fingerprint).await {
            Ok(None | Some(Stored::InFlight)) => {}
            Ok(Some(stored)) => return stored.into_response(),
            Err(_) => return Response::new(Body::empty()),
        }
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
        if !head.status.is_server_error() {
            // The first answer stored stays, and so does every payment.
            let lease: Option<i64> = sqlx::query_scalar(
                "INSERT INTO idempotent_requests (client_id, key, fingerprint)
                 VALUES ($1, $2, $3) ON CONFLICT (client_id, key) DO NOTHING
                 RETURNING lease",
            )
            .bind(client.0)
            .bind(&key)
            .bind(&fingerprint)
            .fetch_optional(&state.pool)
            .await
            .unwrap_or_default();
            if let Some(lease) = lease {
                let _ = store(&state.pool, client, &key, Lease(lease), &head, Some(&body)).await;
            }
        }
        Response::from_parts(head, Body::from(body))
    })
}
