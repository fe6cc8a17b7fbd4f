//! The route around the handler: the router, axum's own refusals turned into
//! problems, and how a `Reply` goes out. Given to the learner as it is (the
//! exercise compiles this file with `#[path]`); `handler.rs` is the handler.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use payment_model::Reply;
use sqlx::PgPool;

use crate::Router;
use crate::handler::create;

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
        .route_layer(middleware::from_fn(body_within_bound))
        .layer(middleware::map_response(refusals_as_problems))
}

// ANCHOR: body_within_bound
/// How long a client may take to send a request's body, once its head is in
/// (hyper bounds the head: [`payment_model::HEADER_READ_TIMEOUT`]). A payment is
/// a few dozen bytes, sent with its head; a client still sending after this long
/// is stuck or hostile.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Reads the whole body before the handler runs, within [`BODY_READ_TIMEOUT`].
///
/// Axum reads a body for as long as the client takes to send it: its limit is on
/// size, not time, hyper's timer is on the head only, and tower-http's body
/// timeout restarts with every chunk (a client that sends a byte now and then is
/// never cut off). A client that stops after part of its body would keep its
/// connection, and the task serving it, for ever. Past the bound the answer is
/// 408 Request Timeout (RFC 9110, 15.5.9: the server did not receive a complete
/// request in the time it was prepared to wait), nothing is stored, and the
/// connection closes: the rest of that body may still come, and could not be told
/// from a next request. Stage 7's client retries a 408 with the same key.
pub async fn body_within_bound(request: Request, next: Next) -> Response {
    let (head, body) = request.into_parts();
    // `Bytes` reads up to the body limit (axum's 2 MB default, or a
    // `DefaultBodyLimit` layer's), and refuses more with 413.
    let read = Bytes::from_request(Request::from_parts(head.clone(), body), &());
    match tokio::time::timeout(BODY_READ_TIMEOUT, read).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(head, Body::from(bytes))).await,
        Ok(Err(refused)) => refused.into_response(),
        Err(_) => {
            let mut response = respond(body_timeout());
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

/// The 408 problem of a body that did not arrive within [`BODY_READ_TIMEOUT`].
fn body_timeout() -> Reply {
    payment_model::problem(
        408,
        "body-timeout",
        "The request body did not arrive in time",
        &format!(
            "The body must arrive within {} s of the request's head. Nothing was stored: send \
             the request again, with the same Idempotency-Key.",
            BODY_READ_TIMEOUT.as_secs()
        ),
    )
}
// ANCHOR_END: body_within_bound

// ANCHOR: refusals_as_problems
/// Axum refuses some requests before any handler runs: a body over its 2 MB
/// default limit (413), another method (405), another path (404). Its answers are
/// plain text or empty; a client that reads problems would get none. They become
/// problems here, with the same status (and `Allow` kept on a 405). Stage 8's route,
/// and the stages' after it, are served behind it too.
pub async fn refusals_as_problems(response: Response) -> Response {
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
// ANCHOR_END: refusals_as_problems

/// The reply as an HTTP response: refusals as `application/problem+json`, and
/// `Retry-After` on the answers that ask for a retry.
pub fn respond(reply: Reply) -> Response {
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

#[cfg(test)]
mod tests {
    use super::*;
    use payment_model::problem;

    #[test]
    fn a_409_and_a_502_tell_the_client_when_to_retry() {
        let provider_failed = problem(502, "provider-failed", "t", "d");
        for reply in [Reply::in_flight(), provider_failed] {
            let status = reply.status;
            let response = respond(reply);
            assert_eq!(
                response.headers().get(header::RETRY_AFTER),
                Some(&HeaderValue::from_static("1")),
                "a {status} asks for a retry with the same key: it carries Retry-After"
            );
        }
        let reused = respond(Reply::key_reused());
        assert_eq!(
            reused.headers().get(header::RETRY_AFTER),
            None,
            "a 422 is final"
        );
    }
}
