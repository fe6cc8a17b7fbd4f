//! Known wrong: the route is right, but the reaper locks its batch with a plain
//! `FOR UPDATE`. When a request holds an expired key (taking it over as a new
//! key), the reaper waits for that request to end, and a slow request stops the
//! clean-up of every other key behind it.

use std::time::Duration;

use sqlx::PgPool;

pub use stage9_answer::{
    ClientId, Config, ConfigError, MIGRATION, MIGRATION_SOURCE, ReapError, Reaped, RouteConfig,
    Router, create_payment, router_with, serve,
};

/// The model answer's loop, with a batch that waits for locked rows.
pub async fn reap_expired_keys(pool: &PgPool, config: &Config) -> Result<Reaped, ReapError> {
    config.validate()?;
    let mut reaped = Reaped::default();
    loop {
        let deleted = sqlx::query(
            "WITH expired AS (
                SELECT client_id, key FROM idempotency_keys
                WHERE created_at < now() - $1::interval
                ORDER BY created_at
                LIMIT $2
                FOR UPDATE
             )
             DELETE FROM idempotency_keys k USING expired e
             WHERE k.client_id = e.client_id AND k.key = e.key",
        )
        .bind(config.retention_interval())
        .bind(config.reap_batch)
        .execute(pool)
        .await?
        .rows_affected();
        reaped.keys += deleted;
        reaped.batches += 1;
        if deleted < config.reap_batch.unsigned_abs() {
            return Ok(reaped);
        }
    }
}

/// The background task, around the waiting reaper; it stops when dropped.
pub struct Reaper(tokio::task::JoinHandle<()>);

impl Reaper {
    /// False once its task ended: a reaper only ends by panicking (a run that
    /// fails is retried), or by being dropped.
    pub fn is_running(&self) -> bool {
        !self.0.is_finished()
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub fn spawn_reaper(pool: PgPool, config: Config) -> Result<Reaper, ConfigError> {
    config.validate()?;
    Ok(Reaper(tokio::spawn(async move {
        loop {
            let _ = reap_expired_keys(&pool, &config).await;
            tokio::time::sleep(config.reap_every.max(Duration::from_millis(1))).await;
        }
    })))
}
