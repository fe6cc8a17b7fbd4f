//! Everything the harness says, in both languages (`locales/*/harness.ftl`).

l10n::catalogue!(pub(crate) static MESSAGES = "../locales", "harness");
