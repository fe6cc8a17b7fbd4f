//! Known wrong: the paying transaction waits for the standby, with no bound on
//! the wait: while the standby is away, the payment waits as long, and so does
//! its client.

pub use stage13_answer::*;
include!("../../stage13-payment.rs");

pub async fn commit_within(
    tx: sqlx::Transaction<'_, sqlx::Postgres>,
    _backend: i32,
    _app: &App,
) -> Commit {
    // The mistake: no bound. While the standby is away, this waits as long.
    match tx.commit().await {
        Ok(()) => Commit::Confirmed,
        Err(e) => {
            eprintln!("POST /payments: COMMIT failed, its outcome unknown: {e}");
            Commit::Unknown
        }
    }
}
