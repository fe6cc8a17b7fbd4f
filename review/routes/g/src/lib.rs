//! Route G: `POST /payments`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use payment_model::{KeyProblem, PaymentRequest, Reply};
use review_support::{App, PayError, Router, request_hash, respond};
use sqlx::{Acquire, PgConnection};

pub fn router(app: App) -> Router {
    Router::new()
        .route("/payments", post(create_payment))
        .with_state(app)
}

async fn create_payment(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    let key = match headers.get("idempotency-key").map(|v| v.to_str()) {
        Some(Ok(key)) if !key.is_empty() => key,
        _ => return respond(KeyProblem::Missing.reply()),
    };
    let request = match PaymentRequest::parse(&String::from_utf8_lossy(&body)) {
        Ok(request) => request,
        Err(why) => return respond(Reply::invalid_body(&why.to_string())),
    };
    match pay_once(&app, key, &request).await {
        Ok(reply) => respond(reply),
        Err(failed) => respond(failed.reply()),
    }
}

async fn pay_once(app: &App, key: &str, request: &PaymentRequest) -> Result<Reply, PayError> {
    let hash = request_hash(request);
    let mut conn = app.pool.acquire().await?;
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
        return Ok(stored_answer(&mut conn, key, &hash).await?);
    }
    let provider_key = uuid::Uuid::new_v4().to_string();
    app.provider.charge(&provider_key, request.amount).await?;
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

async fn stored_answer(
    conn: &mut PgConnection,
    key: &str,
    hash: &str,
) -> Result<Reply, sqlx::Error> {
    let (body_hash, status, response): (String, Option<i32>, Option<serde_json::Value>) =
        sqlx::query_as(
            "SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1",
        )
        .bind(key)
        .fetch_one(conn)
        .await?;
    if body_hash != hash {
        return Ok(Reply::key_reused());
    }
    Ok(Reply::from_stored(status, response))
}
