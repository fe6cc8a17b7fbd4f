//! The reaper: deletes expired keys, a bounded batch per short transaction, never
//! waiting for a request and never touching a key whose request is in flight.
//! One batch is `reap_one_batch.rs`.

use std::time::Duration;

use sqlx::PgPool;
use tokio::task::JoinHandle;

use crate::reap_one_batch::reap_one_batch;
use crate::{Config, ConfigError};

/// Why a run of the reaper deleted nothing, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReapError {
    #[error("the reaper's settings: {0}")]
    Config(#[from] ConfigError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// What one run of the reaper did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reaped {
    /// Keys deleted.
    pub keys: u64,
    /// Transactions run, each deleting at most one batch.
    pub batches: u64,
}

// ANCHOR: reap
/// Deletes every key older than the retention window, `config.reap_batch` at a
/// time, each batch in a transaction of its own (one statement). Stops at the first
/// batch that deletes fewer than a full batch: the rest, if any, was in flight or
/// expired since, and the next run deletes it. Settings it cannot work with are
/// refused before anything is deleted.
pub async fn reap_expired_keys(pool: &PgPool, config: &Config) -> Result<Reaped, ReapError> {
    config.validate()?;
    let mut reaped = Reaped::default();
    loop {
        let deleted = reap_one_batch(pool, config).await?;
        reaped.keys += deleted;
        reaped.batches += 1;
        if deleted < config.reap_batch.unsigned_abs() {
            return Ok(reaped);
        }
    }
}
// ANCHOR_END: reap

/// The server's background reaper; it stops when this is dropped.
#[derive(Debug)]
pub struct Reaper {
    task: JoinHandle<()>,
}

impl Reaper {
    /// False once its task ended: a reaper only ends by panicking (a run that
    /// fails is retried), or by being dropped.
    pub fn is_running(&self) -> bool {
        !self.task.is_finished()
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        self.task.abort();
    }
}

// ANCHOR: spawn_reaper
/// Runs [`reap_expired_keys`] every `config.reap_every`, on its own task, beside
/// the server. A failed run is reported and the next one tries again: the keys it
/// did not delete are still expired then. Settings it cannot work with are
/// refused here, at the start, not at every run.
pub fn spawn_reaper(pool: PgPool, config: Config) -> Result<Reaper, ConfigError> {
    config.validate()?;
    let task = tokio::spawn(async move {
        let mut every = tokio::time::interval(config.reap_every.max(Duration::from_millis(1)));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if let Err(e) = reap_expired_keys(&pool, &config).await {
                eprintln!("reaper: {e}; trying again in {:?}", config.reap_every);
            }
        }
    });
    Ok(Reaper { task })
}
// ANCHOR_END: spawn_reaper
