//! The value of an `Idempotency-Key` header: an sf-string or a bare value (see
//! `key.rs` for what the draft says and what is refused on purpose).

use payment_model::{KeyProblem, MAX_KEY_LENGTH};

use crate::IdempotencyKey;

// ANCHOR: parse
impl IdempotencyKey {
    /// Parses a header value: an sf-string (`"abc"`, with `\"` and `\\` escapes) or
    /// a bare value of visible ASCII without quotes or spaces.
    pub fn parse(text: &str) -> Result<Self, KeyProblem> {
        let text = text.trim_matches([' ', '\t']);
        let key = match text.strip_prefix('"') {
            Some(quoted) => parse_sf_string(quoted)?,
            None if text
                .chars()
                .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\') =>
            {
                text.to_owned()
            }
            None => {
                return Err(KeyProblem::Malformed(
                    "a bare key may hold no spaces, quotes or backslashes",
                ));
            }
        };
        match key.chars().count() {
            0 => Err(KeyProblem::Empty),
            n if n > MAX_KEY_LENGTH => Err(KeyProblem::TooLong(n)),
            _ => Ok(Self(key)),
        }
    }
}

/// The rest of an sf-string after its opening quote (RFC 8941, section 4.2.5).
fn parse_sf_string(rest: &str) -> Result<String, KeyProblem> {
    let mut key = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ ('"' | '\\')) => key.push(escaped),
                _ => {
                    return Err(KeyProblem::Malformed(
                        "in a quoted key, \\ may only escape \" or \\",
                    ));
                }
            },
            '"' => {
                let rest = chars.as_str();
                return if rest.is_empty() {
                    Ok(key)
                } else if rest.starts_with(';') {
                    // RFC 9651 would read a parameter here. The draft defines none,
                    // and this route refuses them rather than guess what they mean.
                    Err(KeyProblem::Malformed(
                        "this route accepts no parameters after the key; send the key alone",
                    ))
                } else {
                    Err(KeyProblem::Malformed(
                        "nothing may follow the closing quote",
                    ))
                };
            }
            ' '..='~' => key.push(c),
            _ => {
                return Err(KeyProblem::Malformed(
                    "a quoted key holds printable ASCII only",
                ));
            }
        }
    }
    Err(KeyProblem::Malformed("the quoted key has no closing quote"))
}
// ANCHOR_END: parse

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structured_field_string_and_a_bare_token_are_the_same_key() {
        assert_eq!(
            IdempotencyKey::parse("\"abc-123\""),
            IdempotencyKey::parse("abc-123")
        );
    }

    #[test]
    fn escapes_in_a_quoted_key_are_undone() {
        assert_eq!(
            IdempotencyKey::parse(r#""a\"b\\c""#).map(|k| k.0),
            Ok(r#"a"b\c"#.to_owned())
        );
    }

    #[test]
    fn malformed_keys_are_refused() {
        for text in ["\"abc", "\"abc\";p=1", "a b", "\"a\\x\""] {
            assert!(
                matches!(IdempotencyKey::parse(text), Err(KeyProblem::Malformed(_))),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_parameter_after_the_key_is_refused_on_purpose() {
        assert_eq!(
            IdempotencyKey::parse("\"abc\";p=1"),
            Err(KeyProblem::Malformed(
                "this route accepts no parameters after the key; send the key alone"
            ))
        );
    }

    #[test]
    fn an_empty_quoted_key_is_empty() {
        assert_eq!(IdempotencyKey::parse("\"\""), Err(KeyProblem::Empty));
    }
}
