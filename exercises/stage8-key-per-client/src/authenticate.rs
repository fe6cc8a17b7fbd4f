// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! Who is calling: the client of `Authorization: Bearer <token>`, looked up by the
//! token's hash. Write `authenticate`. The client's types, `bearer_token` and
//! `token_hash` are given: the model answer's `client.rs`, compiled into this crate.

use axum::http::HeaderMap;
use sqlx::PgPool;

use crate::client::{AuthError, ClientId, Unauthenticated, bearer_token, token_hash};

// ANCHOR: authenticate
/// The client that sends this request, from its bearer token.
///
/// Read the token with `bearer_token(headers)?` (no header, another scheme or an
/// empty token is already an `Unauthenticated`). Then look up
/// `SELECT id FROM clients WHERE token_hash = $1` with `token_hash(token)`: no row
/// is `Unauthenticated::UnknownToken`.
pub async fn authenticate(pool: &PgPool, headers: &HeaderMap) -> Result<ClientId, AuthError> {
    todo!(
        "stage 8: find the client from its bearer token (see the comment above, or `cargo workbook hint 8`)"
    )
}
// ANCHOR_END: authenticate
