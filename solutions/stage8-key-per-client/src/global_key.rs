//! The trap of stage 8, kept on purpose: every request is authenticated, but the
//! key is still global (`key TEXT PRIMARY KEY`, as in stages 1 to 7). Client B
//! sending a key client A already used gets A's stored answer: A's payment id and
//! amount. The stage's tests must catch it (`just verify` checks that they do).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::middleware;
use axum::response::Response;
use axum::routing::post;
use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::{Acquire, PgPool};
use stage4::request_hash;

use crate::{Answer, App, ClientId, Config, Router, admit, answer, is_serialization_failure};

/// The global key's tables: `clients` and `payments` as in stage 8, and
/// `idempotency_keys` with `key TEXT PRIMARY KEY`.
pub const MIGRATION: &str = include_str!("../migrations/global_key.sql");
pub const MIGRATION_SOURCE: &str = "solutions/stage8-key-per-client/migrations/global_key.sql";

/// `POST /payments`, with the key shared by all clients.
pub fn router_with(pool: PgPool, config: Config) -> Router {
    Router::new()
        .route("/payments", post(create))
        .with_state(App { pool, config })
        .route_layer(middleware::from_fn(stage6::body_within_bound))
        .layer(middleware::map_response(stage6::refusals_as_problems))
}

async fn create(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    let admitted = match admit(&app.pool, &headers, &body).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let (client, key) = (admitted.client, admitted.key.as_str());
    // Retried as the model answer retries: the key's identity is the only difference.
    let mut attempt = 1;
    let paid = loop {
        match create_payment(&app.pool, client, key, admitted.body).await {
            Err(e) if is_serialization_failure(&e) && attempt < app.config.attempts => attempt += 1,
            done => break done,
        }
    };
    answer(paid)
}

/// Stage 6's transaction: the client is recorded with the payment, but the key is
/// looked up by its text alone.
pub async fn create_payment(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (key, client_id, body_hash) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(key)
    .bind(client.0)
    .bind(&hash)
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        tx.rollback().await?;
        // The bug: whoever stored this key, its answer is played to this client.
        let (stored_hash, status, response): (String, Option<i32>, Option<Value>) = sqlx::query_as(
            "SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1",
        )
        .bind(key)
        .fetch_one(&mut *conn)
        .await?;
        let reply = if stored_hash == hash {
            Reply::from_stored(status, response)
        } else {
            Reply::key_reused()
        };
        let replayed = reply.status == 201;
        return Ok(Answer { reply, replayed });
    }
    let payment_id: i64 = sqlx::query_scalar(
        "INSERT INTO payments (client_id, order_id, amount) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(client.0)
    .bind(request.order_id)
    .bind(request.amount)
    .fetch_one(&mut *tx)
    .await?;
    let reply = Reply::created(payment_id, &request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(reply.status_code())
        .bind(&reply.body)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Answer {
        reply,
        replayed: false,
    })
}
