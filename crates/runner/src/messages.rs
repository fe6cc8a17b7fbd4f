//! The runner's words: its Fluent catalogue (`locales/*/runner.ftl`), said
//! through the workbook's one localisation mechanism (the `l10n` crate, which
//! also chooses the language). The renderer asks a [`Localiser`] for words;
//! nothing decides by comparing them.

use l10n::{Lang, Localiser};

// Everything the runner says, in both languages.
l10n::catalogue!(pub static RUNNER = "../locales", "runner");

/// The runner's words in `lang`.
pub fn localiser(lang: Lang) -> Localiser {
    RUNNER.in_lang(lang).clone()
}

/// The runner's words in English (what CI's logs and `verify` print).
pub fn english() -> Localiser {
    localiser(Lang::English)
}

#[cfg(test)]
mod tests {
    use super::*;
    use l10n::t;

    /// The catalogue's plurals say `[1]`, not CLDR's `[one]`, which holds 0 too.
    #[test]
    fn zero_tests_are_plural_in_portuguese() {
        let pt = localiser(Lang::BrazilianPortuguese);
        assert_eq!(t!(pt, "tests-pass", count = 0usize), "0 testes passam");
        assert_eq!(t!(pt, "tests-pass", count = 1usize), "1 teste passa");
    }
}
