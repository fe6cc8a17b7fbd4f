//! Known wrong: stage 11's model answer, reading the provider's answers as it
//! did before issue 34: everything but a 200, a 409 and a 5xx not replayed is the
//! key's final refusal (201 and 202 included: the client pays again under a new
//! key; 429, 401, 403, 404: a permanent 402); any `Idempotent-Replayed` header
//! is a replay, even `false`; a replayed 5xx says "nothing was charged"; a 200
//! without a charge id is answered 502 at every retry.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use serde_json::Value;

// ANCHOR: provider_answers_as_refusals
pub fn charge_id(answer: ProviderAnswer) -> Result<String, ProviderError> {
    // The mistakes: any header is a replay, and only 200 is a charge.
    let replayed = answer.replayed.is_some();
    let ProviderAnswer { status, body, .. } = answer;
    match status {
        200 => {}
        409 => return Err(ProviderError::InFlight(body)),
        500.. if !replayed => return Err(ProviderError::Unavailable { status, body }),
        _ => return Err(ProviderError::Declined { status, body }),
    }
    serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|answer| answer["id"].as_str().map(str::to_owned))
        // Released, and answered 502, as the model answer did.
        .ok_or(ProviderError::Unavailable { status, body })
}
// ANCHOR_END: provider_answers_as_refusals
