//! Known wrong: the model answer's layer, with a release that names the key and
//! not the lease. A request slower than its lease, whose key was taken over and
//! reserved again since, releases it when its route fails: it deletes the live
//! reservation of the request that holds the key now, and the next duplicate
//! runs the route beside that request.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: unfenced_release
pub async fn release(
    pool: &sqlx::PgPool,
    client: ClientId,
    key: &str,
    _lease: Lease,
) -> Result<bool, sqlx::Error> {
    // The mistake: whoever holds the key now.
    let released = sqlx::query(
        "DELETE FROM idempotent_requests
         WHERE client_id = $1 AND key = $2 AND status IS NULL",
    )
    .bind(client.0)
    .bind(key)
    .execute(pool)
    .await?;
    Ok(released.rows_affected() == 1)
}
// ANCHOR_END: unfenced_release
