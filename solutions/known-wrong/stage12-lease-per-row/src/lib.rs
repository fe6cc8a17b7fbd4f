//! Known wrong: the model answer's layer, with its fencing token counted per row,
//! as the first version of this stage did: 1 when the row is made, one more at
//! each take-over. A released key's row is deleted; the next reservation makes it
//! again, with lease 1 again, and a request still holding lease 1 from the first
//! row (slower than its lease, and taken over since) finds it matching: its late
//! release deletes a live reservation, its late store answers for another request.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: lease_per_row
pub async fn reserve(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Lease>, sqlx::Error> {
    // The mistake: the number starts again at 1 in a row made again.
    let lease: Option<i64> = sqlx::query_scalar(
        "INSERT INTO idempotent_requests AS r (client_id, key, fingerprint, lease)
         VALUES ($1, $2, $3, 1)
         ON CONFLICT (client_id, key) DO UPDATE
            SET reserved_at = now(), lease = r.lease + 1
            WHERE r.status IS NULL AND r.fingerprint = EXCLUDED.fingerprint
              AND r.reserved_at < now() - $4::interval
         RETURNING lease",
    )
    .bind(client.0)
    .bind(key)
    .bind(fingerprint)
    .bind(state.config.lease_interval())
    .fetch_optional(&state.pool)
    .await?;
    Ok(lease.map(Lease))
}
// ANCHOR_END: lease_per_row
