//! Known wrong: the model answer's layer, with the first version's rule for
//! what to do with the route's answer: free the key for every 5xx, keep every
//! other answer, and never ask the route. A 500 whose payment committed (its
//! acknowledgement lost) frees the key, and the retry pays again; a 429 is kept,
//! and the key answers 429 for ever; a 400 for a body that failed validation is
//! kept, and the corrected request with the same key is told 422.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: frees_every_5xx
pub fn frees_the_key(answer: &axum::http::response::Parts) -> bool {
    // The mistake: the status alone, and every 5xx taken for "nothing was done".
    answer.status.is_server_error()
}
// ANCHOR_END: frees_every_5xx
