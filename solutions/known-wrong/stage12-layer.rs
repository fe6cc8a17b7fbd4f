// Stage 12's layer, for the known-wrong variants that get one step of it wrong:
// the model answer's `own` and `idempotent` (solutions/stage12-middleware/src/
// idempotency.rs), step for step, calling `fingerprint`, `reserve`, `stored`,
// `answer_within`, `frees_the_key`, `store` and `release` by name. A variant's
// lib.rs takes the model answer's items (`pub use stage12_answer::*;`), defines
// the one step it gets wrong (which shadows the model answer's), and includes
// this file: its stage 12 tests then fail for that step alone.
//
// Keep it step for step with the model answer's `own` and `idempotent`.

/// The API with this variant's layer and its default [`Config`].
pub fn router(pool: sqlx::PgPool) -> Router {
    router_with(pool, Config::default())
}

/// The API with this variant's layer configured by `config`.
pub fn router_with(pool: sqlx::PgPool, config: Config) -> Router {
    router_with_layer(pool.clone(), idempotency_layer(pool, config))
}

/// This variant's layer.
pub fn idempotency_layer(pool: sqlx::PgPool, config: Config) -> IdempotencyLayer {
    IdempotencyLayer::with_handle(pool, config, handle)
}

/// One request through this variant's layer: the model answer's `idempotent`.
pub fn handle(
    state: LayerState,
    route: Route,
    request: axum::extract::Request,
) -> BoxFuture<axum::response::Response> {
    Box::pin(async move {
        let (mut parts, body) = request.into_parts();
        let Ok(body) = axum::body::to_bytes(body, state.config.max_body_bytes).await else {
            return too_large();
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
        let deadline = tokio::time::Instant::now() + state.config.lease;
        let lease = match own(&state, client, &key, &fingerprint).await {
            Ok(lease) => lease,
            Err(answer) => return answer,
        };
        parts.extensions.insert(client);
        let request =
            axum::extract::Request::from_parts(parts, axum::body::Body::from(body));
        let (head, body) = match answer_within(deadline, route, request).await {
            Ok(answer) => answer,
            Err(failed) => return failed,
        };
        if let Some(crash) = &state.config.after_route {
            crash.pass().await;
        }
        let kept = if frees_the_key(&head) {
            release(&state.pool, client, &key, lease).await
        } else {
            let replayable = (body.len() <= state.config.max_answer_bytes).then_some(&body);
            store(&state.pool, client, &key, lease, &head, replayable).await
        };
        match kept {
            Ok(false) => answer_stored(stored(&state.pool, client, &key, &fingerprint).await),
            _ => axum::response::Response::from_parts(head, axum::body::Body::from(body)),
        }
    })
}

/// The model answer's `own`, with this variant's `reserve` and `stored`.
pub async fn own(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Lease, axum::response::Response> {
    for _ in 0..2 {
        match reserve(state, client, key, fingerprint).await {
            Ok(Some(lease)) => return Ok(lease),
            Ok(None) => {}
            Err(e) => return Err(internal_error("reserving the key", &e)),
        }
        match stored(&state.pool, client, key, fingerprint).await {
            Ok(None) => {}
            read => return Err(answer_stored(read)),
        }
    }
    Err(Stored::InFlight.into_response())
}
