//! What the layer does with one request: read the key and the client, fingerprint
//! the request, reserve the key (committed), run the route, store its answer.
//!
//! The reservation is committed before the route runs, and the answer is stored
//! after it returns, each in a statement of its own: the route's effect commits in
//! between, in the route's own transaction. That gap is the layer's limit, and the
//! stage's tests prove it.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::response::Parts;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use payment_model::{hex, raw_body_hash};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use stage8::{ClientId, admit};
use tokio::time::Instant;

use crate::layer::{LayerState, Lease, NothingDone, Route, run_route};
use crate::responses::{
    REPLAYED_HEADERS, Stored, answer_stored, internal_error, outcome_unknown, too_large,
};

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
    // The route has until the end of the lease, counted from just before the
    // reservation (whose clock starts a moment later): the layer stops waiting
    // before a duplicate may take the key over.
    let deadline = Instant::now() + state.config.lease;
    let lease = match own(&state, client, &key, &fingerprint).await {
        Ok(lease) => lease,
        Err(answer) => return answer,
    };

    // The route runs, and commits its effect in a transaction of its own.
    parts.extensions.insert(client);
    let request = Request::from_parts(parts, Body::from(body));
    let (head, body) = match answer_within(deadline, route, request).await {
        Ok(answer) => answer,
        Err(failed) => return failed,
    };

    // The gap: the effect is committed, its answer not yet stored. A request that
    // dies here leaves its key reserved and unanswered.
    if let Some(crash) = &state.config.after_route {
        crash.pass().await;
    }

    let kept = if frees_the_key(&head) {
        // Nothing was done: the key goes, so that a retry runs the route.
        release(&state.pool, client, &key, lease).await
    } else {
        // Done, refused for good, or unknown: the answer is kept, or, too large to
        // keep, the key is marked answered without one. Either way the route never
        // runs again for this key.
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
            // This answer is true: send it. The key stays reserved without an
            // answer, as after a crash.
            eprintln!("the layer could not store or release the key: {e}");
            Response::from_parts(head, Body::from(body))
        }
    }
}
// ANCHOR_END: idempotent

// ANCHOR: own
/// Makes this request the owner of `(client, key)`: its lease; or, when another
/// request has the key, the answer to send, what the key's row says.
pub async fn own(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Lease, Response> {
    // A row gone by the time it is read was released by its request between our
    // two statements: the key is free, and one more reservation takes it.
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
// ANCHOR_END: own

// ANCHOR: answer_within
/// Runs the route and reads its whole answer, until `deadline` (the end of the
/// lease). Past it the route is dropped where it was, as a crash would drop it,
/// and the answer is the layer's own: the outcome is unknown.
pub async fn answer_within(
    deadline: Instant,
    route: Route,
    request: Request,
) -> Result<(Parts, Bytes), Response> {
    let answered = tokio::time::timeout_at(deadline, async {
        whole(run_route(route, request).await).await
    })
    .await;
    let (head, body) = match answered {
        Ok(answer) => answer,
        Err(_) => whole(outcome_unknown()).await,
    };
    match body {
        Ok(body) => Ok((head, body)),
        // A body that fails half way leaves the key as after a crash.
        Err(e) => Err(internal_error("reading the route's answer", &e)),
    }
}

/// An answer, its body buffered: the layer must hold it whole to store it.
async fn whole(response: Response) -> (Parts, Result<Bytes, axum::Error>) {
    let (head, body) = response.into_parts();
    (head, axum::body::to_bytes(body, usize::MAX).await)
}
// ANCHOR_END: answer_within

// ANCHOR: frees_the_key
/// Whether the route's answer frees the key, so that a retry runs the route
/// again, instead of being kept as the key's answer. Only when nothing was done:
/// the route says so (`NothingDone`), or HTTP does (408, 409, 425, 429 and 503
/// ask for the request to be sent again). Any other answer is kept: a 2xx or a
/// 4xx is the request's outcome, and any other 5xx leaves it unknown.
pub fn frees_the_key(answer: &Parts) -> bool {
    answer.extensions.get::<NothingDone>().is_some()
        || matches!(
            answer.status,
            StatusCode::REQUEST_TIMEOUT
                | StatusCode::CONFLICT
                | StatusCode::TOO_EARLY
                | StatusCode::TOO_MANY_REQUESTS
                | StatusCode::SERVICE_UNAVAILABLE
        )
}
// ANCHOR_END: frees_the_key

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
/// fingerprint), `None` when another request has it. Each lease is a new number
/// of the sequence: never one a request already holds, even for a row made again.
pub async fn reserve(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Lease>, sqlx::Error> {
    let lease: Option<i64> = sqlx::query_scalar(
        "INSERT INTO idempotent_requests AS r (client_id, key, fingerprint)
         VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO UPDATE
            SET reserved_at = now(), lease = nextval('idempotent_request_leases')
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
/// Reads the row of `(client, key)`; `None` when there is none (its request
/// released the key).
pub async fn stored(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Stored>, sqlx::Error> {
    type Row = (String, Option<i32>, Option<Value>, Option<Vec<u8>>);
    let row: Option<Row> = sqlx::query_as(
        "SELECT fingerprint, status, headers, body FROM idempotent_requests
         WHERE client_id = $1 AND key = $2",
    )
    .bind(client.0)
    .bind(key)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| match row {
        (stored, ..) if stored != fingerprint => Stored::OtherRequest,
        (_, Some(status), Some(Value::Object(headers)), Some(body)) => Stored::Answer {
            status: u16::try_from(status).unwrap_or(500),
            headers,
            body,
        },
        (_, Some(status), _, None) => Stored::NotKept {
            status: u16::try_from(status).unwrap_or(500),
        },
        // No answer yet: its request is in flight, or died.
        _ => Stored::InFlight,
    }))
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

/// Deletes the reservation of a request whose route did nothing, so a retry runs
/// it; only while this request holds its lease (true when it did).
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
