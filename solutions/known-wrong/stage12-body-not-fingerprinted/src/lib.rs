//! Known wrong: the model answer's layer, with a fingerprint of the method and the
//! path only. The same key with another amount is taken for the same request, and
//! replays the first payment's 201: the client is told a payment it did not ask
//! for was made.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: body_not_fingerprinted
pub fn fingerprint(method: &axum::http::Method, path: &str, _body: &str) -> String {
    // The mistake: the body is left out.
    stage12_answer::fingerprint(method, path, "")
}
// ANCHOR_END: body_not_fingerprinted
