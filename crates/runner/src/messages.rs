//! The runner's words: its Fluent catalogue (`locales/*/runner.ftl`), said
//! through the workbook's one localisation mechanism (the `l10n` crate, which
//! also chooses the language). The renderer asks a [`Localiser`] for words;
//! nothing decides by comparing them.

use l10n::{Catalogue, Lang, Localiser};

/// Everything the runner says, in both languages.
pub static RUNNER: Catalogue = Catalogue::new(
    "runner",
    include_str!("../locales/en/runner.ftl"),
    include_str!("../locales/pt-BR/runner.ftl"),
);

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

    #[test]
    fn a_count_picks_the_plural_form() {
        let en = english();
        let pt = localiser(Lang::BrazilianPortuguese);
        assert_eq!(t!(en, "tests-pass", count = 1usize), "1 test passes");
        assert_eq!(t!(en, "tests-pass", count = 3usize), "3 tests pass");
        assert_eq!(t!(pt, "tests-pass", count = 1usize), "1 teste passa");
        assert_eq!(t!(pt, "tests-pass", count = 3usize), "3 testes passam");
        assert_eq!(
            t!(pt, "tests-pass", count = 0usize),
            "0 testes passam",
            "CLDR's Portuguese \"one\" holds 0 too: the catalogue says [1]"
        );
    }
}
