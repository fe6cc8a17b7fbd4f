//! Who is calling: the client of `Authorization: Bearer <token>`, looked up by the
//! token's hash.

use axum::http::HeaderMap;
use sqlx::PgPool;

use crate::client::{AuthError, ClientId, Unauthenticated, bearer_token, token_hash};

// ANCHOR: authenticate
/// The client that sends this request, from its bearer token.
pub async fn authenticate(pool: &PgPool, headers: &HeaderMap) -> Result<ClientId, AuthError> {
    let token = bearer_token(headers)?;
    // The statement ends before the payment's transaction begins: this request
    // never holds two connections at once (stage 5).
    let id: Option<i64> = sqlx::query_scalar("SELECT id FROM clients WHERE token_hash = $1")
        .bind(token_hash(token))
        .fetch_optional(pool)
        .await?;
    id.map(ClientId)
        .ok_or(AuthError::Unauthenticated(Unauthenticated::UnknownToken))
}
// ANCHOR_END: authenticate
