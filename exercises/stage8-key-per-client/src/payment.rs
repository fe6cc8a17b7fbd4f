// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables, dead_code)]

//! `create_payment`, for one client: stage 5's transaction with the key's identity
//! `(client_id, key)`, retried when PostgreSQL reports a serialization failure.
//! Write `create_payment` and `attempt_once`. What they answer with (`Answer`,
//! `pay_and_record`, `stored_answer`, `lock_timeout`, `is_serialization_failure`) is
//! given: the model answer's `answer.rs`, compiled into this crate.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, PgConnection, PgPool};
use stage4::request_hash;

use crate::answer::{
    Answer, is_serialization_failure, lock_timeout, pay_and_record, stored_answer,
};
use crate::{ClientId, Config};

// ANCHOR: create_payment
/// Creates the payment for `body` once per `(client, key)`.
///
/// A transaction that fails with a serialization failure (SQLSTATE 40001, or a
/// deadlock, 40P01) committed nothing: it is run again, at most
/// `config.attempts` times in all. Under `READ COMMITTED` this never happens;
/// under `REPEATABLE READ` or `SERIALIZABLE` every duplicate that waited for the
/// first request fails so, once, and its second attempt replays the answer.
pub async fn create_payment(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    body: &str,
    config: &Config,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    todo!(
        "stage 8: call attempt_once, again while it fails with a serialization failure, \
         at most config.attempts times in all (`cargo workbook hint 8`)"
    )
}
// ANCHOR_END: create_payment

// ANCHOR: attempt_once
/// One transaction: reserve `(client, key)`, then pay, replay or refuse.
async fn attempt_once(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    request: &PaymentRequest,
    hash: &str,
    config: &Config,
) -> Result<Answer, PaymentError> {
    // Stage 5's transaction, on one connection, with the key's identity
    // (client_id, key): set the lock_timeout to `lock_timeout(config)` for the
    // reserving INSERT only (put the previous setting back after it, as stage 5
    // does), reserve the key with INSERT ... ON CONFLICT (client_id, key) DO
    // NOTHING, and then
    // - 1 row: pay_and_record, commit, `Answer::first(reply)`; if paying fails,
    //   roll back before you return the error, as stage 5 does;
    // - 0 rows: roll back, then `stored_answer` on the same connection;
    // - SQLSTATE 55P03: roll back, `Answer::first(Reply::in_flight())`.
    todo!("stage 8: one transaction for this client's key (see the comment above)")
}
// ANCHOR_END: attempt_once
