//! Two routes with no idempotency code of their own: each makes its effect in a
//! transaction of its own (one INSERT, committed when it ends) and answers. The
//! routers below serve them bare, or wrapped in [`IdempotencyLayer`].

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use payment_model::{PaymentRequest, Reply};
use serde::Deserialize;
use serde_json::json;
use sqlx::PgPool;
use sqlx::postgres::{PgDatabaseError, PgSeverity};
use stage8::{Answer, AuthError, ClientId, answer, authenticate};

use crate::idempotency::idempotent;
use crate::layer::{BoxFuture, Config, IdempotencyLayer, LayerState, NothingDone, Route};

pub use axum::Router;

/// Serves `router` on `listener` until the process ends; a client that takes
/// longer than [`payment_model::HEADER_READ_TIMEOUT`] to send a request's head
/// loses its connection.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    payment_model::serve(listener, router).await
}

/// The API with the layer and its default [`Config`].
pub fn router(pool: PgPool) -> Router {
    router_with(pool, Config::default())
}

/// The API with the layer configured by `config`.
pub fn router_with(pool: PgPool, config: Config) -> Router {
    router_with_layer(pool.clone(), idempotency_layer(pool, config))
}

/// The layer, running every request through this stage's [`handle`].
pub fn idempotency_layer(pool: PgPool, config: Config) -> IdempotencyLayer {
    IdempotencyLayer::with_handle(pool, config, handle)
}

/// The layer's handler function: `idempotent`, its future boxed.
pub fn handle(state: LayerState, route: Route, request: Request) -> BoxFuture<Response> {
    Box::pin(idempotent(state, route, request))
}

// ANCHOR: router
/// `POST /payments` and `POST /refunds`, each made idempotent by one line.
/// `MethodRouter::route_layer` wraps the `post` handler only: a `GET /payments` is
/// told 405 by axum, and reserves no key. (`MethodRouter::layer`, and in axum 0.8
/// `Router::route_layer` too, also wrap the 405 fallback.)
pub fn router_with_layer(pool: PgPool, idempotency: IdempotencyLayer) -> Router {
    Router::new()
        .route("/payments", post(pay).route_layer(idempotency.clone()))
        .route("/refunds", post(refund).route_layer(idempotency))
        .with_state(pool)
}
// ANCHOR_END: router

/// The same routes without the layer: what they do on their own.
pub fn bare_router(pool: PgPool) -> Router {
    Router::new()
        .route("/payments", post(pay))
        .route("/refunds", post(refund))
        .with_state(pool)
}

// ANCHOR: pay
/// `POST /payments`: pays, and says where the payment is. Nothing here knows
/// about keys; it says only, when it knows, that it did nothing.
pub async fn pay(State(pool): State<PgPool>, Client(client): Client, body: String) -> Response {
    let request = match PaymentRequest::parse(&body) {
        Ok(request) => request,
        Err(why) => return nothing_done(refuse(Reply::invalid_body(&why.to_string()))),
    };
    let paid: Result<i64, sqlx::Error> = sqlx::query_scalar(
        "INSERT INTO payments (client_id, order_id, amount) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(client.0)
    .bind(request.order_id)
    .bind(request.amount)
    .fetch_one(&pool)
    .await;
    match paid {
        Ok(id) => created(
            &format!("/payments/{id}"),
            Reply::created(id, &request).body,
        ),
        Err(e) => failed("POST /payments", e),
    }
}
// ANCHOR_END: pay

/// The body of `POST /refunds`: `{"paymentId": 1, "amount": 50}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefundRequest {
    payment_id: i64,
    amount: i32,
}

/// `POST /refunds`: refunds (part of) a payment of the client.
pub async fn refund(State(pool): State<PgPool>, Client(client): Client, body: String) -> Response {
    let request: RefundRequest = match serde_json::from_str(&body) {
        Ok(request) => request,
        Err(why) => return nothing_done(refuse(Reply::invalid_body(&why.to_string()))),
    };
    let refunded: Result<Option<i64>, sqlx::Error> = sqlx::query_scalar(
        "INSERT INTO refunds (client_id, payment_id, amount)
         SELECT client_id, id, $3 FROM payments WHERE id = $2 AND client_id = $1
         RETURNING id",
    )
    .bind(client.0)
    .bind(request.payment_id)
    .bind(request.amount)
    .fetch_optional(&pool)
    .await;
    match refunded {
        Ok(Some(id)) => created(
            &format!("/refunds/{id}"),
            json!({ "id": id.to_string(), "paymentId": request.payment_id, "amount": request.amount }),
        ),
        Ok(None) => refuse(payment_model::problem(
            404,
            "payment-not-found",
            "No such payment",
            "the client has no payment with this id",
        )),
        Err(e) => failed("POST /refunds", e),
    }
}

/// A 201 with its `Location`.
fn created(location: &str, body: serde_json::Value) -> Response {
    let mut response = refuse(Reply { status: 201, body });
    if let Ok(location) = location.parse() {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// A reply as a response (a problem for a 4xx or 5xx), through stage 8's `answer`.
fn refuse(reply: Reply) -> Response {
    answer(Ok(Answer::first(reply)))
}

// ANCHOR: failed
/// The effect's statement failed. When it certainly made nothing, the answer
/// says so, and a retry may run the route again; otherwise the outcome is
/// unknown, and the answer only says that.
fn failed(route: &str, e: sqlx::Error) -> Response {
    eprintln!("{route}: {e}");
    if made_nothing(&e) {
        nothing_done(refuse(payment_model::problem(
            500,
            "not-done",
            "The request failed and was not done",
            "Nothing was done. Retry with the same Idempotency-Key.",
        )))
    } else {
        refuse(Reply::internal_error())
    }
}

/// Whether a failed statement (in autocommit) certainly made nothing: PostgreSQL
/// answered it with an ERROR, which rolls the statement back and leaves the
/// session working; or it was never sent, for want of a connection. A broken
/// connection, or a FATAL that ends the session, may come after the commit: the
/// route cannot tell.
fn made_nothing(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(e) => e
            .try_downcast_ref::<PgDatabaseError>()
            .is_some_and(|e| e.severity() == PgSeverity::Error),
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => true,
        _ => false,
    }
}

/// `response`, marked for the layer: nothing was done.
fn nothing_done(mut response: Response) -> Response {
    response.extensions_mut().insert(NothingDone);
    response
}
// ANCHOR_END: failed

/// The client that sends the request. The layer has found it already (and left it
/// in the request's extensions); a route served without the layer finds it itself.
pub struct Client(ClientId);

impl FromRequestParts<PgPool> for Client {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, pool: &PgPool) -> Result<Self, Response> {
        if let Some(client) = parts.extensions.get::<ClientId>() {
            return Ok(Self(*client));
        }
        match authenticate(pool, &parts.headers).await {
            Ok(client) => Ok(Self(client)),
            Err(AuthError::Unauthenticated(why)) => Err((
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, why.challenge())],
                refuse(why.reply()),
            )
                .into_response()),
            Err(AuthError::Database(e)) => Err(failed("authenticate", e)),
        }
    }
}
