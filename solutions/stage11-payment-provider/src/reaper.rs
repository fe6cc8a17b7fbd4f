//! Expiry for keys that may have charged a card: finished keys go once their
//! answer has been kept for the retention window, and an unfinished key is never
//! deleted. (Stage 9's reaper deletes by `created_at`
//! alone: here that would delete a `charged` key, whose charge exists, and the
//! retry would charge again, or answer with nothing to show for it.)

use provider_client::Config;
use sqlx::PgPool;

use crate::ClientId;

/// An unfinished key whose lease ran out and that no retry took over (its
/// request died), or that was set aside (`unknown`): whether (and what) it
/// charged is for reconciliation to settle, by resuming it or by asking the
/// provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stranded {
    pub client: ClientId,
    pub key: String,
    pub recovery_point: String,
    pub charge_id: Option<String>,
}

/// What one run of the reaper did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reaped {
    /// Finished keys deleted: finished longer ago than the retention window.
    pub deleted: u64,
    /// Unfinished keys past their lease, oldest first: kept, for reconciliation.
    pub stranded: Vec<Stranded>,
}

// ANCHOR: reap
/// Deletes the keys finished longer ago than `config.retention` (counted from
/// when the answer was stored: a key finished today by the retry of a request
/// that died last week replays its answer for the whole window), and lists the
/// unfinished keys whose lease has run out. An unfinished key is never deleted,
/// whatever its age: `charged` says a charge exists, `started` and `unknown`
/// that one may.
pub async fn reap(pool: &PgPool, config: &Config) -> Result<Reaped, sqlx::Error> {
    let deleted = sqlx::query(
        "DELETE FROM idempotency_keys
         WHERE recovery_point = 'finished' AND finished_at < now() - $1::interval",
    )
    .bind(config.retention_interval())
    .execute(pool)
    .await?
    .rows_affected();
    let stranded: Vec<(i64, String, String, Option<String>)> = sqlx::query_as(
        "SELECT client_id, key, recovery_point, charge_id FROM idempotency_keys
         WHERE recovery_point <> 'finished' AND locked_until <= now()
         ORDER BY created_at",
    )
    .fetch_all(pool)
    .await?;
    let stranded = stranded
        .into_iter()
        .map(|(client, key, recovery_point, charge_id)| Stranded {
            client: ClientId(client),
            key,
            recovery_point,
            charge_id,
        })
        .collect();
    Ok(Reaped { deleted, stranded })
}
// ANCHOR_END: reap
