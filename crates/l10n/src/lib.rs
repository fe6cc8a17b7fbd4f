//! The workbook's one way to speak the learner's language, for every program
//! the learner reads: the runner, the test harness, the server's provisioning,
//! the tests' messages (and the probe, which builds alone).
//!
//! - **The language** is chosen once per process, in one order: `--lang` (the
//!   runner's flag), then `WORKBOOK_LANG`, then the locale (`LC_ALL`,
//!   `LC_MESSAGES`, `LANG`), then English ([`Lang::choose`]). The runner passes
//!   its choice to every process it starts (`WORKBOOK_LANG`), so a test's
//!   message speaks the runner's language; [`Lang::current`] is this process's.
//! - **The words** are Fluent catalogues, one per crate or test file, in
//!   `locales/<tag>/<name>.ftl` beside the code that says them, compiled in
//!   ([`Catalogue`]). A message is named after what it says
//!   (`a-second-insert-of-the-key-must-fail`); the facts in it (figures, SQL,
//!   SQLSTATEs, identifiers, paths, an error's own words) are arguments, never
//!   translated.
//! - **The pseudo-locale** `en-XA` is generated from the English catalogues:
//!   every message accented and each of its lines between `[!!` and `!!]`, so
//!   that a line of prose outside the markers is a text that does not come from a
//!   catalogue ([`pseudo`]).
//!
//! ## Saying a message
//!
//! 1. Write it in `locales/en/NAME.ftl` beside the code (a test file's:
//!    `tests/locales/en/FILE.ftl`), its id named after what it says
//!    (`twenty-requests-with-one-key-pay-once = 20 requests with one key must pay
//!    once: { $outcome }`), and its translation under the same id in
//!    `locales/pt-BR/NAME.ftl`, following `book/glossary.toml`.
//! 2. Name the catalogue once: `l10n::catalogue!(static MESSAGES = "locales",
//!    "FILE");` (a test file: `harness::catalogue!`, the harness re-exports it).
//! 3. Say it: `t!(MESSAGES, "id", fact = value)`; a failing test says
//!    `assert!(cond, "{}", t!(...))` with the figures in the sentence, never a bare
//!    `assert_eq!` left/right. An error type says its words in its `Display`.
//! 4. `cargo test -p workbook-l10n --test catalogues` checks both languages hold
//!    the same ids; `cargo test -p workbook-runner --test pseudo_locale` that a
//!    command prints nothing a catalogue does not say.
//!
//! ```
//! static MESSAGES: l10n::Catalogue = l10n::Catalogue::new(
//!     "example",
//!     "pool-state = pool: { $open } open of { $max } at most\n",
//!     "pool-state = pool: { $open } abertas de no máximo { $max }\n",
//! );
//! let pt = MESSAGES.in_lang(l10n::Lang::BrazilianPortuguese);
//! assert_eq!(l10n::t!(pt, "pool-state", open = 3u32, max = 5u32), "pool: 3 abertas de no máximo 5");
//! ```

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

#[cfg(feature = "clap")]
pub mod cli;
pub mod pseudo;

/// A language the workbook is written in, or the pseudo-locale that checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    English,
    BrazilianPortuguese,
    /// `en-XA`: the English catalogues, accented and marked ([`pseudo`]).
    Pseudo,
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

/// The variable that picks the language over the locale; the runner sets it for
/// the processes it starts.
pub const LANG_VARIABLE: &str = "WORKBOOK_LANG";

impl Lang {
    /// Every language, the pseudo-locale last.
    pub const ALL: [Lang; 3] = [Lang::English, Lang::BrazilianPortuguese, Lang::Pseudo];

    /// The BCP 47 tag: the name `--lang` takes, the catalogues' folder and the
    /// sibling files carry (`stages.pt-BR.toml`).
    pub fn tag(self) -> &'static str {
        match self {
            Self::English => "en",
            Self::BrazilianPortuguese => "pt-BR",
            Self::Pseudo => "en-XA",
        }
    }

    /// `en`, `en-US`, `pt`, `pt-BR`, `pt_BR.UTF-8`, `pt_BR@euro`, `en-XA`...: the
    /// language a tag or a locale name stands for, if the workbook has it.
    pub fn parse(name: &str) -> Option<Self> {
        // A locale name: language[_territory][.codeset][@modifier].
        let name = name
            .split(['.', '@'])
            .next()
            .unwrap_or("")
            .replace('_', "-");
        let id: LanguageIdentifier = name.parse().ok()?;
        match (id.language.as_str(), id.region.as_ref().map(|r| r.as_str())) {
            // XA: the region CLDR reserves for an accented pseudo-locale.
            ("en", Some("XA")) => Some(Self::Pseudo),
            ("en", _) => Some(Self::English),
            // Portuguese is the Brazilian kind here: the workbook has no other.
            ("pt", _) => Some(Self::BrazilianPortuguese),
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

    /// This process's language: the one [`Lang::set_current`] set, else the
    /// environment's (a `WORKBOOK_LANG` the workbook does not speak is English
    /// here: the program that reads it as a choice, the runner, says so).
    pub fn current() -> Self {
        match CURRENT.load(Ordering::Relaxed) {
            0 => {
                let lang = Self::from_environment(None).map_or(Self::English, |(lang, _)| lang);
                // Another thread may have set it meanwhile: its choice stands.
                let _ =
                    CURRENT.compare_exchange(0, lang.code(), Ordering::Relaxed, Ordering::Relaxed);
                Self::from_code(CURRENT.load(Ordering::Relaxed)).unwrap_or(lang)
            }
            code => Self::from_code(code).unwrap_or(Self::English),
        }
    }

    /// Makes `self` this process's language (the runner, once it has read
    /// `--lang`; a test that checks English words).
    pub fn set_current(self) {
        CURRENT.store(self.code(), Ordering::Relaxed);
    }

    fn code(self) -> u8 {
        match self {
            Self::English => 1,
            Self::BrazilianPortuguese => 2,
            Self::Pseudo => 3,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|lang| lang.code() == code)
    }

    /// The language whose catalogue says this one's words: the pseudo-locale is
    /// made from English.
    pub fn catalogue_lang(self) -> Self {
        match self {
            Self::Pseudo => Self::English,
            other => other,
        }
    }
}

/// 0 until chosen; then [`Lang::code`].
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// One crate's (or one test file's) messages in every language, compiled in:
/// `locales/en/NAME.ftl` and `locales/pt-BR/NAME.ftl` beside its code.
///
/// ```ignore
/// static MESSAGES: l10n::Catalogue = l10n::Catalogue::new(
///     "harness",
///     include_str!("../locales/en/harness.ftl"),
///     include_str!("../locales/pt-BR/harness.ftl"),
/// );
/// ```
pub struct Catalogue {
    name: &'static str,
    english: &'static str,
    portuguese: &'static str,
    localisers: [OnceLock<Localiser>; 3],
}

impl fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalogue")
            .field("name", &self.name)
            .finish()
    }
}

impl Catalogue {
    pub const fn new(name: &'static str, english: &'static str, portuguese: &'static str) -> Self {
        Self {
            name,
            english,
            portuguese,
            localisers: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The Fluent source of `lang`'s messages (English for the pseudo-locale).
    pub fn source(&self, lang: Lang) -> &'static str {
        match lang.catalogue_lang() {
            Lang::BrazilianPortuguese => self.portuguese,
            _ => self.english,
        }
    }

    /// The messages in `lang`, made on first use.
    pub fn in_lang(&self, lang: Lang) -> &Localiser {
        let slot = &self.localisers[usize::from(lang.code() - 1)];
        slot.get_or_init(|| Localiser::from_source(lang, self.source(lang)))
    }

    /// The messages in this process's language ([`Lang::current`]).
    pub fn current(&self) -> &Localiser {
        self.in_lang(Lang::current())
    }

    /// The message `id` in this process's language: what [`t!`] calls.
    pub fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        self.current().say(id, args)
    }
}

/// Says one catalogue's messages in one language.
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
    /// `source`'s messages, said in `lang` (accented and marked for the
    /// pseudo-locale).
    pub fn from_source(lang: Lang, source: &str) -> Self {
        let id: LanguageIdentifier = lang.catalogue_lang().tag().parse().unwrap_or_default();
        let mut bundle = FluentBundle::new_concurrent(vec![id]);
        // Unicode isolation marks around each argument are for bidirectional
        // text on screens that render them; a terminal prints them as garbage.
        bundle.set_use_isolating(false);
        if lang == Lang::Pseudo {
            // The catalogue's own text is accented, never an argument: a fact
            // stays as it is, inside the message's markers.
            bundle.set_transform(Some(pseudo::accent));
        }
        // The catalogues are compiled in and checked by tests (every catalogue
        // parses, both languages hold the same ids): a broken one shows its
        // message ids, it does not stop the program.
        let resource =
            FluentResource::try_new(source.to_owned()).unwrap_or_else(|(partial, _)| partial);
        let _ = bundle.add_resource(resource);
        Self {
            lang,
            bundle: Arc::new(bundle),
        }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The message `id` with its arguments; the id itself when the catalogue
    /// lacks it (a test checks that both languages hold the same ids).
    pub fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        let Some(pattern) = self.bundle.get_message(id).and_then(|m| m.value()) else {
            return id.to_owned();
        };
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, value.to_fluent());
        }
        let mut errors = Vec::new();
        let said = self
            .bundle
            .format_pattern(pattern, Some(&fluent_args), &mut errors)
            .into_owned();
        match self.lang {
            Lang::Pseudo => pseudo::mark(&said),
            _ => said,
        }
    }

    /// The message `id` without arguments, if the catalogue has it.
    pub fn try_say(&self, id: &str) -> Option<String> {
        self.bundle.get_message(id)?.value()?;
        Some(self.say(id, &[]))
    }

    /// Whether the catalogue has the message `id`.
    pub fn has(&self, id: &str) -> bool {
        self.bundle
            .get_message(id)
            .is_some_and(|m| m.value().is_some())
    }

    /// A decimal with `places` digits after the separator the language uses
    /// ("1.5" / "1,5").
    pub fn decimal(&self, x: f64, places: usize) -> String {
        let text = format!("{x:.places$}");
        match self.lang {
            Lang::BrazilianPortuguese => text.replace('.', ","),
            Lang::English | Lang::Pseudo => text,
        }
    }
}

/// Something that says messages by id: a [`Localiser`] (one language) or a
/// [`Catalogue`] (this process's language). What [`t!`] calls.
pub trait Say {
    fn say(&self, id: &str, args: &[(&str, Arg)]) -> String;
}

impl Say for Localiser {
    fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        Localiser::say(self, id, args)
    }
}

impl Say for Catalogue {
    fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        Catalogue::say(self, id, args)
    }
}

impl<T: Say + ?Sized> Say for &T {
    fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        (**self).say(id, args)
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

impl From<&&str> for Arg {
    fn from(text: &&str) -> Self {
        Self::Text((*text).to_owned())
    }
}

macro_rules! count_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(n: $t) -> Self {
                Self::Count(u64::try_from(n).unwrap_or(u64::MAX))
            }
        }
        impl From<&$t> for Arg {
            fn from(n: &$t) -> Self {
                Self::from(*n)
            }
        }
    )*};
}
count_arg!(u8, u16, u32, u64, usize, i32, i64);

/// `catalogue!(static MESSAGES = "locales", "stage2_naive")`: the catalogue
/// `NAME` of the files `DIR/en/NAME.ftl` and `DIR/pt-BR/NAME.ftl`, `DIR` relative
/// to the file that says it (as `include_str!`'s paths are).
#[macro_export]
macro_rules! catalogue {
    ($(#[$attr:meta])* $vis:vis static $static:ident = $dir:literal, $name:literal) => {
        $(#[$attr])*
        $vis static $static: $crate::Catalogue = $crate::Catalogue::new(
            $name,
            include_str!(concat!($dir, "/en/", $name, ".ftl")),
            include_str!(concat!($dir, "/pt-BR/", $name, ".ftl")),
        );
    };
}

/// `t!(MESSAGES, "id")`, `t!(l, "id", count = n, name = text)`: a message of a
/// [`Catalogue`] (in this process's language) or of a [`Localiser`].
/// Anything else shown in a message (an error, a path, a SQLSTATE) is an
/// argument: `t!(MESSAGES, "cannot-connect", to = target.to_string())`.
#[macro_export]
macro_rules! t {
    ($l:expr, $id:literal) => {
        $crate::Say::say(&$l, $id, &[])
    };
    ($l:expr, $id:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::Say::say(&$l, $id, &[$((stringify!($name), $crate::Arg::from($value))),+])
    };
}

/// The message ids a Fluent source defines, in order (for the checks of the
/// catalogues: every id in both languages); the parser's errors if it is broken.
pub fn ids(source: &str) -> Result<Vec<String>, String> {
    let resource =
        fluent_syntax::parser::parse(source).map_err(|(_, errors)| format!("{errors:?}"))?;
    Ok(resource
        .body
        .iter()
        .filter_map(|entry| match entry {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for name in ["en-XA", "en_XA.UTF-8"] {
            assert_eq!(Lang::parse(name), Some(Lang::Pseudo), "{name}");
        }
        for name in ["C", "POSIX", "fr_FR.UTF-8", ""] {
            assert_eq!(Lang::parse(name), None, "{name}");
        }
        for lang in Lang::ALL {
            assert_eq!(Lang::parse(lang.tag()), Some(lang), "{lang:?}'s own tag");
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

    static EXAMPLE: Catalogue = Catalogue::new(
        "example",
        "tests-pass =\n    { $count ->\n        [one] { $count } test passes\n       *[other] { $count } tests pass\n    }\nwhere = in { $file }\n",
        "tests-pass =\n    { $count ->\n        [1] { $count } teste passa\n       *[other] { $count } testes passam\n    }\nwhere = em { $file }\n",
    );

    #[test]
    fn a_count_picks_the_plural_form_and_decimals_take_the_languages_separator() {
        let en = EXAMPLE.in_lang(Lang::English);
        let pt = EXAMPLE.in_lang(Lang::BrazilianPortuguese);
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

    #[test]
    fn the_pseudo_locale_accents_the_catalogues_words_and_keeps_the_facts() {
        let pseudo = EXAMPLE.in_lang(Lang::Pseudo);
        let said = t!(pseudo, "where", file = "exercises/stage1-tables/x.sql");
        assert_eq!(said, "[!! íñ exercises/stage1-tables/x.sql !!]");
        assert_eq!(
            t!(pseudo, "tests-pass", count = 2usize),
            "[!! 2 ţéšţš þåšš !!]"
        );
    }

    #[test]
    fn a_missing_message_is_its_id() {
        assert_eq!(
            t!(EXAMPLE.in_lang(Lang::English), "no-such-message"),
            "no-such-message"
        );
    }

    #[test]
    fn the_ids_of_a_source_are_its_messages() {
        assert_eq!(
            ids(EXAMPLE.source(Lang::English)).expect("parses"),
            ["tests-pass", "where"]
        );
        assert!(ids("a = {").is_err(), "a broken catalogue is an error");
    }
}
