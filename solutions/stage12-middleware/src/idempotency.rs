//! What the layer does with one request: read the key and the client, fingerprint
//! the request, reserve the key (committed), run the route, store its answer.
//!
//! The reservation is committed before the route runs, and the answer is stored
//! after it returns, each in a statement of its own: the route's effect commits in
//! between, in the route's own transaction. That gap is the layer's limit, and the
//! stage's tests prove it.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::Method;
use axum::http::response::Parts;
use axum::response::Response;
use payment_model::{hex, raw_body_hash};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use stage8::{ClientId, admit};

use crate::layer::{LayerState, Lease, Route, run_route};
use crate::responses::{REPLAYED_HEADERS, Stored, answer_stored, internal_error, too_large};

// ANCHOR: idempotent
/// One request through the layer.
pub async fn idempotent(state: LayerState, route: Route, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, state.config.max_body_bytes).await else {
        return too_large();
    };
    // Who sends it, with which key: stage 8's checks, with their 401 and 400 problems.
    let (client, key, fingerprint) = match admit(&state.pool, &parts.headers, &body).await {
        Ok(admitted) => (
            admitted.client,
            admitted.key.as_str().to_owned(),
            fingerprint(&parts.method, parts.uri.path(), admitted.body),
        ),
        Err(refused) => return refused,
    };
    let lease = match reserve(&state, client, &key, &fingerprint).await {
        Ok(Some(lease)) => lease,
        Ok(None) => return answer_stored(stored(&state.pool, client, &key, &fingerprint).await),
        Err(e) => return internal_error("reserving the key", &e),
    };

    // The route runs, and commits its effect in a transaction of its own.
    parts.extensions.insert(client);
    let response = run_route(route, Request::from_parts(parts, Body::from(body))).await;
    let (head, body) = response.into_parts();
    // The whole answer, buffered: the route made it, and the layer must hold it
    // to store it. A body that fails half way leaves the key as after a crash.
    let body = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(body) => body,
        Err(e) => return internal_error("reading the route's answer", &e),
    };

    // The gap: the effect is committed, its answer not yet stored. A request that
    // dies here leaves its key reserved and unanswered.
    if let Some(crash) = &state.config.after_route {
        crash.pass().await;
    }

    let kept = if head.status.is_server_error() {
        // The route failed and says a retry is safe: the key goes, so the retry runs it.
        release(&state.pool, client, &key, lease).await
    } else {
        // The effect is done: the answer is kept, or, too large to keep, the key
        // is marked answered without one. Either way the request is never run again.
        let replayable = (body.len() <= state.config.max_answer_bytes).then_some(&body);
        store(&state.pool, client, &key, lease, &head, replayable).await
    };
    match kept {
        Ok(true) => Response::from_parts(head, Body::from(body)),
        Ok(false) => {
            // Another request took the key over while this one ran, and owns its
            // answer. This one is a duplicate now, and answers what the key says.
            eprintln!(
                "the layer's lease on key {key:?} of client {} was taken over while its \
                 route ran (answered {}): reconcile its effect",
                client.0, head.status
            );
            answer_stored(stored(&state.pool, client, &key, &fingerprint).await)
        }
        Err(e) => {
            // The effect is done and this answer is true: send it. The key stays
            // reserved without an answer, as after a crash.
            eprintln!("the layer could not store or release the key: {e}");
            Response::from_parts(head, Body::from(body))
        }
    }
}
// ANCHOR_END: idempotent

// ANCHOR: fingerprint
/// SHA-256 (hex) of what makes two requests the same request: the method, the
/// path, and the body normalised as stage 4 does (a body that is not JSON is
/// taken byte for byte, and the route will answer it).
pub fn fingerprint(method: &Method, path: &str, body: &str) -> String {
    let body_hash = stage4::request_hash(body).unwrap_or_else(|_| raw_body_hash(body));
    hex(&Sha256::digest(format!("{method} {path}\n{body_hash}")))
}
// ANCHOR_END: fingerprint

// ANCHOR: reserve
/// Reserves `(client, key)` for this request, in a statement that commits at once;
/// the lease when this request owns the key (new, or taken over from a request
/// that died: reserved longer than the lease ago, never answered, same
/// fingerprint), `None` when another request has it.
pub async fn reserve(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Lease>, sqlx::Error> {
    let lease: Option<i64> = sqlx::query_scalar(
        "INSERT INTO idempotent_requests AS r (client_id, key, fingerprint)
         VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO UPDATE SET reserved_at = now(), lease = r.lease + 1
         WHERE r.status IS NULL AND r.fingerprint = EXCLUDED.fingerprint
           AND r.reserved_at < now() - $4::interval
         RETURNING lease",
    )
    .bind(client.0)
    .bind(key)
    .bind(fingerprint)
    .bind(state.config.lease_interval())
    .fetch_optional(&state.pool)
    .await?;
    Ok(lease.map(Lease))
}
// ANCHOR_END: reserve

// ANCHOR: stored
/// Reads the row of `(client, key)`.
pub async fn stored(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Stored, sqlx::Error> {
    type Row = (String, Option<i32>, Option<Value>, Option<Vec<u8>>);
    let row: Option<Row> = sqlx::query_as(
        "SELECT fingerprint, status, headers, body FROM idempotent_requests
         WHERE client_id = $1 AND key = $2",
    )
    .bind(client.0)
    .bind(key)
    .fetch_optional(pool)
    .await?;
    Ok(match row {
        Some((stored, ..)) if stored != fingerprint => Stored::OtherRequest,
        Some((_, Some(status), Some(Value::Object(headers)), Some(body))) => Stored::Answer {
            status: u16::try_from(status).unwrap_or(500),
            headers,
            body,
        },
        Some((_, Some(status), _, None)) => Stored::NotKept {
            status: u16::try_from(status).unwrap_or(500),
        },
        // No answer yet; or no row at all: the route failed and its key was
        // released between our INSERT and this read. Either way: retry later.
        _ => Stored::InFlight,
    })
}

// ANCHOR_END: stored

// ANCHOR: store
/// Stores the route's answer (`body`: `None` when it is too large to keep) with
/// the key, if this request still holds its lease; true when it did. A stored
/// answer is never changed: the `status IS NULL` guard.
pub async fn store(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
    head: &Parts,
    body: Option<&Bytes>,
) -> Result<bool, sqlx::Error> {
    let kept: Map<String, Value> = REPLAYED_HEADERS
        .iter()
        .filter_map(|name| {
            let value = head.headers.get(name)?.to_str().ok()?;
            Some((name.as_str().to_owned(), Value::from(value)))
        })
        .collect();
    let stored = sqlx::query(
        "UPDATE idempotent_requests SET status = $4, headers = $5, body = $6
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND status IS NULL",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .bind(i32::from(head.status.as_u16()))
    .bind(Value::Object(kept))
    .bind(body.map(Bytes::as_ref))
    .execute(pool)
    .await?;
    Ok(stored.rows_affected() == 1)
}

/// Deletes the reservation of a request whose route failed, so a retry runs it;
/// only while this request holds its lease (true when it did).
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
) -> Result<bool, sqlx::Error> {
    let released = sqlx::query(
        "DELETE FROM idempotent_requests
         WHERE client_id = $1 AND key = $2 AND lease = $3 AND status IS NULL",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .execute(pool)
    .await?;
    Ok(released.rows_affected() == 1)
}
// ANCHOR_END: store
