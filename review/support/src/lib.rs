//! What the routes of `just review` share, so that each route's file holds only
//! what there is to review: how it reads the key, reserves it, pays, stores and
//! replays the answer.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use payment_model::{PaymentRequest, Reply};

pub use axum::Router;

/// Serves `router` on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    axum::serve(listener, router).await
}

/// Stage 4's hash: the same payment written with its fields in another order or
/// with other spacing has the same hash.
pub fn request_hash(request: &PaymentRequest) -> String {
    // A `PaymentRequest` serialises to JSON, which stage 4's hash always accepts.
    stage4::request_hash(&request.to_body()).unwrap_or_default()
}

/// The reply as an HTTP response: refusals as `application/problem+json`.
pub fn respond(reply: Reply) -> Response {
    let status =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = if status.is_client_error() || status.is_server_error() {
        "application/problem+json"
    } else {
        "application/json"
    };
    (
        status,
        [(header::CONTENT_TYPE, content_type)],
        reply.body.to_string(),
    )
        .into_response()
}
