//! Stage 8: one key per client.
//!
//! Every request says which client sends it (`Authorization: Bearer <token>`), and
//! a key is that client's: the key's identity is `(client_id, key)`. Two clients
//! that pick the same key text make two payments, and neither ever receives the
//! other's stored answer. A replayed answer says so (`Idempotent-Replayed: true`),
//! and a transaction that PostgreSQL rolls back with a serialization failure is run
//! again, a bounded number of times.
//!
//! Write `authenticate` in `client.rs`, `create_payment` and `attempt_once` in
//! `payment.rs`, and the primary key in `migrations/0001_clients.sql`; run
//! `cargo workbook stage 8`, and `cargo workbook hint 8` when stuck. The route below is
//! given.

mod client;
mod payment;

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::response::Response;
use axum::routing::post;
use payment_model::{PaymentError, Reply};
use sqlx::PgPool;
use stage6::IdempotencyKey;

pub use axum::Router;
pub use client::{AuthError, ClientId, Unauthenticated, authenticate, token_hash};
pub use payment::{Answer, create_payment, is_serialization_failure};

/// The migration this stage's tables come from, and its path (named in errors).
pub const MIGRATION: &str = include_str!("../migrations/0001_clients.sql");
pub const MIGRATION_SOURCE: &str = "exercises/stage8-key-per-client/migrations/0001_clients.sql";

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
    Router::new()
        .route("/payments", post(create))
        .with_state(App { pool, config })
}

// ANCHOR: handler
async fn create(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    let admitted = match admit(&app.pool, &headers, &body).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let paid = create_payment(
        &app.pool,
        admitted.client,
        admitted.key.as_str(),
        admitted.body,
        &app.config,
    )
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
        // Nothing was committed (the transaction rolled back): the client may retry
        // with the same key, and 5xx tells it so.
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
