//! The handler of `POST /payments`: the key, the body, then stage 5's
//! `create_payment`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use payment_model::{PaymentError, Reply};
use sqlx::PgPool;

use crate::{IdempotencyKey, respond};

// ANCHOR: handler
pub async fn create(State(pool): State<PgPool>, headers: HeaderMap, body: Bytes) -> Response {
    let key = match IdempotencyKey::from_headers(&headers) {
        Ok(key) => key,
        Err(refused) => return respond(refused.reply()),
    };
    // Not UTF-8 is not JSON: refused like any other invalid body.
    let Ok(body) = std::str::from_utf8(&body) else {
        return respond(Reply::invalid_body("the body is not UTF-8 text"));
    };
    match stage5::create_payment(&pool, key.as_str(), body).await {
        Ok(reply) => respond(reply),
        Err(PaymentError::InvalidBody(why)) => respond(Reply::invalid_body(&why.to_string())),
        // Either nothing was committed (the transaction rolled back), or the error
        // came after PostgreSQL committed (COMMIT's answer was lost). The route cannot
        // tell which; a retry with the same key is safe in both cases, and 5xx says so.
        Err(_) => respond(Reply::internal_error()),
    }
}
// ANCHOR_END: handler
