//! The `Idempotency-Key` header, as the IETF draft defines it and as clients send it.
//!
//! The draft (draft-ietf-httpapi-idempotency-key-header) makes the field an Item
//! Structured Field (RFC 8941, since replaced by RFC 9651) whose value is a String:
//! `Idempotency-Key: "8e03978e-40d5"`. Many clients send the bare value instead
//! (`Idempotency-Key: 8e03978e-40d5`); both are accepted here and mean the same key.
//!
//! Two things a generic structured-field parser would accept are refused here, on
//! purpose: parameters after the key (`"k";p=1` parses as the String "k" with a
//! parameter; the draft defines none, and a key whose meaning depends on whether a
//! server reads or ignores them is not one identity), and the field sent in two
//! lines (combined, `"a", "b"` is a List, not an Item).
//!
//! Given to the learner as it is (the exercise compiles this file with `#[path]`);
//! `parse_key.rs` parses the header's value.

use axum::http::HeaderMap;
use payment_model::KeyProblem;

/// A key that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(pub(crate) String);

// ANCHOR: from_headers
impl IdempotencyKey {
    /// The key of a request, from its one `Idempotency-Key` header.
    pub fn from_headers(headers: &HeaderMap) -> Result<Self, KeyProblem> {
        let mut values = headers.get_all("idempotency-key").iter();
        let value = values.next().ok_or(KeyProblem::Missing)?;
        if values.next().is_some() {
            // HTTP combines field lines with a comma: `"a", "b"` is not one Item.
            return Err(KeyProblem::Malformed(
                "the field is sent in more than one line; combined, it is a list, not one key",
            ));
        }
        let text = value
            .to_str()
            .map_err(|_| KeyProblem::Malformed("it is not visible ASCII"))?;
        Self::parse(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}
// ANCHOR_END: from_headers
