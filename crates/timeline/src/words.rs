//! Every word of a timeline, and nowhere else: the Fluent catalogues
//! `locales/en/timeline.ftl` and `locales/pt-BR/timeline.ftl`, compiled in.
//!
//! The drawing code never writes a sentence: it names a message (its key) and
//! gives its facts as arguments (a request's number, a duration already in the
//! language's format, a statement, a SQLSTATE). The catalogues are said
//! through the workbook's one localisation mechanism (the `l10n` crate), so a
//! timeline speaks the runner's language, the pseudo-locale included.

// The catalogues: `locales/en/timeline.ftl` and `locales/pt-BR/timeline.ftl`.
l10n::catalogue!(static TIMELINE = "../locales", "timeline");

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

    #[cfg(test)]
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
    words: &'static l10n::Localiser,
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
        Words::said_in(match lang {
            Lang::English => l10n::Lang::English,
            Lang::BrazilianPortuguese => l10n::Lang::BrazilianPortuguese,
        })
    }

    /// The words of the workbook's language `lang` (the runner's): the
    /// pseudo-locale's are English's, marked.
    pub fn said_in(lang: l10n::Lang) -> Words {
        Words {
            lang: Lang::from_tag(lang.catalogue_lang().tag()).unwrap_or(Lang::English),
            words: TIMELINE.in_lang(lang),
        }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The message `id` with its arguments; the id itself when the catalogue
    /// lacks it.
    pub fn say(&self, id: &str, args: &[(&str, Arg)]) -> String {
        if !self.words.has(id) {
            return id.to_owned();
        }
        let args: Vec<(&str, l10n::Arg)> = args
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    Arg::Text(text) => l10n::Arg::from(text.clone()),
                    Arg::Count(n) => l10n::Arg::from(*n),
                };
                (*name, value)
            })
            .collect();
        self.words.say(id, &args)
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

    pub(crate) fn decimal_separator(&self, text: String) -> String {
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
            crate::trace::UNIQUE_VIOLATION => "answer-unique-violation",
            crate::trace::LOCK_TIMEOUT => "answer-lock-timeout",
            crate::trace::UNANSWERED => "answer-unanswered",
            crate::trace::NO_ANSWER => "answer-no-answer",
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
        l10n::ids(lang.catalogue())
            .unwrap_or_else(|errors| panic!("{} does not parse: {errors}", lang.tag()))
            .into_iter()
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
