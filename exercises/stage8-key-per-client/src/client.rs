// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! Who is calling: `Authorization: Bearer <token>`, looked up by the token's hash.

use axum::http::{HeaderMap, header};
use payment_model::{Reply, hex, problem};
use sha2::{Digest, Sha256};
use sqlx::PgPool;

/// A client of the API: the `id` of its row in `clients`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientId(pub i64);

/// Why a request was not let in (each is a `401` problem).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unauthenticated {
    #[error("the request has no bearer token: send `Authorization: Bearer <your API token>`")]
    NoToken,
    #[error("the Authorization header is not `Bearer <token>`")]
    Malformed,
    #[error("the bearer token is not known: check the API token you were given")]
    UnknownToken,
}

impl Unauthenticated {
    /// The `401` problem that answers it.
    pub fn reply(&self) -> Reply {
        problem(
            401,
            "unauthenticated",
            "The request does not say which client sends it",
            &self.to_string(),
        )
    }

    /// The `WWW-Authenticate` challenge a 401 must carry (RFC 9110, section
    /// 11.6.1), in the form of RFC 6750, section 3: no error code when the request
    /// had no token, `invalid_token` when the token was malformed or unknown.
    pub fn challenge(&self) -> &'static str {
        match self {
            Self::NoToken => r#"Bearer realm="payments""#,
            Self::Malformed | Self::UnknownToken => {
                r#"Bearer realm="payments", error="invalid_token""#
            }
        }
    }
}

/// Why `authenticate` gave no client.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error(transparent)]
    Unauthenticated(#[from] Unauthenticated),
    #[error("database error while looking the client up: {0}")]
    Database(#[from] sqlx::Error),
}

/// SHA-256 of a token, in lower-case hex: what `clients.token_hash` stores.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

// ANCHOR: authenticate
/// The client that sends this request, from its bearer token.
///
/// Read the token of `Authorization: Bearer <token>` (the scheme is
/// case-insensitive): no header, or another scheme, is `Unauthenticated::NoToken`;
/// `Bearer` with nothing after it is `Unauthenticated::Malformed`. Then look up
/// `SELECT id FROM clients WHERE token_hash = $1` with `token_hash(token)`: no row
/// is `Unauthenticated::UnknownToken`.
pub async fn authenticate(pool: &PgPool, headers: &HeaderMap) -> Result<ClientId, AuthError> {
    todo!(
        "stage 8: find the client from its bearer token (see the comment above, or `cargo workbook hint 8`)"
    )
}
// ANCHOR_END: authenticate
