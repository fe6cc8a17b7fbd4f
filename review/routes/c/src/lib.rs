//! Route C: `POST /payments`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use payment_model::{KeyProblem, PaymentRequest, Reply};
use review_support::{App, Router, request_hash, respond};
use sqlx::{Acquire, PgConnection, PgPool};

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
    let key = match headers.get("idempotency-key").map(|v| v.to_str()) {
        Some(Ok(key)) if !key.is_empty() => key,
        _ => return respond(KeyProblem::Missing.reply()),
    };
    let request = match PaymentRequest::parse(&String::from_utf8_lossy(&body)) {
        Ok(request) => request,
        Err(why) => return respond(Reply::invalid_body(&why.to_string())),
    };
    match pay_once(&pool, key, &request).await {
        Ok(reply) => respond(reply),
        Err(_) => respond(Reply::internal_error()),
    }
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
        return stored_answer(&mut conn, key).await;
    }
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id",
    )
    .bind(request.order_id)
    .bind(request.amount)
    .fetch_one(&mut *tx)
    .await?;
    let reply = Reply::created(id, request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(i32::from(reply.status))
        .bind(&reply.body)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(reply)
}

async fn stored_answer(conn: &mut PgConnection, key: &str) -> Result<Reply, sqlx::Error> {
    let (status, response): (Option<i32>, Option<serde_json::Value>) =
        sqlx::query_as("SELECT status, response FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_one(conn)
            .await?;
    Ok(Reply::from_stored(status, response))
}
