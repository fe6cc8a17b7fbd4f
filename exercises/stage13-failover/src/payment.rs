// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables, dead_code)]

//! One attempt of `create_payment` on two machines: stage 8's transaction, on the
//! primary, whose COMMIT waits until the standby has the payment, and no longer
//! than the route's bound. Write `attempt_once` and `commit_within`. Given, and compiled into this
//! crate from the model answer: `create_payment` (`retry.rs`: stage 8's, which runs
//! `attempt_once` again after a serialization failure), the route (`route.rs`) and
//! `Commit` (`commit.rs`).

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, Postgres, Transaction};
use stage8::{Answer, ClientId, bound_lock_wait, pay_and_record, restore_lock_wait, stored_answer};

use crate::{App, Commit};

// ANCHOR: attempt_once
/// One transaction on the primary: reserve `(client, key)`, then pay, replay or
/// refuse, as in stage 8. The paying transaction, and only it, waits for the
/// standby.
pub(crate) async fn attempt_once(
    app: &App,
    client: ClientId,
    key: &str,
    request: &PaymentRequest,
    hash: &str,
) -> Result<Answer, PaymentError> {
    // Stage 8's attempt_once (solutions/stage8-key-per-client/src/payment.rs), on
    // `app.primary` and with `app.config.route`, with two changes where it pays:
    // - before pay_and_record, make this transaction's COMMIT wait for the standby
    //   (set_config('synchronous_commit', 'on', true) is SET LOCAL), and read the
    //   session's process id (pg_backend_pid()): a cancel names it;
    // - instead of tx.commit(), `commit_within(tx, backend, app)`, and answer
    //   `commit.answer(reply)`. A connection whose commit is `Commit::Unknown` may
    //   still be busy with it: close it (`conn.close_on_drop()`) rather than give
    //   it back to the pool.
    todo!("stage 13: stage 8's transaction, whose COMMIT waits for the standby (see above)")
}
// ANCHOR_END: attempt_once

// ANCHOR: commit_within
/// Commits `tx`, whose session is `backend`, waiting at most
/// `app.config.commit_wait` for the standby's confirmation.
pub async fn commit_within(tx: Transaction<'_, Postgres>, backend: i32, app: &App) -> Commit {
    // `let commit = tx.commit(); tokio::pin!(commit);` then wait for `&mut commit`
    // at most app.config.commit_wait (tokio::time::timeout). Returned in time:
    // `Commit::Confirmed`; failed: `Commit::Unknown`. Past the bound, end the
    // wait yourself: `SELECT pg_cancel_backend($1)` with `backend`, on
    // `app.watchdog` (bounded too), then wait for `&mut commit` again, bounded:
    // how it ends says which `Commit` it is (commit.rs).
    todo!("stage 13: a COMMIT that waits for the standby, bounded (see above)")
}
// ANCHOR_END: commit_within
