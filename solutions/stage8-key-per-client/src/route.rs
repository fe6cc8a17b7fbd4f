//! The route: who sends a request, with which key, and how `create_payment`'s
//! answer goes back over HTTP. Given to the learner as it is (the exercise compiles
//! this file with `#[path]`), and served by stage 9 with its own payment
//! ([`Payments`]).

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::middleware;
use axum::response::Response;
use axum::routing::post;
use payment_model::{PaymentError, Reply};
use sqlx::PgPool;
use stage6::IdempotencyKey;

use crate::{Answer, AuthError, ClientId, Router, Unauthenticated, authenticate, create_payment};

/// The header that marks a replayed answer, as Stripe's API sends it.
pub const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// How the route waits and retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// How long a duplicate waits for this client's request in flight with its
    /// key before it is told `409, retry later` (stage 5's `lock_timeout`).
    pub in_flight_wait: Duration,
    /// How many times one request's transaction is run at most, when PostgreSQL
    /// rolls it back with a serialization failure (1: never retried).
    pub attempts: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            in_flight_wait: Duration::from_millis(250),
            attempts: 3,
        }
    }
}

/// Serves `router` on `listener` until the process ends; a client that takes
/// longer than [`payment_model::HEADER_READ_TIMEOUT`] to send a request's head
/// loses its connection.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    payment_model::serve(listener, router).await
}

/// The payments API with the default [`Config`].
pub fn router(pool: PgPool) -> Router {
    router_with(pool, Config::default())
}

/// The shared state of the handler.
#[derive(Debug, Clone)]
pub struct App {
    pub pool: PgPool,
    pub config: Config,
}

/// The payments API: one route, `POST /payments`.
pub fn router_with(pool: PgPool, config: Config) -> Router {
    payments_router(App { pool, config })
}

/// What the payments route needs from a stage: its pool, and the payment it makes
/// for an admitted request. Stage 8 and the stages after it serve this one route,
/// each with its own `create_payment`.
pub trait Payments: Clone + Send + Sync + 'static {
    fn pool(&self) -> &PgPool;

    /// The stage's `create_payment` for `body`, sent by `client` with `key`.
    fn pay(
        &self,
        client: ClientId,
        key: &str,
        body: &str,
    ) -> impl Future<Output = Result<Answer, PaymentError>> + Send;
}

impl Payments for App {
    fn pool(&self) -> &PgPool {
        &self.pool
    }

    async fn pay(&self, client: ClientId, key: &str, body: &str) -> Result<Answer, PaymentError> {
        create_payment(&self.pool, client, key, body, &self.config).await
    }
}

/// `POST /payments`, answered with `payments`' own `create_payment`; its body read
/// within stage 6's bound (408 past it); axum's own refusals (a body over its
/// limit, another method or path) as problems, like the route's.
pub fn payments_router<P: Payments>(payments: P) -> Router {
    Router::new()
        .route("/payments", post(create::<P>))
        .with_state(payments)
        .route_layer(middleware::from_fn(stage6::body_within_bound))
        .layer(middleware::map_response(stage6::refusals_as_problems))
}

// ANCHOR: handler
async fn create<P: Payments>(State(app): State<P>, headers: HeaderMap, body: Bytes) -> Response {
    let admitted = match admit(app.pool(), &headers, &body).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let paid = app
        .pay(admitted.client, admitted.key.as_str(), admitted.body)
        .await;
    answer(paid)
}
// ANCHOR_END: handler

/// A request that may go on to `create_payment`: who sends it, with which key.
#[derive(Debug)]
pub struct Admitted<'a> {
    pub client: ClientId,
    pub key: IdempotencyKey,
    pub body: &'a str,
}

// ANCHOR: admit
/// Who sends the request, its key and its body; or the refusal to answer. The
/// client comes first: a request from nobody is told 401 whatever else is wrong
/// with it, and nothing is stored for it.
pub async fn admit<'a>(
    pool: &PgPool,
    headers: &HeaderMap,
    body: &'a [u8],
) -> Result<Admitted<'a>, Response> {
    let client = match authenticate(pool, headers).await {
        Ok(client) => client,
        Err(AuthError::Unauthenticated(why)) => return Err(unauthorized(why)),
        Err(AuthError::Database(e)) => {
            eprintln!("POST /payments: {e}");
            return Err(respond(Reply::internal_error(), false));
        }
    };
    let key = IdempotencyKey::from_headers(headers).map_err(|why| respond(why.reply(), false))?;
    let body = std::str::from_utf8(body)
        .map_err(|_| respond(Reply::invalid_body("the body is not UTF-8 text"), false))?;
    Ok(Admitted { client, key, body })
}
// ANCHOR_END: admit

/// What `create_payment` returned, as an HTTP response.
pub fn answer(paid: Result<Answer, PaymentError>) -> Response {
    match paid {
        Ok(answer) => respond(answer.reply, answer.replayed),
        Err(PaymentError::InvalidBody(why)) => {
            respond(Reply::invalid_body(&why.to_string()), false)
        }
        // Either nothing was committed (the transaction rolled back), or the error
        // came after PostgreSQL committed (COMMIT's answer was lost with the
        // connection). The route cannot tell which; a retry with the same key is
        // safe in both cases, and the 500's body says the outcome is unknown.
        Err(e) => {
            eprintln!("POST /payments: {e}");
            respond(Reply::internal_error(), false)
        }
    }
}

fn unauthorized(why: Unauthenticated) -> Response {
    let mut response = respond(why.reply(), false);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(why.challenge()),
    );
    response
}

// ANCHOR: respond
/// The reply as stage 6 sends it (problem+json refusals, `Retry-After` on the
/// answers that ask for a retry), and a replayed answer marked
/// `Idempotent-Replayed: true`.
fn respond(reply: Reply, replayed: bool) -> Response {
    let mut response = stage6::respond(reply);
    if replayed {
        response
            .headers_mut()
            .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    }
    response
}
// ANCHOR_END: respond

#[cfg(test)]
mod tests {
    use super::*;
    use payment_model::problem;

    #[test]
    fn a_409_and_a_502_tell_the_client_when_to_retry() {
        let provider_failed = problem(502, "provider-failed", "t", "d");
        for reply in [Reply::in_flight(), provider_failed] {
            let status = reply.status;
            let response = answer(Ok(Answer::first(reply)));
            assert_eq!(
                response.headers().get(header::RETRY_AFTER),
                Some(&HeaderValue::from_static("1")),
                "a {status} asks for a retry with the same key: it carries Retry-After"
            );
        }
        let reused = answer(Ok(Answer::first(Reply::key_reused())));
        assert_eq!(
            reused.headers().get(header::RETRY_AFTER),
            None,
            "a 422 is final"
        );
    }
}
