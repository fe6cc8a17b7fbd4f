//! Known wrong: the model answer's layer, whose read of a key it does not own
//! takes a row that is not there for a request in flight, as the first version
//! of this stage did. The row went between the reservation and the read: its
//! request released the key, which is free. The duplicate is told 409, to retry
//! a request that nothing holds.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: missing_row_in_flight
pub async fn stored(
    pool: &sqlx::PgPool,
    client: ClientId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<Stored>, sqlx::Error> {
    // The mistake: no row read as "in flight".
    Ok(Some(
        stage12_answer::stored(pool, client, key, fingerprint)
            .await?
            .unwrap_or(Stored::InFlight),
    ))
}
// ANCHOR_END: missing_row_in_flight
