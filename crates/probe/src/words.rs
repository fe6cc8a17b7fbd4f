//! Every word of the probe's reports, and nowhere else: said from the probe's
//! Fluent catalogue (`locales/*/probe.ftl`) in the language of the run (`--lang`,
//! `WORKBOOK_LANG`, the locale: the workbook's one mechanism, the `l10n` crate).
//!
//! A check never writes a sentence: it says which one ([`Said`], by key) and with
//! which facts (its arguments: statuses, counts, keys, what the server sent). This
//! module turns that into words. Each message has a kebab-case key (the variant's
//! name, as the JSON report's `messages` write it; `said-KEY` in the catalogue)
//! and named arguments (`said-burst-passed = { $size } × { $status }, one id, the
//! same body`). Facts stay facts: a status, a count, a key or a body excerpt is an
//! argument, never translated. Machine fields (check ids, verdict codes, the
//! profile's answers, the JSON report's keys and `messages`, the JUnit suite's
//! and test cases' names) are not words: they stay the same in every language.

use std::fmt::{self, Display, Formatter};
use std::time::Duration;

use l10n::{Arg, Lang, Localiser, t};
use serde::Serialize;

use crate::catalogue::CheckId;
use crate::error::{Mistake, ProbeError};
use crate::http::NoAnswer;
use crate::outcome::Verdict;
use crate::profile::{ConcurrentOtherBody, InFlight, KeyLifetime, ReplayMarker};

// The catalogues: `locales/en/probe.ftl` and `locales/pt-BR/probe.ftl`.
l10n::catalogue!(static MESSAGES = "../locales", "probe");

/// The words of this run's language.
fn words() -> &'static Localiser {
    MESSAGES.current()
}

/// A list of facts, shown comma-separated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct List<T>(pub Vec<T>);

impl<T: Display> Display for List<T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (at, item) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

/// What one request came to, as a tally counts it: a status, or no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tallied {
    Status(u16),
    /// No answer within the bound.
    Unanswered,
    /// The connection failed or closed without an answer.
    NoAnswer,
}

impl Display for Tallied {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(status) => write!(f, "{status}"),
            Self::Unanswered => f.write_str(&t!(words(), "tallied-unanswered")),
            Self::NoAnswer => f.write_str(&t!(words(), "tallied-no-answer")),
        }
    }
}

/// How many requests came to each outcome: `201 ×19, 409 ×1`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally(pub Vec<(Tallied, usize)>);

impl Tally {
    pub fn of(outcomes: impl IntoIterator<Item = Tallied>) -> Self {
        let mut counts = std::collections::BTreeMap::new();
        for outcome in outcomes {
            *counts.entry(outcome).or_insert(0) += 1;
        }
        Self(counts.into_iter().collect())
    }
}

impl Display for Tally {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(o, n)| format!("{o} ×{n}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// A bound or a wait, in seconds: `3 s`, `0.3 s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Seconds(#[serde(serialize_with = "crate::http::as_millis")] pub Duration);

impl Display for Seconds {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        let seconds = if ms.is_multiple_of(1000) {
            (ms / 1000).to_string()
        } else {
            words()
                .decimal(self.0.as_secs_f64(), 3)
                .trim_end_matches('0')
                .to_owned()
        };
        write!(f, "{seconds} s")
    }
}

/// One request of the bad-input checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "case")]
pub enum Case {
    KeyMissing,
    KeyEmpty,
    KeyTooLong { characters: usize },
    NotJson,
    OverTheLimit { bytes: usize },
}

impl Display for Case {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let w = words();
        let said = match self {
            Self::KeyMissing => t!(w, "case-key-missing"),
            Self::KeyEmpty => t!(w, "case-key-empty"),
            Self::KeyTooLong { characters } => {
                t!(w, "case-key-too-long", characters = characters.to_string())
            }
            Self::NotJson => t!(w, "case-not-json"),
            Self::OverTheLimit { bytes } => {
                t!(w, "case-over-the-limit", bytes = bytes.to_string())
            }
        };
        f.write_str(&said)
    }
}

/// A network fault of the lost-answer check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    AnswerLost,
    RequestLost,
    AnswerLate,
}

impl Display for Fault {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            Self::AnswerLost => t!(words(), "fault-answer-lost"),
            Self::RequestLost => t!(words(), "fault-request-lost"),
            Self::AnswerLate => t!(words(), "fault-answer-late"),
        })
    }
}

/// What the server had answered behind the proxy: a status, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ServerSaw(pub Option<u16>);

impl Display for ServerSaw {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(status) => write!(f, "{status}"),
            None => f.write_str(&t!(words(), "server-saw-nothing")),
        }
    }
}

/// What the client saw: a status, or why there was none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientSaw {
    Status(u16),
    NoAnswer(NoAnswer),
}

impl Display for ClientSaw {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(status) => write!(f, "{status}"),
            Self::NoAnswer(why) => write!(f, "{why}"),
        }
    }
}

impl Display for NoAnswer {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let w = words();
        f.write_str(&match self {
            Self::Connect(reason) => t!(w, "no-answer-connect", reason = reason.to_string()),
            Self::Timeout(bound) => {
                t!(w, "no-answer-timeout", bound = Seconds(*bound).to_string())
            }
            Self::Closed => t!(w, "no-answer-closed"),
            Self::Malformed(excerpt) => {
                t!(w, "no-answer-malformed", excerpt = excerpt.to_string())
            }
        })
    }
}

impl std::error::Error for NoAnswer {}

/// A body excerpt shown quoted, as Rust writes a string (`"{\n  \"amount\"..."`):
/// its spacing and line breaks are the fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Quoted(pub String);

impl Display for Quoted {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// Declares [`Said`] from one table: each message's key (its variant) and its
/// arguments; its words are the catalogue's `said-KEY` (`said-burst-passed`).
macro_rules! messages {
    ($( $(#[$doc:meta])* $variant:ident $({ $($arg:ident: $ty:ty),* $(,)? })?; )*) => {
        /// A sentence of a report, by key, with its facts.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "key", content = "args", rename_all = "kebab-case")]
        pub enum Said {
            $( $(#[$doc])* $variant $({ $($arg: $ty),* })?, )*
        }

        impl Said {
            /// The variant's name and its facts, each as its words show it.
            fn parts(&self) -> (&'static str, Vec<(&'static str, Arg)>) {
                match self {
                    $( Self::$variant $({ $($arg),* })? => (
                        stringify!($variant),
                        vec![$($((stringify!($arg), Arg::from($arg.to_string()))),*)?],
                    ), )*
                }
            }
        }
    };
}

impl Said {
    /// The sentence in this run's language.
    pub fn said(&self) -> String {
        self.said_in(words())
    }

    /// The sentence in `lang`.
    pub fn said_in_lang(&self, lang: Lang) -> String {
        self.said_in(MESSAGES.in_lang(lang))
    }

    fn said_in(&self, words: &Localiser) -> String {
        let (variant, args) = self.parts();
        words.say(&format!("said-{}", kebab(variant)), &args)
    }
}

/// `BurstPassed` as the catalogue names it: `burst-passed`.
fn kebab(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (at, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if at > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

messages! {
    // The run.
    SkippedOnRequest;
    StuckBurstDeadlock;
    SkippedAfterStuckBurst;
    Effects { created: i64 };
    EffectsExpected { created: i64, expected: i64 };
    EffectsMismatch { created: i64, expected: i64 };
    NoRetryAfter { tally: Tally };
    NotAnsweredWithin { bound: Seconds };

    // One answer, on one line.
    Answered { status: u16, media_type: String, body: String };
    NotAnswered { why: NoAnswer };
    FirstAnswer { answer: Box<Said> };
    RetryAnswer { answer: Box<Said> };
    OtherBodyAnswer { answer: Box<Said> };
    KeyAnswer { key: String, answer: Box<Said> };
    RewrittenAnswer { body: Quoted, answer: Box<Said> };
    CaseAnswer { case: Case, answer: Box<Said> };

    // burst
    BurstSent { size: usize, key: String, tally: Tally, ms: u128 };
    BurstSentAcross { size: usize, key: String, instances: usize, tally: Tally, ms: u128 };
    BurstUnanswered { answered: usize, size: usize, bound: Seconds, unanswered: usize };
    BurstLeftUnanswered { size: usize, answered: usize, bound: Seconds, unanswered: usize };
    BurstDeadlock { unanswered: usize, size: usize };
    InFlightRetried { count: usize, tally: Tally };
    NoFinalAnswer;
    /// The first ids, "…" last when there were more.
    Ids { ids: List<String> };
    BodiesIdentical;
    BodiesSameJson;
    BodiesDifferent;
    ManyIds { ids: usize };
    AnswersDiffer;
    NoSuccess { status: u16 };
    BurstPassed { size: usize, status: u16 };
    InFlightWithoutRetryAfter;

    // replay
    NoAnswerToARequest;
    ReplayMarked { header: String, value: String };
    ReplayNotMarked;
    RetryGotAnotherId;
    RetryGotAnother;
    ReplayedByteForByte { status: u16 };
    ReplayedSameJson { status: u16 };

    // different-body
    SecondNotAnswered;
    Refused422;
    RefusedNot422 { status: u16 };
    AcceptedOtherBody { status: u16 };
    AnsweredError { status: u16 };

    // concurrent-body
    PairSent { ms: u128 };
    PairBodyAnswer { answer: Box<Said> };
    PairOtherBodyAnswer { answer: Box<Said> };
    PairRetriedAfter409 { count: usize, answer: Box<Said> };
    PairRefused { status: u16 };
    PairConflictThen { then: u16 };
    PairRefusedOther { status: u16 };
    PairBothAccepted;
    PairPassedOff;
    PairAcceptedAfterConflict { status: u16 };
    PairNoneAccepted;

    // distinct-keys
    TwoKeysTwoIds;
    TwoKeysOneId;
    NewKeyNotCreated;

    // rewritten-body
    NothingToReorder;
    RewrittenReplayed;
    RewrittenRefused { status: u16 };
    RewrittenAccepted;
    AnsweredStatus { status: u16 };

    // bad-keys, bad-bodies
    NotRefused { cases: List<Case> };
    NotAProblem { cases: List<Case> };
    BadKeysRefused;
    BodiesAccepted { cases: List<Case> };
    NeitherAcceptedNorRefused { cases: List<Case> };
    BadBodiesRefused;

    // lost-answer
    LostExchange { fault: Fault, client: ClientSaw, server: ServerSaw, retry: Box<Said> };
    LostRetryUnanswered { fault: Fault };
    LostRetryGot { fault: Fault, status: u16 };
    LostRetryDiffers { fault: Fault };
    LostAnswersReplayed;

    // hang
    HangBurst { size: usize, tally: Tally, ms: u128 };
    HangUnanswered { answered: usize, size: usize, bound: Seconds };
    HangDeadlock { answered: usize, size: usize, bound: Seconds };
    HangGaveUp { errors: usize };
    HangNoRetryAfter;
    HangAnswered;
}

impl Display for Said {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.said())
    }
}

/// Several reasons, as one line.
pub fn joined(said: &[Said]) -> String {
    said.iter().map(Said::said).collect::<Vec<_>>().join("; ")
}

impl CheckId {
    /// What the check asks, in a few words, in this run's language.
    pub fn title(self) -> String {
        title_in(self, words())
    }

    /// What the check asks, in `lang` (the JUnit test case's name is English in
    /// every run: CI systems track a test by its name).
    pub fn title_in_lang(self, lang: Lang) -> String {
        title_in(self, MESSAGES.in_lang(lang))
    }
}

/// What a check asks, in a few words: the catalogue's `title-CHECK`.
fn title_in(id: CheckId, words: &Localiser) -> String {
    words.say(&format!("title-{}", id.as_str()), &[])
}

/// A verdict, as the table writes it.
pub fn verdict(verdict: Verdict) -> String {
    let w = words();
    match verdict {
        Verdict::Pass => t!(w, "verdict-pass"),
        Verdict::Warn => t!(w, "verdict-warn"),
        Verdict::Fail => t!(w, "verdict-fail"),
        Verdict::Skipped => t!(w, "verdict-skipped"),
    }
}

/// The table's column headings: check, verdict, why.
pub fn table_headings() -> [String; 3] {
    let w = words();
    [
        t!(w, "heading-check"),
        t!(w, "heading-verdict"),
        t!(w, "heading-why"),
    ]
}

/// The profile table's column headings.
pub fn profile_headings() -> [String; 2] {
    let w = words();
    [
        t!(w, "heading-where-the-draft-leaves-it-open"),
        t!(w, "heading-what-this-api-does"),
    ]
}

/// The profile's heading line, over its table.
pub fn profile_title() -> String {
    t!(words(), "profile-title")
}

/// The summary line under the table.
pub fn summary(
    counts: [usize; 4],
    elapsed: Duration,
    counted_effects: bool,
    warnings_fail: bool,
) -> String {
    let [pass, warn, fail, skipped] = counts;
    let w = words();
    let effects = if counted_effects {
        t!(w, "summary-effects-counted")
    } else {
        t!(w, "summary-effects-not-counted")
    };
    let summary = t!(
        w,
        "summary",
        pass = pass.to_string(),
        warn = warn.to_string(),
        fail = fail.to_string(),
        skipped = skipped.to_string(),
        seconds = w.decimal(elapsed.as_secs_f64(), 1),
        effects = effects
    );
    if warnings_fail && warn > 0 {
        format!("{summary} {}", t!(w, "summary-warnings-fail"))
    } else {
        summary
    }
}

/// A profile row's question.
pub mod profile {
    use super::*;

    pub fn in_flight_question() -> String {
        t!(words(), "profile-in-flight")
    }

    pub fn replay_marker_question() -> String {
        t!(words(), "profile-replay-marker")
    }

    pub fn concurrent_other_body_question() -> String {
        t!(words(), "profile-concurrent-other-body")
    }

    pub fn key_lifetime_question() -> String {
        t!(words(), "profile-key-lifetime")
    }

    /// Why a fact could not be seen.
    fn not_observed(check: CheckId) -> String {
        t!(words(), "profile-not-observed", check = check.as_str())
    }

    pub fn in_flight(fact: &InFlight) -> String {
        let w = words();
        match fact {
            InFlight::Waits => t!(w, "profile-in-flight-waits"),
            InFlight::Conflict {
                retry_after: Some(after),
            } => t!(
                w,
                "profile-in-flight-conflict-after",
                after = after.to_string()
            ),
            InFlight::Conflict { retry_after: None } => t!(w, "profile-in-flight-conflict"),
            InFlight::NotObserved => not_observed(CheckId::Burst),
        }
    }

    pub fn replay_marker(fact: &ReplayMarker) -> String {
        match fact {
            ReplayMarker::Marked { header, value } => format!("{header}: {value}"),
            ReplayMarker::NotMarked => t!(words(), "profile-replay-not-marked"),
            ReplayMarker::NotObserved => not_observed(CheckId::Replay),
        }
    }

    pub fn concurrent_other_body(fact: &ConcurrentOtherBody) -> String {
        let w = words();
        match fact {
            ConcurrentOtherBody::Unprocessable => t!(w, "profile-other-body-unprocessable"),
            ConcurrentOtherBody::Conflict { then } => {
                t!(w, "profile-other-body-conflict", then = then.to_string())
            }
            ConcurrentOtherBody::OtherRefusal { status } => {
                t!(w, "profile-other-body-refused", status = status.to_string())
            }
            ConcurrentOtherBody::NotObserved => not_observed(CheckId::ConcurrentBody),
        }
    }

    pub fn key_lifetime(fact: &KeyLifetime) -> String {
        match fact {
            KeyLifetime::Advertised { header, value } => format!("{header}: {value}"),
            KeyLifetime::NotAdvertised => t!(words(), "profile-key-lifetime-not-advertised"),
        }
    }
}

/// A line of standard error for a run that could not run.
/// A mistake in the options or the URL (`probe-mistake-*`), said in the run's
/// language and in English.
pub fn mistake(id: &str, args: &[(&str, Arg)]) -> Mistake {
    Mistake {
        said: words().say(id, args),
        english: MESSAGES.in_lang(Lang::English).say(id, args),
    }
}

/// What stopped the probe, in the run's language (the error's `Display` is the
/// English of the same message, for logs and the JSON report's `error`).
pub fn probe_error(error: &ProbeError) -> String {
    let w = words();
    match error {
        ProbeError::BadUrl(mistake) | ProbeError::Options(mistake) => mistake.said.clone(),
        ProbeError::Remote { host, addr } => {
            t!(
                w,
                "probe-error-remote",
                host = host.as_str(),
                addr = addr.as_str()
            )
        }
        ProbeError::Resolve { host, reason } => {
            t!(
                w,
                "probe-error-resolve",
                host = host.as_str(),
                reason = reason.as_str()
            )
        }
        ProbeError::Unreachable { addr, reason } => {
            t!(
                w,
                "probe-error-unreachable",
                addr = addr.as_str(),
                reason = reason.as_str()
            )
        }
        ProbeError::NoAnswer {
            target,
            sent,
            bound,
            ..
        } => t!(
            w,
            "probe-error-no-answer",
            target = target.as_str(),
            sent = *sent,
            bound = Seconds(*bound).to_string()
        ),
        ProbeError::NotJson {
            target,
            status,
            media_type,
            excerpt,
        } => t!(
            w,
            "probe-error-not-json",
            target = target.as_str(),
            status = *status,
            media_type = format!("{media_type:?}"),
            excerpt = format!("{excerpt:?}")
        ),
        ProbeError::Refused {
            target,
            status,
            excerpt,
        } => t!(
            w,
            "probe-error-refused",
            target = target.as_str(),
            status = *status,
            excerpt = format!("{excerpt:?}")
        ),
        ProbeError::NoId {
            target,
            pointer,
            excerpt,
        } => t!(
            w,
            "probe-error-no-id",
            target = target.as_str(),
            pointer = format!("{pointer:?}"),
            excerpt = format!("{excerpt:?}")
        ),
        ProbeError::Count(reason) => t!(w, "probe-error-count", reason = reason.as_str()),
        ProbeError::NoCounting => t!(w, "probe-error-no-counting"),
        ProbeError::Write {
            format,
            path,
            reason,
        } => t!(
            w,
            "probe-error-write",
            format = *format,
            path = path.as_str(),
            reason = reason.as_str()
        ),
    }
}

pub fn error_line(error: &str) -> String {
    t!(words(), "error-line", error = error)
}

/// A line of standard error that warns.
pub fn warning_line(warning: &str) -> String {
    t!(words(), "warning-line", warning = warning)
}

/// `--allow-remote`'s warning.
pub fn remote_warning() -> String {
    t!(words(), "remote-warning")
}

/// The probe's catalogue: its report's words and its command line's
/// (`cli-*`, [`crate::cli::localise`]).
pub fn catalogue() -> &'static l10n::Catalogue {
    &MESSAGES
}

/// `--report` names no format the probe writes.
pub fn no_report_format(name: &str) -> String {
    t!(words(), "report-format-unknown", name = format!("{name:?}"))
}

/// `--report FORMAT=` with nothing after the `=`.
pub fn report_names_no_file(text: &str, name: &str) -> String {
    t!(
        words(),
        "report-names-no-file",
        text = format!("{text:?}"),
        name = name
    )
}

/// `--lang` (or the environment) names a language the probe does not speak.
pub fn unknown_lang(given: &str, by: &str) -> String {
    t!(words(), "unknown-lang", given = given, by = by)
}

/// The JUnit report's names and words.
pub mod junit {
    use super::*;

    /// The suite's name: an identifier, the same in every language.
    pub const SUITE: &str = "idempotency-probe";
    /// The name of the one test case of a run that could not run: an identifier,
    /// the same in every language.
    pub const COULD_NOT_RUN: &str = "the probe could not run";
    /// A warning's line in the test case's output.
    pub fn warned(why: &str) -> String {
        t!(words(), "junit-warned", why = why)
    }
}
