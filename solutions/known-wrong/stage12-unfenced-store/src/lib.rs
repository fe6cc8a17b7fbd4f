//! Known wrong: the model answer's layer, with a store and a release that name the
//! key and not the lease. A request still running when its lease passed, and whose
//! key another request took over, stores its own answer when it wakes: over the
//! answer the new owner already sent and stored. The last writer wins, and an
//! answer a client was given changes afterwards.

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use serde_json::Value;
use sqlx::PgPool;
pub use stage12_answer::{
    BoxFuture, Config, CrashPoint, IdempotencyLayer, LayerState, MIGRATION, MIGRATION_SOURCE,
    Route, Router, bare_router, serve,
};
use stage12_answer::{
    REPLAYED_HEADERS, fingerprint, reserve, router_with_layer, run_route, stored,
};

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
        let (client, key, fingerprint) =
            match stage8::admit(&state.pool, &parts.headers, &body).await {
                Ok(admitted) => (
                    admitted.client,
                    admitted.key.as_str().to_owned(),
                    fingerprint(&parts.method, parts.uri.path(), admitted.body),
                ),
                Err(refused) => return refused,
            };
        let Ok(Some(_lease)) = reserve(&state, client, &key, &fingerprint).await else {
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
        // The bug: the key, and not the lease, says which row to write.
        let _ = if head.status.is_server_error() {
            sqlx::query(
                "DELETE FROM idempotent_requests
                 WHERE client_id = $1 AND key = $2 AND status IS NULL",
            )
            .bind(client.0)
            .bind(&key)
            .execute(&state.pool)
            .await
        } else {
            let headers: serde_json::Map<String, Value> = REPLAYED_HEADERS
                .iter()
                .filter_map(|name| {
                    let value = head.headers.get(name)?.to_str().ok()?;
                    Some((name.as_str().to_owned(), Value::from(value)))
                })
                .collect();
            sqlx::query(
                "UPDATE idempotent_requests SET status = $3, headers = $4, body = $5
                 WHERE client_id = $1 AND key = $2",
            )
            .bind(client.0)
            .bind(&key)
            .bind(i32::from(head.status.as_u16()))
            .bind(Value::Object(headers))
            .bind(body.as_ref())
            .execute(&state.pool)
            .await
        };
        Response::from_parts(head, Body::from(body))
    })
}
