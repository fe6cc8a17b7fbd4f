// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! One batch of the reaper. Write `reap_one_batch`; the loop that runs it until
//! no expired key is left, and the background task, are given: the model answer's
//! `reaper.rs`, compiled into this crate.

use sqlx::PgPool;

use crate::Config;

// ANCHOR: reap_one_batch
/// One batch: the oldest expired keys, through the `created_at` index. `SKIP
/// LOCKED` passes over a row a request holds (an expired key being taken over by a
/// new request), instead of waiting for it: the reaper never waits for a request,
/// and never deletes a key in flight. A request may wait for a batch, briefly: the
/// batch's rows stay locked until its DELETE commits. A key inserted by a request
/// still in flight is not committed, so no other transaction sees it at all.
pub async fn reap_one_batch(pool: &PgPool, config: &Config) -> Result<u64, sqlx::Error> {
    // One statement, so one short transaction: select at most `config.reap_batch`
    // keys with `created_at < now() - $1::interval` (bind
    // `config.retention_interval()`), oldest first, locked with
    // `FOR UPDATE SKIP LOCKED`, and delete them. Return how many were deleted.
    todo!("stage 9: delete one batch of expired keys (`cargo workbook hint 9`)")
}
// ANCHOR_END: reap_one_batch
