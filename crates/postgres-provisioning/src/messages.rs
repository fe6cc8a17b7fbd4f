//! Everything this crate says (its notes, its errors), in both languages, and
//! figures as those messages show them.

// The catalogues: `locales/*/provisioning.ftl`.
l10n::catalogue!(pub(crate) static MESSAGES = "../locales", "provisioning");

/// Seconds as the messages show them, with the language's decimal separator.
pub(crate) fn seconds(seconds: f64) -> String {
    MESSAGES.current().decimal(seconds, 2)
}

/// A bound as the messages show it: whole seconds, or tenths below a second.
pub(crate) fn bound(bound: std::time::Duration) -> String {
    if bound.subsec_millis() == 0 {
        bound.as_secs().to_string()
    } else {
        MESSAGES.current().decimal(bound.as_secs_f64(), 1)
    }
}
