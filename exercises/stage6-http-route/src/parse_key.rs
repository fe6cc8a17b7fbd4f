// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

//! The value of an `Idempotency-Key` header. Write `IdempotencyKey::parse`; the
//! key's type and `from_headers`, which calls it with the header's one value, are
//! given: the model answer's `key.rs`, compiled into this crate (its comment says
//! what the draft allows, and what this route refuses on purpose).

use payment_model::{KeyProblem, MAX_KEY_LENGTH};

use crate::IdempotencyKey;

impl IdempotencyKey {
    /// Parses a header value: an sf-string (`"abc"`, where `\"` and `\\` are the
    /// only escapes, and nothing may follow the closing quote, not even a parameter
    /// such as `;p=1`: this route accepts none), or a bare value of
    /// visible ASCII without quotes, backslashes or spaces. Refuse an empty key with
    /// `KeyProblem::Empty`, one longer than `MAX_KEY_LENGTH` characters with
    /// `KeyProblem::TooLong(n)`, anything else with `KeyProblem::Malformed(why)`.
    pub fn parse(text: &str) -> Result<Self, KeyProblem> {
        todo!(
            "stage 6: parse the Idempotency-Key (see the comment above, or `cargo workbook hint 6`)"
        )
    }
}
