//! Known wrong: the model answer, whose COMMIT is abandoned when the bound has
//! passed, instead of cancelled. The client is told 503, but the session goes on
//! waiting for the standby: the payment is not committed, not visible, and its
//! key stays locked, so the retry is told 409 instead of its payment.

pub use stage13_answer::*;
include!("../../stage13-payment.rs");

pub async fn commit_within(
    tx: sqlx::Transaction<'_, sqlx::Postgres>,
    _backend: i32,
    app: &App,
) -> Commit {
    match tokio::time::timeout(app.config.commit_wait, tx.commit()).await {
        Ok(Ok(())) => Commit::Confirmed,
        Ok(Err(e)) => {
            eprintln!("POST /payments: COMMIT failed, its outcome unknown: {e}");
            Commit::Unknown
        }
        // The mistake: the COMMIT is dropped, not cancelled. The session goes on
        // waiting for the standby (a closed connection does not end the wait),
        // its payment invisible and its key locked.
        Err(_) => Commit::Unconfirmed,
    }
}
