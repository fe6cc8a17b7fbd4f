//! The responses the layer sends of its own: a refusal, or a stored answer played
//! again. Given in the exercise: building a response is not the lesson.

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use payment_model::{Reply, problem};
use serde_json::{Map, Value};
use stage8::{Answer, IDEMPOTENT_REPLAYED, answer};

/// The response headers a replay repeats. Others (`date`, `content-length`, ...)
/// describe this one response, and are made again for the replay.
pub const REPLAYED_HEADERS: [HeaderName; 2] = [header::CONTENT_TYPE, header::LOCATION];

// ANCHOR: replayed_answer
/// What the row of a key this request does not own says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// The key was used for another request (method, path or body): 422.
    OtherRequest,
    /// Reserved, not answered: its request is in flight (or died): 409.
    InFlight,
    /// The answer to replay.
    Answer {
        status: u16,
        headers: Map<String, Value>,
        body: Vec<u8>,
    },
    /// Answered with `status`, but the answer was larger than the layer keeps:
    /// 410, with a problem that says the request was done and must not be sent
    /// again under a new key.
    NotKept { status: u16 },
}

impl Stored {
    /// The response to send: a problem, or the stored answer marked as a replay.
    pub fn into_response(self) -> Response {
        match self {
            Self::OtherRequest => refuse(problem(
                422,
                "key-reused",
                "Idempotency-Key already used with a different request",
                "This key was used with another method, path or body. Send a new \
                 Idempotency-Key for a new request; repeat a key only with the same request.",
            )),
            Self::InFlight => refuse(Reply::in_flight()),
            Self::NotKept { status } => refuse(problem(
                410,
                "answer-not-kept",
                "The request with this Idempotency-Key was done; its answer was not kept",
                &format!(
                    "The first request with this key was answered with status {status}, and \
                     its answer was too large to keep for replay. Do not send the request \
                     again with a new key: it was done; look its result up instead."
                ),
            )),
            Self::Answer {
                status,
                headers,
                body,
            } => {
                let mut response = Response::new(Body::from(body));
                *response.status_mut() =
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                for (name, value) in headers {
                    let name = HeaderName::try_from(name);
                    let value = value.as_str().map(HeaderValue::from_str);
                    if let (Ok(name), Some(Ok(value))) = (name, value) {
                        response.headers_mut().insert(name, value);
                    }
                }
                response
                    .headers_mut()
                    .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
                response
            }
        }
    }
}

/// The answer for a request that does not own its key: what `stored` read of the
/// key's row; 409 when the row is gone (its request released the key: a retry
/// will find it free); a 500 when it could not be read.
pub fn answer_stored(read: Result<Option<Stored>, sqlx::Error>) -> Response {
    match read {
        Ok(Some(stored)) => stored.into_response(),
        Ok(None) => Stored::InFlight.into_response(),
        Err(e) => internal_error("reading a stored answer", &e),
    }
}
// ANCHOR_END: replayed_answer

/// A reply as a response (a problem for a 4xx or 5xx), through stage 8's `answer`.
pub(crate) fn refuse(reply: Reply) -> Response {
    answer(Ok(Answer::first(reply)))
}

/// The body is larger than `max_body_bytes`: 413, before anything is reserved.
pub fn too_large() -> Response {
    refuse(problem(
        413,
        "body-too-large",
        "The request body is too large",
        "The body is larger than this API accepts.",
    ))
}

/// The route still ran when its lease ended: the layer stopped waiting for it, and
/// cannot know what it did. Kept as the key's answer, like any 5xx.
pub fn outcome_unknown() -> Response {
    refuse(problem(
        500,
        "outcome-unknown",
        "The outcome of the request is unknown",
        "The request took longer than this server waits; it may still have been done. \
         This key keeps this answer: find out whether it was done before you send it \
         again under a new Idempotency-Key.",
    ))
}

/// The layer itself failed: nothing of the route ran, or its answer is unknown.
pub fn internal_error(doing: &str, e: &dyn std::fmt::Display) -> Response {
    eprintln!("the idempotency layer failed {doing}: {e}");
    refuse(Reply::internal_error())
}
