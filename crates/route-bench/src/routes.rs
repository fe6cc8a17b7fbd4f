//! The three routes compared, each served on its own port of 127.0.0.1.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::PgPool;
use stage6::{IdempotencyKey, respond};

use crate::error::BenchError;

/// Where each route listens.
pub struct Routes {
    /// No idempotency: parse, one INSERT, answer.
    pub plain: SocketAddr,
    /// Stage 6's route: stage 5's transaction, the seed's shape.
    pub seed: SocketAddr,
    /// Stage 10's one statement, served as stage 6 serves stage 5's.
    pub one_round_trip: SocketAddr,
}

impl Routes {
    pub async fn serve(pool: PgPool) -> Result<Routes, BenchError> {
        Ok(Routes {
            plain: serve(
                axum::Router::new()
                    .route("/payments", post(plain))
                    .with_state(pool.clone()),
            )
            .await?,
            seed: serve(stage6::router(pool.clone())).await?,
            one_round_trip: serve(
                axum::Router::new()
                    .route("/payments", post(one_round_trip))
                    .with_state(pool),
            )
            .await?,
        })
    }
}

async fn serve(router: axum::Router) -> Result<SocketAddr, BenchError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(BenchError::Listen)?;
    let addr = listener.local_addr().map_err(BenchError::Listen)?;
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(addr)
}

/// The same work without the key: parse, one INSERT, answer.
async fn plain(State(pool): State<PgPool>, body: Bytes) -> Response {
    let Ok(request) = std::str::from_utf8(&body)
        .map_err(|_| ())
        .and_then(|body| PaymentRequest::parse(body).map_err(|_| ()))
    else {
        return respond(Reply::invalid_body("not a payment request"));
    };
    let inserted: Result<i64, _> =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&pool)
            .await;
    match inserted {
        Ok(id) => respond(Reply::created(id, &request)),
        Err(_) => respond(Reply::internal_error()),
    }
}

/// Stage 6's handler, with stage 10's `create_payment` in place of stage 5's.
async fn one_round_trip(State(pool): State<PgPool>, headers: HeaderMap, body: Bytes) -> Response {
    let key = match IdempotencyKey::from_headers(&headers) {
        Ok(key) => key,
        Err(refused) => return respond(refused.reply()),
    };
    let Ok(body) = std::str::from_utf8(&body) else {
        return respond(Reply::invalid_body("the body is not UTF-8 text"));
    };
    match stage10::create_payment(&pool, key.as_str(), body).await {
        Ok(reply) => respond(reply),
        Err(PaymentError::InvalidBody(why)) => respond(Reply::invalid_body(&why.to_string())),
        Err(_) => respond(Reply::internal_error()),
    }
}
