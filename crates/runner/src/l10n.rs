//! The runner's languages: which one the learner reads (`--lang`, then
//! `WORKBOOK_LANG`, then the locale), and the Fluent catalogues that say every
//! learner-facing text in it (`locales/*/runner.ftl`). The renderer asks a
//! [`Localiser`] for words; nothing decides by comparing them.

use std::fmt;
use std::sync::Arc;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

/// A language the workbook is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    English,
    BrazilianPortuguese,
}

/// Where the language choice came from: what a learner who asks is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Flag,
    /// `WORKBOOK_LANG`.
    Variable,
    /// The first locale variable set (`LC_ALL`, `LC_MESSAGES`, `LANG`).
    Locale(&'static str),
    Default,
}

/// A language the workbook is not written in, asked for by name.
#[derive(Debug, thiserror::Error)]
#[error("{given:?} is not a language of the workbook (given by {by}): use en or pt-BR")]
pub struct UnknownLang {
    pub given: String,
    pub by: &'static str,
}

/// The locale variables, in POSIX's order of precedence for messages.
const LOCALE_VARIABLES: [&str; 3] = ["LC_ALL", "LC_MESSAGES", "LANG"];

/// The variable that picks the runner's language over the locale.
pub const LANG_VARIABLE: &str = "WORKBOOK_LANG";

impl Lang {
    /// The BCP 47 tag: the name `--lang` takes and the sibling files carry
    /// (`stages.pt-BR.toml`).
    pub fn tag(self) -> &'static str {
        match self {
            Self::English => "en",
            Self::BrazilianPortuguese => "pt-BR",
        }
    }

    /// `en`, `en-US`, `pt`, `pt-BR`, `pt_BR.UTF-8`, `pt_BR@euro`...: the
    /// language a tag or a locale name stands for, if the workbook has it.
    pub fn parse(name: &str) -> Option<Self> {
        // A locale name: language[_territory][.codeset][@modifier].
        let name = name
            .split(['.', '@'])
            .next()
            .unwrap_or("")
            .replace('_', "-");
        let id: LanguageIdentifier = name.parse().ok()?;
        match id.language.as_str() {
            "en" => Some(Self::English),
            // Portuguese is the Brazilian kind here: the workbook has no other.
            "pt" => Some(Self::BrazilianPortuguese),
            _ => None,
        }
    }

    /// The flag, then `WORKBOOK_LANG`, then the locale; English otherwise. A flag
    /// or a `WORKBOOK_LANG` naming no language of the workbook is an error (the
    /// learner asked for it); a locale the workbook does not speak is English.
    pub fn choose(
        flag: Option<&str>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<(Self, Source), UnknownLang> {
        if let Some(flag) = flag {
            return Self::parse(flag)
                .map(|lang| (lang, Source::Flag))
                .ok_or_else(|| UnknownLang {
                    given: flag.to_owned(),
                    by: "--lang",
                });
        }
        if let Some(value) = var(LANG_VARIABLE).filter(|v| !v.trim().is_empty()) {
            return Self::parse(value.trim())
                .map(|lang| (lang, Source::Variable))
                .ok_or(UnknownLang {
                    given: value,
                    by: LANG_VARIABLE,
                });
        }
        // The first locale variable that is set decides, even when it names a
        // language the workbook does not speak (LC_ALL=C means English).
        for name in LOCALE_VARIABLES {
            if let Some(value) = var(name).filter(|v| !v.trim().is_empty()) {
                let lang = Self::parse(value.trim()).unwrap_or(Self::English);
                return Ok((lang, Source::Locale(name)));
            }
        }
        Ok((Self::English, Source::Default))
    }

    /// [`Lang::choose`] from this process's environment.
    pub fn from_environment(flag: Option<&str>) -> Result<(Self, Source), UnknownLang> {
        Self::choose(flag, |name| std::env::var(name).ok())
    }

    fn catalogue(self) -> &'static str {
        match self {
            Self::English => include_str!("../locales/en/runner.ftl"),
            Self::BrazilianPortuguese => include_str!("../locales/pt-BR/runner.ftl"),
        }
    }
}

/// Says the runner's texts in one language.
#[derive(Clone)]
pub struct Localiser {
    lang: Lang,
    bundle: Arc<FluentBundle<FluentResource>>,
}

impl fmt::Debug for Localiser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Localiser")
            .field("lang", &self.lang)
            .finish()
    }
}

impl Localiser {
    pub fn new(lang: Lang) -> Self {
        let id: LanguageIdentifier = lang.tag().parse().unwrap_or_default();
        let mut bundle = FluentBundle::new_concurrent(vec![id]);
        // Unicode isolation marks around each argument are for bidirectional
        // text on screens that render them; a terminal prints them as garbage.
        bundle.set_use_isolating(false);
        // The catalogues are compiled in and tested (`every_message_parses_...`):
        // a broken one shows its message ids, it does not stop the runner.
        let resource = FluentResource::try_new(lang.catalogue().to_owned())
            .unwrap_or_else(|(partial, _)| partial);
        let _ = bundle.add_resource(resource);
        Self {
            lang,
            bundle: Arc::new(bundle),
        }
    }

    pub fn english() -> Self {
        Self::new(Lang::English)
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The message `id` with its arguments; the id itself when the catalogue
    /// lacks it (a test checks both catalogues hold the same ids).
    pub fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        let Some(pattern) = self.bundle.get_message(id).and_then(|m| m.value()) else {
            return id.to_owned();
        };
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, value.to_fluent());
        }
        let mut errors = Vec::new();
        self.bundle
            .format_pattern(pattern, Some(&fluent_args), &mut errors)
            .into_owned()
    }

    /// The message `id` without arguments, if the catalogue has it.
    pub fn try_say(&self, id: &str) -> Option<String> {
        self.bundle.get_message(id)?.value()?;
        Some(self.say(id, &[]))
    }

    /// A decimal with `places` digits after the separator the language uses
    /// ("1.5" / "1,5").
    pub fn decimal(&self, x: f64, places: usize) -> String {
        let text = format!("{x:.places$}");
        match self.lang {
            Lang::English => text,
            Lang::BrazilianPortuguese => text.replace('.', ","),
        }
    }
}

/// An argument of a message: text, or a count (which picks the plural form).
#[derive(Debug, Clone)]
pub enum Arg {
    Text(String),
    Count(u64),
}

impl Arg {
    fn to_fluent(&self) -> FluentValue<'static> {
        match self {
            Self::Text(text) => FluentValue::from(text.clone()),
            Self::Count(n) => FluentValue::from(*n),
        }
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&String> for Arg {
    fn from(text: &String) -> Self {
        Self::Text(text.clone())
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

macro_rules! count_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(n: $t) -> Self {
                Self::Count(u64::try_from(n).unwrap_or(u64::MAX))
            }
        }
    )*};
}
count_arg!(u16, u32, u64, usize);

/// `t!(l, "id")`, `t!(l, "id", count = n, name = text)`: a message of the
/// localiser `l`.
#[macro_export]
macro_rules! t {
    ($l:expr, $id:literal) => {
        $l.say($id, &[])
    };
    ($l:expr, $id:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $l.say($id, &[$((stringify!($name), $crate::l10n::Arg::from($value))),+])
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_flag_wins_over_workbook_lang_which_wins_over_the_locale() {
        let all = [
            ("WORKBOOK_LANG", "en"),
            ("LANG", "pt_BR.UTF-8"),
            ("LC_ALL", "pt_BR.UTF-8"),
        ];
        let choose = |flag, vars| Lang::choose(flag, env(vars)).expect("a language");
        assert_eq!(
            choose(Some("pt-BR"), &all),
            (Lang::BrazilianPortuguese, Source::Flag)
        );
        assert_eq!(choose(None, &all), (Lang::English, Source::Variable));
        assert_eq!(
            choose(None, &all[1..]),
            (Lang::BrazilianPortuguese, Source::Locale("LC_ALL"))
        );
        assert_eq!(
            choose(None, &[("LANG", "pt_BR.UTF-8"), ("LC_MESSAGES", "C")]),
            (Lang::English, Source::Locale("LC_MESSAGES")),
            "LC_MESSAGES comes before LANG, and C is English"
        );
        assert_eq!(
            choose(None, &[("LANG", "pt_BR.UTF-8")]),
            (Lang::BrazilianPortuguese, Source::Locale("LANG"))
        );
        assert_eq!(choose(None, &[]), (Lang::English, Source::Default));
        assert_eq!(
            choose(None, &[("LANG", "fr_FR.UTF-8")]).0,
            Lang::English,
            "a locale the workbook does not speak is English"
        );
    }

    #[test]
    fn locale_names_and_tags_name_the_language() {
        for name in ["pt_BR.UTF-8", "pt_BR", "pt", "pt-BR", "pt_BR@euro", "PT-br"] {
            assert_eq!(Lang::parse(name), Some(Lang::BrazilianPortuguese), "{name}");
        }
        for name in ["en", "en_US.UTF-8", "en-GB"] {
            assert_eq!(Lang::parse(name), Some(Lang::English), "{name}");
        }
        for name in ["C", "POSIX", "fr_FR.UTF-8", ""] {
            assert_eq!(Lang::parse(name), None, "{name}");
        }
    }

    #[test]
    fn a_language_asked_for_by_name_that_the_workbook_lacks_is_an_error() {
        let error = Lang::choose(Some("fr"), env(&[])).expect_err("no French");
        assert_eq!(
            error.to_string(),
            "\"fr\" is not a language of the workbook (given by --lang): use en or pt-BR"
        );
        let error = Lang::choose(None, env(&[("WORKBOOK_LANG", "de")])).expect_err("no German");
        assert!(error.to_string().contains("WORKBOOK_LANG"), "{error}");
    }

    fn ids(lang: Lang) -> BTreeSet<String> {
        let resource = FluentResource::try_new(lang.catalogue().to_owned())
            .unwrap_or_else(|(_, errors)| panic!("{} does not parse: {errors:?}", lang.tag()));
        resource
            .entries()
            .filter_map(|e| match e {
                fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_message_parses_and_both_catalogues_hold_the_same_ids() {
        let en = ids(Lang::English);
        let pt = ids(Lang::BrazilianPortuguese);
        let missing: Vec<&String> = en.difference(&pt).collect();
        let extra: Vec<&String> = pt.difference(&en).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "locales/pt-BR/runner.ftl lacks {missing:?} and has {extra:?} that \
             locales/en/runner.ftl does not"
        );
    }

    #[test]
    fn a_count_picks_the_plural_form_and_decimals_take_the_languages_separator() {
        let en = Localiser::english();
        let pt = Localiser::new(Lang::BrazilianPortuguese);
        assert_eq!(t!(en, "tests-pass", count = 1usize), "1 test passes");
        assert_eq!(t!(en, "tests-pass", count = 3usize), "3 tests pass");
        assert_eq!(t!(pt, "tests-pass", count = 1usize), "1 teste passa");
        assert_eq!(t!(pt, "tests-pass", count = 3usize), "3 testes passam");
        assert_eq!(
            t!(pt, "tests-pass", count = 0usize),
            "0 testes passam",
            "CLDR's Portuguese \"one\" holds 0 too: the catalogue says [1]"
        );
        assert_eq!(pt.decimal(1.25, 1), "1,2");
        assert_eq!(en.decimal(1.25, 1), "1.2");
    }
}
