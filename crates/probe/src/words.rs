//! Every word of the probe's reports, in English, and nowhere else.
//!
//! A check never writes a sentence: it says which one ([`Said`], by key) and with
//! which facts (its arguments: statuses, counts, keys, what the server sent). This
//! module turns that into words. Each message has a kebab-case key (the variant's
//! name, as the JSON report's `messages` write it) and named arguments, so that it
//! moves as it is into a Fluent catalogue (`burst-passed = { $size } × { $status },
//! one id, the same body`). Facts stay facts: a status, a count, a key or a body
//! excerpt is an argument, never translated. Machine fields (check ids, verdict
//! codes, the profile's answers, the JSON report's keys) are not words and live
//! beside the types they name.

use std::fmt::{self, Display, Formatter};
use std::time::Duration;

use serde::Serialize;

use crate::catalogue::CheckId;
use crate::http::NoAnswer;
use crate::outcome::Verdict;
use crate::profile::{ConcurrentOtherBody, InFlight, KeyLifetime, ReplayMarker};

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
            Self::Unanswered => f.write_str("unanswered"),
            Self::NoAnswer => f.write_str("no answer"),
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
        if ms.is_multiple_of(1000) {
            write!(f, "{} s", ms / 1000)
        } else {
            write!(f, "{} s", self.0.as_secs_f64())
        }
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
        match self {
            Self::KeyMissing => f.write_str("missing"),
            Self::KeyEmpty => f.write_str("empty"),
            Self::KeyTooLong { characters } => write!(f, "too long ({characters} characters)"),
            Self::NotJson => f.write_str("not JSON"),
            Self::OverTheLimit { bytes } => write!(f, "over the limit ({bytes} bytes)"),
        }
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
        f.write_str(match self {
            Self::AnswerLost => "answer lost after the server answered",
            Self::RequestLost => "request lost before the server",
            Self::AnswerLate => "answer held past the client's timeout",
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
            None => f.write_str("nothing"),
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
        match self {
            Self::Connect(reason) => write!(f, "could not connect: {reason}"),
            Self::Timeout(bound) => write!(f, "no answer within {}", Seconds(*bound)),
            Self::Closed => f.write_str("the connection closed before an answer"),
            Self::Malformed(excerpt) => write!(f, "the answer is not HTTP/1.1: {excerpt}"),
        }
    }
}

impl std::error::Error for NoAnswer {}

/// Declares [`Said`] from one table: each message's key (its variant), its
/// arguments, and its English text, which names them as a Fluent message would.
macro_rules! messages {
    ($( $(#[$doc:meta])* $variant:ident $({ $($arg:ident: $ty:ty),* $(,)? })? => $text:literal; )*) => {
        /// A sentence of a report, by key, with its facts.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "key", content = "args", rename_all = "kebab-case")]
        pub enum Said {
            $( $(#[$doc])* $variant $({ $($arg: $ty),* })?, )*
        }

        impl Said {
            /// The sentence in English.
            #[allow(unused_variables)]
            pub fn english(&self) -> String {
                match self {
                    $( Self::$variant $({ $($arg),* })? => format!($text), )*
                }
            }
        }
    };
}

messages! {
    // The run.
    SkippedOnRequest => "skipped on request (--skip)";
    StuckBurstDeadlock => "suspected pool deadlock: the burst left requests unanswered";
    SkippedAfterStuckBurst =>
        "the burst left requests unanswered (see hang): later answers would only show the stuck server";
    Effects { created: i64 } => "effects: {created} created";
    EffectsExpected { created: i64, expected: i64 } => "effects: {created} created (expected {expected})";
    EffectsMismatch { created: i64, expected: i64 } => "{created} effects where {expected} were expected";
    NoRetryAfter { tally: Tally } =>
        "answers that ask for a retry came without Retry-After ({tally}): a client cannot tell when to come back";
    NotAnsweredWithin { bound: Seconds } => "no answer within {bound}";

    // One answer, on one line.
    Answered { status: u16, media_type: String, body: String } => "{status} {media_type} {body}";
    NotAnswered { why: NoAnswer } => "no answer: {why}";
    FirstAnswer { answer: Box<Said> } => "first: {answer}";
    RetryAnswer { answer: Box<Said> } => "retry: {answer}";
    OtherBodyAnswer { answer: Box<Said> } => "other body: {answer}";
    KeyAnswer { key: String, answer: Box<Said> } => "key {key}: {answer}";
    RewrittenAnswer { body: String, answer: Box<Said> } => "as {body:?}: {answer}";
    CaseAnswer { case: Case, answer: Box<Said> } => "{case}: {answer}";

    // burst
    BurstSent { size: usize, key: String, tally: Tally, ms: u128 } =>
        "{size} requests, key {key}, heads first then every body at once: {tally} in {ms} ms";
    BurstSentAcross { size: usize, key: String, instances: usize, tally: Tally, ms: u128 } =>
        "{size} requests, key {key}, heads first then every body at once, spread across {instances} instances: {tally} in {ms} ms";
    BurstUnanswered { answered: usize, size: usize, bound: Seconds, unanswered: usize } =>
        "{answered} of {size} answered within {bound}; {unanswered} unanswered";
    BurstLeftUnanswered { size: usize, answered: usize, bound: Seconds, unanswered: usize } =>
        "burst of {size}, one key: {answered} of {size} answered within {bound}; {unanswered} unanswered";
    BurstDeadlock { unanswered: usize, size: usize } =>
        "{unanswered} of {size} requests got no answer: suspected pool deadlock";
    InFlightRetried { count: usize, tally: Tally } =>
        "{count} answers of 409 (in flight) retried with the same key: then {tally}";
    NoFinalAnswer => "some requests never got a final answer (still 409, or none)";
    /// The first ids, "…" last when there were more.
    Ids { ids: List<String> } => "ids: {ids}";
    BodiesIdentical => "bodies: identical, byte for byte";
    BodiesSameJson => "bodies: the same JSON, not the same bytes (keys reordered or spaced)";
    BodiesDifferent => "bodies: different";
    ManyIds { ids: usize } => "{ids} different ids for one key: {ids} effects";
    AnswersDiffer => "the answers to one key differ";
    NoSuccess { status: u16 } => "every request was answered {status}, not a success";
    BurstPassed { size: usize, status: u16 } => "{size} × {status}, one id, the same body";
    InFlightWithoutRetryAfter => "but a 409 in flight came without Retry-After";

    // replay
    NoAnswerToARequest => "a request got no answer";
    ReplayMarked { header: String, value: String } => "the retry carries {header}: {value}";
    ReplayNotMarked => "no header marks the retry as a replay (optional: the draft defines none)";
    RetryGotAnotherId => "the retry got another answer, with another id";
    RetryGotAnother => "the retry got another answer";
    ReplayedByteForByte { status: u16 } => "the retry got the same {status} and body, byte for byte";
    ReplayedSameJson { status: u16 } =>
        "the retry got the same {status} and body, the same JSON, not the same bytes";

    // different-body
    SecondNotAnswered => "the second request got no answer";
    Refused422 => "refused with 422, as the IETF draft says";
    RefusedNot422 { status: u16 } => "refused with {status}; the IETF draft answers a reused key with 422";
    AcceptedOtherBody { status: u16 } =>
        "accepted with {status}: either a second effect, or the first answer passed off as this one";
    AnsweredError { status: u16 } => "answered {status}: an error, not a refusal";

    // concurrent-body
    PairSent { ms: u128 } =>
        "both requests sent but their bodies' last byte, then the first's and at once the second's: answered in {ms} ms";
    PairBodyAnswer { answer: Box<Said> } => "the body: {answer}";
    PairOtherBodyAnswer { answer: Box<Said> } => "another body, same key: {answer}";
    PairRetriedAfter409 { count: usize, answer: Box<Said> } =>
        "the refused one, retried {count} times after its 409: {answer}";
    PairRefused { status: u16 } =>
        "another body while the first was in flight: refused with {status}, one effect";
    PairConflictThen { then: u16 } =>
        "another body while the first was in flight: 409, then {then} once the first had finished";
    PairRefusedOther { status: u16 } =>
        "another body while the first was in flight: refused with {status}; the draft answers 422 (another payload) or 409 (in flight)";
    PairBothAccepted => "both bodies accepted with two ids: two effects for one key";
    PairPassedOff =>
        "both bodies accepted with one id: the other body was told the first's payment was its own";
    PairAcceptedAfterConflict { status: u16 } =>
        "409 while the first was in flight, then accepted with {status} when retried with its other body";
    PairNoneAccepted => "neither request was accepted: the first of a new key should be";

    // distinct-keys
    TwoKeysTwoIds => "two keys, two ids";
    TwoKeysOneId => "two keys got the same id: the server keys on the body, not the key";
    NewKeyNotCreated => "a new key was not answered with a created resource";

    // rewritten-body
    NothingToReorder => "the body is not a JSON object of two fields or more: nothing to reorder";
    RewrittenReplayed => "replayed: the server compares requests, not bytes";
    RewrittenRefused { status: u16 } => "refused with {status}: treats a reordered body as another request";
    RewrittenAccepted => "accepted as a new request: a second effect";
    AnsweredStatus { status: u16 } => "answered {status}";

    // bad-keys, bad-bodies
    NotRefused { cases: List<Case> } => "not refused with a 4xx: {cases}";
    NotAProblem { cases: List<Case> } => "refused, but not as application/problem+json: {cases}";
    BadKeysRefused => "missing, empty and too long keys: each refused with a 4xx problem";
    BodiesAccepted { cases: List<Case> } =>
        "accepted: {cases} (no limit, or no validation: hygiene, not idempotency)";
    NeitherAcceptedNorRefused { cases: List<Case> } => "neither accepted nor refused with a 4xx: {cases}";
    BadBodiesRefused => "a body that is not JSON and one too large: each refused with a 4xx problem";

    // lost-answer
    LostExchange { fault: Fault, client: ClientSaw, server: ServerSaw, retry: Box<Said> } =>
        "{fault}: client saw {client}; the server had answered {server}; retry: {retry}";
    LostRetryUnanswered { fault: Fault } => "{fault}: the retry got no answer";
    LostRetryGot { fault: Fault, status: u16 } => "{fault}: the retry got {status}";
    LostRetryDiffers { fault: Fault } => "{fault}: the retry did not get the lost answer";
    LostAnswersReplayed => "each retry with the same key got the answer the client missed";

    // hang
    HangBurst { size: usize, tally: Tally, ms: u128 } => "{size} requests, one key: {tally} in {ms} ms";
    HangUnanswered { answered: usize, size: usize, bound: Seconds } =>
        "{answered} of {size} answered within {bound}";
    HangDeadlock { answered: usize, size: usize, bound: Seconds } =>
        "suspected pool deadlock: {answered} of {size} answered within {bound}";
    HangGaveUp { errors: usize } => "every request answered, but {errors} with a 5xx: the server gave up on them";
    HangNoRetryAfter => "every request answered, but some 409 or 5xx without Retry-After";
    HangAnswered => "every request of every burst answered";
}

impl Display for Said {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english())
    }
}

/// Several reasons, as one line.
pub fn joined(said: &[Said]) -> String {
    said.iter()
        .map(Said::english)
        .collect::<Vec<_>>()
        .join("; ")
}

impl CheckId {
    /// What the check asks, in a few words.
    pub fn title(self) -> &'static str {
        title(self)
    }
}

/// What a check asks, in a few words.
pub fn title(id: CheckId) -> &'static str {
    match id {
        CheckId::Burst => "concurrent requests, one key: one effect, one answer",
        CheckId::Replay => "a later retry replays the answer",
        CheckId::DifferentBody => "same key, another body: refused",
        CheckId::ConcurrentBody => "same key, another body, while the first is in flight: refused",
        CheckId::DistinctKeys => "two keys, same body: two effects",
        CheckId::RewrittenBody => "same request written differently: replayed",
        CheckId::BadKeys => "missing, empty, too long key: refused",
        CheckId::BadBodies => "not JSON, over the size limit: no effect unless accepted",
        CheckId::LostAnswer => "answer lost, request lost, answer late: retry is safe",
        CheckId::Hang => "bursts larger than a pool: all answered",
    }
}

/// A verdict, as the table writes it.
pub fn verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::Warn => "warn",
        Verdict::Fail => "fail",
        Verdict::Skipped => "skipped",
    }
}

/// The table's column headings: check, verdict, why.
pub const TABLE_HEADINGS: [&str; 3] = ["check", "verdict", "why"];

/// The profile table's column headings.
pub const PROFILE_HEADINGS: [&str; 2] = ["where the draft leaves it open", "what this API does"];

/// The profile's heading line, over its table.
pub const PROFILE_TITLE: &str = "What the API chose where the IETF draft leaves it open:";

/// The summary line under the table.
pub fn summary(
    counts: [usize; 4],
    elapsed: Duration,
    counted_effects: bool,
    warnings_fail: bool,
) -> String {
    let [pass, warn, fail, skipped] = counts;
    let effects = if counted_effects {
        "effects counted in the database"
    } else {
        "effects not counted (pass --database-url and --count-sql to count them)"
    };
    let outcome = if warnings_fail && warn > 0 {
        " (--fail-on-warn: the warnings fail the run)"
    } else {
        ""
    };
    format!(
        "{pass} passed, {warn} warned, {fail} failed, {skipped} skipped in {:.1} s; {effects}{outcome}",
        elapsed.as_secs_f64()
    )
}

/// A profile row's question.
pub mod profile {
    use super::*;

    pub const IN_FLIGHT: &str = "a duplicate while the first is in flight";
    pub const REPLAY_MARKER: &str = "a replayed answer is marked";
    pub const CONCURRENT_OTHER_BODY: &str = "another body while the first is in flight";
    pub const KEY_LIFETIME: &str = "how long a key lives, advertised";

    /// Why a fact could not be seen.
    fn not_observed(check: CheckId) -> String {
        format!("not observed ({check} did not pass)")
    }

    pub fn in_flight(fact: &InFlight) -> String {
        match fact {
            InFlight::Waits => "waits for the first, then gets its answer (no 409)".to_owned(),
            InFlight::Conflict {
                retry_after: Some(after),
            } => {
                format!("409 Conflict, Retry-After: {after}")
            }
            InFlight::Conflict { retry_after: None } => {
                "409 Conflict, without Retry-After".to_owned()
            }
            InFlight::NotObserved => not_observed(CheckId::Burst),
        }
    }

    pub fn replay_marker(fact: &ReplayMarker) -> String {
        match fact {
            ReplayMarker::Marked { header, value } => format!("{header}: {value}"),
            ReplayMarker::NotMarked => "not marked (no header tells a replay)".to_owned(),
            ReplayMarker::NotObserved => not_observed(CheckId::Replay),
        }
    }

    pub fn concurrent_other_body(fact: &ConcurrentOtherBody) -> String {
        match fact {
            ConcurrentOtherBody::Unprocessable => {
                "422, the draft's answer to another payload".to_owned()
            }
            ConcurrentOtherBody::Conflict { then } => {
                format!("409, the draft's answer to a request in flight; then {then}")
            }
            ConcurrentOtherBody::OtherRefusal { status } => format!("refused with {status}"),
            ConcurrentOtherBody::NotObserved => not_observed(CheckId::ConcurrentBody),
        }
    }

    pub fn key_lifetime(fact: &KeyLifetime) -> String {
        match fact {
            KeyLifetime::Advertised { header, value } => format!("{header}: {value}"),
            KeyLifetime::NotAdvertised => {
                "not in a header (the draft asks for it in the documentation)".to_owned()
            }
        }
    }
}

/// The JUnit report's words.
pub mod junit {
    /// The suite's name.
    pub const SUITE: &str = "idempotency-probe";
    /// The one test case of a run that could not run.
    pub const COULD_NOT_RUN: &str = "the probe could not run";
    /// A warning's line in the test case's output.
    pub fn warned(why: &str) -> String {
        format!("warn: {why}")
    }
}
