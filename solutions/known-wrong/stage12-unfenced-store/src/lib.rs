//! Known wrong: the model answer's layer, with a store that names the key and not
//! the lease. A request still running when its lease passed, and whose key
//! another request took over, stores its own answer when it wakes: over the
//! answer the new owner already sent and stored. The last writer wins, and an
//! answer a client was given changes afterwards.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: unfenced_store
pub async fn store(
    pool: &sqlx::PgPool,
    client: ClientId,
    key: &str,
    _lease: Lease,
    head: &axum::http::response::Parts,
    body: Option<&axum::body::Bytes>,
) -> Result<bool, sqlx::Error> {
    let headers: serde_json::Map<String, serde_json::Value> = REPLAYED_HEADERS
        .iter()
        .filter_map(|name| {
            let value = head.headers.get(name)?.to_str().ok()?;
            Some((name.as_str().to_owned(), serde_json::Value::from(value)))
        })
        .collect();
    // The mistake: the key, and not the lease, says which row to write.
    let stored = sqlx::query(
        "UPDATE idempotent_requests SET status = $3, headers = $4, body = $5
         WHERE client_id = $1 AND key = $2",
    )
    .bind(client.0)
    .bind(key)
    .bind(i32::from(head.status.as_u16()))
    .bind(serde_json::Value::Object(headers))
    .bind(body.map(|body| body.as_ref()))
    .execute(pool)
    .await?;
    Ok(stored.rows_affected() == 1)
}
// ANCHOR_END: unfenced_store
