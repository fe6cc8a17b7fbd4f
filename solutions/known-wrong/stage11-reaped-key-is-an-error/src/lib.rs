//! Known wrong: stage 11's model answer, with a phase 1 that reads the answer of
//! a key it found finished once, and fails when the reaper deleted the key in
//! between (the model answer before issue 34): `MissingKeyRow`, a 500.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;

// ANCHOR: reaped_key_is_an_error
pub async fn claim(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Claim, PaymentError> {
    if let Some(reserved) = reserve(app, client, key, hash).await? {
        return Ok(Claim::Ours(reserved));
    }
    // The mistake: a key reaped since the reservation is an error, not a new key.
    answer_from_the_key(app, client, key, hash)
        .await
        .map(Claim::Answered)
}
// ANCHOR_END: reaped_key_is_an_error
