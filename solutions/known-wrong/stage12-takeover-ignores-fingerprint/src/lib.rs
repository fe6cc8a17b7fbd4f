//! Known wrong: the model answer's layer, whose take-over of a dead reservation
//! does not check that it is the same request. Past the lease, a request with
//! the key and another body takes the key over, runs the route and stores its
//! answer under the first request's fingerprint: the first request's retry is
//! replayed an answer for a payment it never asked for.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: takeover_ignores_fingerprint
pub async fn reserve(
    state: &LayerState,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Lease>, sqlx::Error> {
    // The mistake: no `r.fingerprint = EXCLUDED.fingerprint` in the WHERE.
    let lease: Option<i64> = sqlx::query_scalar(
        "INSERT INTO idempotent_requests AS r (client_id, key, fingerprint)
         VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO UPDATE
            SET reserved_at = now(), lease = nextval('idempotent_request_leases')
            WHERE r.status IS NULL AND r.reserved_at < now() - $4::interval
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
// ANCHOR_END: takeover_ignores_fingerprint
