//! Stage 6: `POST /payments` over HTTP, on top of stage 5's `create_payment`.
//!
//! Write the handler below and `IdempotencyKey::parse` in `key.rs`; run
//! `cargo workbook stage 6`, and `cargo workbook hint 6` when stuck.
//!
//! The route requires an `Idempotency-Key`: a route that pays must not let a client
//! forget it and find out only when a retry charges twice. Every refusal is an RFC
//! 9457 problem (`application/problem+json`), and nothing is stored for a request
//! that is refused before it reaches `create_payment`.

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables, dead_code)]

mod key;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use payment_model::{PaymentError, Reply};
use sqlx::PgPool;

pub use axum::Router;
pub use key::IdempotencyKey;
pub use payment_model::{KeyProblem, MAX_KEY_LENGTH};

/// Serves `router` on `listener` until the process ends; a client that takes
/// longer than [`payment_model::HEADER_READ_TIMEOUT`] to send a request's head
/// loses its connection.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    payment_model::serve(listener, router).await
}

/// The payments API: one route, `POST /payments`.
pub fn router(pool: PgPool) -> Router {
    Router::new()
        .route("/payments", post(create))
        .with_state(pool)
        .layer(middleware::map_response(refusals_as_problems))
}

/// Axum refuses some requests before any handler runs: a body over its 2 MB
/// default limit (413), another method (405), another path (404). Its answers are
/// plain text or empty; a client that reads problems would get none. They become
/// problems here, with the same status (and `Allow` kept on a 405).
async fn refusals_as_problems(response: Response) -> Response {
    let status = response.status();
    let already_a_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value == "application/problem+json");
    if already_a_problem || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (slug, title, detail) = match status {
        StatusCode::PAYLOAD_TOO_LARGE => (
            "body-too-large",
            "The request body is too large",
            "A payment is a few dozen bytes; this route reads at most 2 MB.",
        ),
        StatusCode::METHOD_NOT_ALLOWED => (
            "method-not-allowed",
            "Method not allowed",
            "This route accepts POST only.",
        ),
        StatusCode::NOT_FOUND => (
            "not-found",
            "Not found",
            "The payments API has one route: POST /payments.",
        ),
        _ => (
            "http-error",
            "The request was refused",
            "The HTTP layer refused the request.",
        ),
    };
    let allow = response.headers().get(header::ALLOW).cloned();
    let mut problem = respond(payment_model::problem(status.as_u16(), slug, title, detail));
    if let Some(allow) = allow {
        problem.headers_mut().insert(header::ALLOW, allow);
    }
    problem
}

/// `POST /payments`. Refuse a request without a valid key with its problem
/// (`IdempotencyKey::from_headers`, then `KeyProblem::reply`), refuse a body that is
/// not UTF-8 with `Reply::invalid_body(..)`, then answer with what
/// `stage5::create_payment` returns: its `Reply`, a 400 problem for
/// `PaymentError::InvalidBody`, or `Reply::internal_error()` for any other error. Answer every
/// `Reply` with `respond(..)`.
async fn create(State(pool): State<PgPool>, headers: HeaderMap, body: Bytes) -> Response {
    todo!("stage 6: write the handler (see the comment above, or `cargo workbook hint 6`)")
}

/// The reply as an HTTP response: refusals as `application/problem+json`, and
/// `Retry-After` on the answers that ask for a retry.
fn respond(reply: Reply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = if status.is_client_error() || status.is_server_error() {
        "application/problem+json"
    } else {
        "application/json"
    };
    let mut response = (
        status,
        [(header::CONTENT_TYPE, content_type)],
        reply.body.to_string(),
    )
        .into_response();
    // 409 and 502 ask for a retry with the same key: say when.
    if let Some(seconds) = reply.retry_after() {
        let seconds = HeaderValue::from(seconds);
        response.headers_mut().insert(header::RETRY_AFTER, seconds);
    }
    response
}
