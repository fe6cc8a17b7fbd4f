//! Route E: `POST /payments`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use payment_model::{PaymentRequest, Reply};
use review_support::{App, Router, request_hash, respond};
use sqlx::{Acquire, PgPool};

pub fn router(app: App) -> Router {
    Router::new()
        .route("/payments", post(create_payment))
        .with_state(app.pool)
}

async fn create_payment(
    State(pool): State<PgPool>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .filter(|key| !key.is_empty());
    let request = match PaymentRequest::parse(&String::from_utf8_lossy(&body)) {
        Ok(request) => request,
        Err(why) => return respond(Reply::invalid_body(&why.to_string())),
    };
    let paid = match key {
        Some(key) => pay_once(&pool, key, &request).await,
        None => pay(&pool, &request).await,
    };
    match paid {
        Ok(reply) => respond(reply),
        Err(_) => respond(Reply::internal_error()),
    }
}

async fn pay(pool: &PgPool, request: &PaymentRequest) -> Result<Reply, sqlx::Error> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id",
    )
    .bind(request.order_id)
    .bind(request.amount)
    .fetch_one(pool)
    .await?;
    Ok(Reply::created(id, request))
}

async fn pay_once(
    pool: &PgPool,
    key: &str,
    request: &PaymentRequest,
) -> Result<Reply, sqlx::Error> {
    let hash = request_hash(request);
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let reserved = sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(key)
    .bind(&hash)
    .execute(&mut *tx)
    .await?;
    if reserved.rows_affected() == 0 {
        tx.rollback().await?;
        let body_hash: String =
            sqlx::query_scalar("SELECT body_hash FROM idempotency_keys WHERE key = $1")
                .bind(key)
                .fetch_one(&mut *conn)
                .await?;
        if body_hash != hash {
            return Ok(Reply::key_reused());
        }
        let body = serde_json::json!({ "status": "already processed" });
        return Ok(Reply { status: 200, body });
    }
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id",
    )
    .bind(request.order_id)
    .bind(request.amount)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Reply::created(id, request))
}
