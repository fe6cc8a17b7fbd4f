//! The `Idempotency-Key` header, as the IETF draft defines it and as clients send it.
//!
//! The draft (draft-ietf-httpapi-idempotency-key-header) makes the field an RFC 8941
//! Structured Field whose value is a String: `Idempotency-Key: "8e03978e-40d5"`.
//! Many clients send the bare value instead (`Idempotency-Key: 8e03978e-40d5`);
//! both are accepted here and mean the same key.

use axum::http::HeaderMap;
use payment_model::{KeyProblem, MAX_KEY_LENGTH};

/// A key that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The key of a request, from its one `Idempotency-Key` header.
    pub fn from_headers(headers: &HeaderMap) -> Result<Self, KeyProblem> {
        let mut values = headers.get_all("idempotency-key").iter();
        let value = values.next().ok_or(KeyProblem::Missing)?;
        if values.next().is_some() {
            return Err(KeyProblem::Malformed("the header is sent more than once"));
        }
        let text = value
            .to_str()
            .map_err(|_| KeyProblem::Malformed("it is not visible ASCII"))?;
        Self::parse(text)
    }

    /// Parses a header value: an sf-string (`"abc"`, where `\"` and `\\` are the
    /// only escapes, and nothing may follow the closing quote), or a bare value of
    /// visible ASCII without quotes, backslashes or spaces. Refuse an empty key with
    /// `KeyProblem::Empty`, one longer than `MAX_KEY_LENGTH` characters with
    /// `KeyProblem::TooLong(n)`, anything else with `KeyProblem::Malformed(why)`.
    pub fn parse(text: &str) -> Result<Self, KeyProblem> {
        todo!("stage 6: parse the Idempotency-Key (see the comment above, or `just hint 6`)")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}
