//! Names derived from content.

use sha2::{Digest, Sha256};

/// SHA-256 of some text, in hex: names derived from content (a cache directory,
/// a machine's tag).
pub(crate) fn content_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
