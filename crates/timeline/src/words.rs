//! Every word of a timeline, and nowhere else: the Fluent catalogues
//! `locales/en/timeline.ftl` and `locales/pt-BR/timeline.ftl`, compiled in.
//!
//! The drawing code never writes a sentence: it names a message (its key) and
//! gives its facts as arguments (a request's number, a duration already in the
//! language's format, a statement, a SQLSTATE). The catalogues are the
//! workbook's Fluent ones, so they move as they are under the workbook's one
//! localisation mechanism (`l10n::Catalogue::new("timeline", ...)`) once it
//! lands; until then this module reads them with fluent-bundle, as the runner
//! reads its own.

use std::sync::{Arc, OnceLock};

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

/// A language a timeline is drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    English,
    BrazilianPortuguese,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::English, Lang::BrazilianPortuguese];

    /// The BCP 47 tag: `en`, `pt-BR`.
    pub fn tag(self) -> &'static str {
        match self {
            Self::English => "en",
            Self::BrazilianPortuguese => "pt-BR",
        }
    }

    /// The language a tag names (`en`, `pt-BR`, `pt`).
    pub fn from_tag(tag: &str) -> Option<Self> {
        match tag.split(['-', '_']).next()?.to_ascii_lowercase().as_str() {
            "en" => Some(Self::English),
            "pt" => Some(Self::BrazilianPortuguese),
            _ => None,
        }
    }

    fn catalogue(self) -> &'static str {
        match self {
            Self::English => include_str!("../locales/en/timeline.ftl"),
            Self::BrazilianPortuguese => include_str!("../locales/pt-BR/timeline.ftl"),
        }
    }
}

/// The words of one language.
#[derive(Clone)]
pub struct Words {
    lang: Lang,
    bundle: Arc<FluentBundle<FluentResource>>,
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Words").field("lang", &self.lang).finish()
    }
}

/// An argument of a message: text, or a count (which picks the plural form).
#[derive(Debug, Clone)]
pub enum Arg {
    Text(String),
    Count(u64),
}

impl From<&str> for Arg {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
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

impl From<usize> for Arg {
    fn from(n: usize) -> Self {
        Self::Count(n as u64)
    }
}

impl From<u32> for Arg {
    fn from(n: u32) -> Self {
        Self::Count(u64::from(n))
    }
}

impl Words {
    /// The words of `lang` (built once per language).
    pub fn of(lang: Lang) -> Words {
        static BUNDLES: OnceLock<[Words; 2]> = OnceLock::new();
        let all = BUNDLES.get_or_init(|| Lang::ALL.map(Words::build));
        all[Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0)].clone()
    }

    fn build(lang: Lang) -> Words {
        let id: LanguageIdentifier = lang.tag().parse().unwrap_or_default();
        let mut bundle = FluentBundle::new_concurrent(vec![id]);
        // Isolation marks are for bidirectional text; a terminal and an SVG
        // would show them.
        bundle.set_use_isolating(false);
        // Compiled in and tested (`both_catalogues_hold_the_same_messages`).
        let resource = FluentResource::try_new(lang.catalogue().to_owned())
            .unwrap_or_else(|(partial, _)| partial);
        let _ = bundle.add_resource(resource);
        Words {
            lang,
            bundle: Arc::new(bundle),
        }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The message `id` with its arguments; the id itself when the catalogue
    /// lacks it.
    pub fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        let Some(pattern) = self.bundle.get_message(id).and_then(|m| m.value()) else {
            return id.to_owned();
        };
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            let value = match value {
                Arg::Text(text) => FluentValue::from(text.clone()),
                Arg::Count(n) => FluentValue::from(*n),
            };
            fluent_args.set(*name, value);
        }
        let mut errors = Vec::new();
        self.bundle
            .format_pattern(pattern, Some(&fluent_args), &mut errors)
            .into_owned()
    }

    /// A duration for a reader: `0.4 ms`, `3.2 ms`, `212 ms`, `2.0 s` (the
    /// decimal separator of the language).
    pub fn duration(&self, us: u64) -> String {
        // A no-break space: a figure and its unit stay on one line.
        let text = if us < 10_000 {
            format!("{:.1}\u{a0}ms", us as f64 / 1000.0)
        } else if us < 1_000_000 {
            format!("{}\u{a0}ms", (us + 500) / 1000)
        } else {
            format!("{:.1}\u{a0}s", us as f64 / 1_000_000.0)
        };
        self.decimal_separator(text)
    }

    /// A range of durations: `205 ms` when both ends read the same, else
    /// `201–209 ms` (one unit, the larger end's).
    pub fn duration_range(&self, low: u64, high: u64) -> String {
        let (a, b) = (self.duration(low), self.duration(high));
        if a == b {
            return b;
        }
        let unit = |text: &str| text.rsplit('\u{a0}').next().unwrap_or("").to_owned();
        if unit(&a) == unit(&b) {
            let number = a
                .rsplit_once('\u{a0}')
                .map_or(a.as_str(), |(n, _)| n)
                .to_owned();
            format!("{number}–{b}")
        } else {
            format!("{a}–{b}")
        }
    }

    fn decimal_separator(&self, text: String) -> String {
        match self.lang {
            Lang::English => text,
            Lang::BrazilianPortuguese => text.replace('.', ","),
        }
    }

    /// A recorded answer for a reader: a status as it is, an error of the
    /// harness's outcome in words (`error: pool timed out`).
    pub fn answer(&self, recorded: &str) -> String {
        let key = match recorded {
            crate::trace::POOL_TIMED_OUT => "answer-pool-timed-out",
            "error: unique violation (23505)" => "answer-unique-violation",
            "error: lock timeout (55P03)" => "answer-lock-timeout",
            "unanswered" => "answer-unanswered",
            "no answer" => "answer-no-answer",
            other => return other.strip_prefix("error: ").unwrap_or(other).to_owned(),
        };
        self.say(key, &[])
    }
}

/// `say!(words, "id")`, `say!(words, "id", name = value, ...)`.
#[macro_export]
macro_rules! say {
    ($w:expr, $id:literal) => {
        $w.say($id, &[])
    };
    ($w:expr, $id:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $w.say($id, &[$((stringify!($name), $crate::words::Arg::from($value))),+])
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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
    fn both_catalogues_hold_the_same_messages() {
        let en = ids(Lang::English);
        let pt = ids(Lang::BrazilianPortuguese);
        let missing: Vec<&String> = en.difference(&pt).collect();
        let extra: Vec<&String> = pt.difference(&en).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "locales/pt-BR/timeline.ftl lacks {missing:?} and has {extra:?} that the English one does not"
        );
    }

    #[test]
    fn durations_read_in_the_languages_format() {
        let en = Words::of(Lang::English);
        let pt = Words::of(Lang::BrazilianPortuguese);
        let plain = |text: String| text.replace('\u{a0}', " ");
        assert_eq!(plain(en.duration(420)), "0.4 ms");
        assert_eq!(plain(en.duration(212_400)), "212 ms");
        assert_eq!(plain(en.duration(2_000_300)), "2.0 s");
        assert_eq!(plain(pt.duration(2_000_300)), "2,0 s");
        assert_eq!(plain(en.duration_range(201_000, 209_000)), "201–209 ms");
        assert_eq!(plain(en.duration_range(205_100, 204_900)), "205 ms");
        assert_eq!(plain(en.duration_range(900, 2_000_000)), "0.9 ms–2.0 s");
        assert_eq!(say!(pt, "fact-paid-twice", count = 2usize), "pagou 2 vezes");
        // Portuguese's plural "one" covers 0 too: zero has a variant of its own.
        let rows = |words: &Words, count: usize| {
            plain(say!(
                words,
                "step-rows",
                statement = "INSERT k",
                count = count
            ))
        };
        assert_eq!(rows(&pt, 0), "INSERT k (0 linhas)");
        assert_eq!(rows(&pt, 1), "INSERT k (1 linha)");
        assert_eq!(rows(&en, 0), "INSERT k (0 rows)");
        assert_eq!(en.answer("error: pool timed out"), "pool timed out");
        assert_eq!(pt.answer("201"), "201");
        assert_eq!(en.answer("error: connection reset"), "connection reset");
    }
}
