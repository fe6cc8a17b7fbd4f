//! Known wrong: stage 11's model answer, with the provider key derived from the
//! client, its key and the step only (the model answer before issue 34). Once
//! the reaper deleted a key, the client's next payment with it reaches the
//! provider under the first payment's key: the provider replays that charge,
//! or refuses another amount.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::hex;
use sha2::{Digest, Sha256};

// ANCHOR: derived_key_without_body
pub fn derived_key(client: ClientId, key: &str, _body_hash: &str, step: &str) -> String {
    // The mistake: the body is not one of the parts.
    let mut hash = Sha256::new();
    for part in [client.0.to_string().as_str(), key, step] {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hex(&hash.finalize())
}
// ANCHOR_END: derived_key_without_body
