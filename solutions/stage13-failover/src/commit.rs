//! What the route knows of a payment once its COMMIT is over, and what it
//! answers. Given to the learner as it is (the exercise compiles this file with
//! `#[path]`).

use payment_model::Reply;
use stage8::Answer;

// ANCHOR: commit
/// How the paying transaction's COMMIT ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// COMMIT returned within the bound: the payment is made, and it is on the
    /// standby too when the primary names one in `synchronous_standby_names`.
    Confirmed,
    /// The standby did not confirm within the bound, and the route cancelled
    /// the wait.
    Unconfirmed,
    /// COMMIT failed, or its wait could not be ended: the connection broke (the
    /// server may have committed before it did), or the cancel never arrived.
    Unknown,
}
// ANCHOR_END: commit

impl Commit {
    /// The route's answer for a payment whose reply, had it been confirmed, is
    /// `reply`: that reply; 503 `payment-unconfirmed`; or stage 6's 500, whose
    /// outcome is unknown. The last two ask for a retry with the same key, which
    /// finds the payment's outcome.
    pub fn answer(self, reply: Reply) -> Answer {
        Answer::first(match self {
            Commit::Confirmed => reply,
            Commit::Unconfirmed => Reply::unconfirmed(),
            Commit::Unknown => Reply::internal_error(),
        })
    }
}
