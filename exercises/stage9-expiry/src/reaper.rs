// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! The reaper: deletes expired keys, a bounded batch per short transaction, never
//! waiting for a request and never touching a key whose request is in flight.

use std::time::Duration;

use sqlx::PgPool;
use tokio::task::JoinHandle;

use crate::Config;

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
/// expired since, and the next run deletes it.
pub async fn reap_expired_keys(pool: &PgPool, config: &Config) -> Result<Reaped, sqlx::Error> {
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

/// One batch: the oldest expired keys, through the `created_at` index. `SKIP
/// LOCKED` passes over a row a request holds (an expired key being taken over by a
/// new request), instead of waiting for it: the reaper never blocks a request, and
/// never deletes a key in flight. A key inserted by a request still in flight is
/// not committed, so no other transaction sees it at all.
async fn reap_one_batch(pool: &PgPool, config: &Config) -> Result<u64, sqlx::Error> {
    // One statement, so one short transaction: select at most `config.reap_batch`
    // keys with `created_at < now() - $1::interval` (bind
    // `config.retention_interval()`), oldest first, locked with
    // `FOR UPDATE SKIP LOCKED`, and delete them. Return how many were deleted.
    todo!("stage 9: delete one batch of expired keys (`cargo workbook hint 9`)")
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
/// did not delete are still expired then.
pub fn spawn_reaper(pool: PgPool, config: Config) -> Reaper {
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
    Reaper { task }
}
// ANCHOR_END: spawn_reaper
