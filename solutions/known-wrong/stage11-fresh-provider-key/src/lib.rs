//! Known wrong: stage 11's model answer, with a fresh provider key for every
//! attempt. When the provider charged and its answer was lost (or the request
//! died before recording it), the retry is a new charge: the card is charged
//! twice.
//!
//! The model answer is compiled in as it is (`answer`); the one step defined
//! here replaces its namesake, since every step is called through the crate's
//! root.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

// ANCHOR: fresh_key
pub fn derived_key(_client: ClientId, _key: &str, _body_hash: &str, _step: &str) -> String {
    // The mistake: a new key for every attempt, so the provider cannot tell a
    // retry from a new payment.
    uuid::Uuid::new_v4().to_string()
}
// ANCHOR_END: fresh_key
