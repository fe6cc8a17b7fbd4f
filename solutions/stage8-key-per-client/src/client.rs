//! Who is calling: the client, its bearer token, and why a request was not let in.
//! Given to the learner as it is (the exercise compiles this file with `#[path]`);
//! `authenticate.rs` looks the client up.

use axum::http::{HeaderMap, header};
use payment_model::{Reply, hex, problem};
use sha2::{Digest, Sha256};

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

// ANCHOR: bearer_token
/// The token of `Authorization: Bearer <token>`. The scheme is case-insensitive
/// (RFC 9110, section 11.1).
pub fn bearer_token(headers: &HeaderMap) -> Result<&str, Unauthenticated> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(Unauthenticated::NoToken);
    };
    let value = value.to_str().map_err(|_| Unauthenticated::Malformed)?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Another scheme (Basic, ...) carries no bearer token.
        return Err(Unauthenticated::NoToken);
    }
    match token.trim() {
        "" => Err(Unauthenticated::Malformed),
        token => Ok(token),
    }
}
// ANCHOR_END: bearer_token

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(value).expect("a valid header value"),
        );
        headers
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        assert_eq!(
            bearer_token(&with_authorization("bearer abc")),
            Ok("abc"),
            "RFC 9110: auth-scheme is case-insensitive"
        );
    }

    #[test]
    fn another_scheme_is_no_token() {
        assert_eq!(
            bearer_token(&with_authorization("Basic dXNlcjpwYXNz")),
            Err(Unauthenticated::NoToken)
        );
    }

    #[test]
    fn an_empty_bearer_token_is_malformed() {
        assert_eq!(
            bearer_token(&with_authorization("Bearer ")),
            Err(Unauthenticated::Malformed)
        );
    }

    #[test]
    fn the_token_hash_is_sha256_hex() {
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
