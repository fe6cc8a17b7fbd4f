//! What the layer does with one request. The routes have no idempotency code of
//! their own: without the layer, 20 requests with one key pay 20 times. Write the
//! steps below in `idempotent` (`cargo workbook hint 12` when stuck):
//!
//! 1. read the body (`axum::body::to_bytes`, at most `config.max_body_bytes`),
//!    and let stage 8's `admit` find the client and the key (it answers the 401
//!    and 400 problems);
//! 2. `fingerprint` the request: method, path, and the body normalised;
//! 3. note the deadline, `Instant::now() + config.lease`: the route has until the
//!    end of its lease; then `own` the key: `reserve` it in a statement that
//!    commits at once; if another request has it, answer what its row says
//!    (`stored`, then `answer_stored`, given); a row gone by then was released:
//!    reserve once more;
//! 4. run the route with the client in the request's extensions, and read its
//!    whole answer, until the deadline (`answer_within`): past it, the answer is
//!    the layer's own `outcome_unknown()` (given);
//! 5. call `config.after_route`'s `pass()` if there is one: the tests stop a request
//!    there, after the route's commit and before the store;
//! 6. when the answer says nothing was done (`frees_the_key`), `release` the key,
//!    so that a retry runs the route again; otherwise `store` the answer (no body
//!    when it is larger than `config.max_answer_bytes`). Both name the request's
//!    `Lease`: when another request has the key now, they change nothing, and this
//!    request answers what the key says (`answer_stored` again).

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables, dead_code)]

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

/// One request through the layer: the steps 1 to 6 above.
pub async fn idempotent(state: LayerState, route: Route, request: Request) -> Response {
    todo!("stage 12: the layer's steps, 1 to 6 at the top of this file (`cargo workbook hint 12`)")
}

/// Makes this request the owner of `(client, key)`: `Ok` with its lease (from
/// `reserve`); or, when another request has the key, `Err` with the answer to
/// send, what the key's row says (`answer_stored(stored(..).await)`). A row gone
/// when read was released in between: the key is free, reserve it once more.
pub async fn own(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Lease, Response> {
    todo!("stage 12: reserve; if taken, what the row says; if the row is gone, reserve again")
}

/// Runs the route (`run_route`) and reads its whole answer (`axum::body::to_bytes`),
/// until `deadline` (`tokio::time::timeout_at`). Past it, the answer is the
/// layer's own `outcome_unknown()`; a body that fails half way is an
/// `internal_error`.
pub async fn answer_within(
    deadline: Instant,
    route: Route,
    request: Request,
) -> Result<(Parts, Bytes), Response> {
    todo!("stage 12: the route's whole answer, or outcome_unknown() at the deadline")
}

/// Whether the route's answer frees the key (a retry runs the route again)
/// rather than being kept as the key's answer: the route put `NothingDone` in
/// its extensions, or its status is one HTTP defines as "not done, send it
/// again" (408, 409, 425, 429, 503). Any other answer is kept.
pub fn frees_the_key(answer: &Parts) -> bool {
    todo!("stage 12: NothingDone in the extensions, or 408, 409, 425, 429, 503")
}

/// SHA-256 (hex) of what makes two requests the same request: the method, the
/// path, and the body normalised (stage 4's `request_hash`; a body that is not
/// JSON is taken byte for byte, `raw_body_hash`).
pub fn fingerprint(method: &Method, path: &str, body: &str) -> String {
    todo!("stage 12: fingerprint the method, the path and the normalised body")
}

/// Reserves `(client, key)` in `idempotent_requests` with its fingerprint, in a
/// statement that commits at once. The row's `lease` when this request owns the
/// key: new, or taken over from a request that died (reserved longer than
/// `state.config.lease_interval()` ago, never answered, same fingerprint). Each
/// lease is a new number of the sequence `idempotent_request_leases`. `None` when
/// another request has it.
pub async fn reserve(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Lease>, sqlx::Error> {
    todo!(
        "stage 12: INSERT ... ON CONFLICT (client_id, key) DO UPDATE ... WHERE (the lease) RETURNING lease"
    )
}

/// Reads the row of `(client, key)`: another fingerprint, no answer yet, an
/// answer, or an answer not kept (a status without a body); `None` when there
/// is no row.
pub async fn stored(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Stored>, sqlx::Error> {
    todo!("stage 12: SELECT fingerprint, status, headers, body FROM idempotent_requests ...")
}

/// Stores the route's answer with the key: its status, the `REPLAYED_HEADERS` it
/// has (a JSON object, name to value) and its body (`None`: too large to keep).
/// Only while this request holds `lease`, and only once: true when it stored.
pub async fn store(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
    head: &Parts,
    body: Option<&Bytes>,
) -> Result<bool, sqlx::Error> {
    todo!("stage 12: UPDATE idempotent_requests SET status, headers, body WHERE ... the lease")
}

/// Deletes the reservation of a request whose route did nothing, so a retry runs
/// it; only while this request holds `lease`, and the key has no answer.
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
) -> Result<bool, sqlx::Error> {
    todo!("stage 12: DELETE the reservation, if it is still ours and has no answer")
}
