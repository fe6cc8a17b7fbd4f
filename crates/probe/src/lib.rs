//! Checks an HTTP API's idempotency from the outside, whatever its language.
//!
//! Points at an endpoint that creates something (by default `POST /payments` with
//! `{"orderId": N, "amount": 100}` and an `Idempotency-Key`) and runs bounded
//! checks, each with a verdict and its evidence: a burst of requests with one key
//! released together, a replay, the same key with another body (after the first,
//! and while the first is in flight), two keys, the same request written
//! differently, bad keys, bad bodies, answers lost by the network (through
//! [`fault_proxy`]), and bursts larger than a typical pool. From the same answers
//! it reads the API's [`Profile`]: what it chose where the IETF draft leaves it
//! open (facts, not verdicts).
//!
//! The report is a table or Markdown for people ([`table`], [`markdown`]), JSON
//! ([`json`], versioned, its schema in `report.schema.json`) and JUnit XML
//! ([`junit`]) for CI. Every word of them is in [`words`].
//!
//! With a database URL and a counting query, every check also counts the effects
//! (rows created), which is the only proof that a retry did not pay twice.
//!
//! Given several URLs (instances of one API over one database), it spreads each
//! burst across them and sends each retry to another instance than its first
//! request: a key guarded in one process's memory is caught there.
//!
//! `idempotency-probe URL...` and `workbook probe URL...` are the command line
//! ([`cli`]); [`run`] is what they call.

mod checks;
pub mod cli;
mod effects;
mod http;
pub mod json;
pub mod junit;
mod options;
pub mod profile;
mod report;
pub mod words;

use std::time::Duration;

use serde::Serialize;

pub use checks::{CHECKS, Check, CheckId, Expected};
pub use http::{Answer, NoAnswer, Target};
pub use options::{Options, ParsedUrl, defaults, parse_url};
pub use profile::Profile;
pub use report::{markdown, table};
pub use words::Said;

/// What a check concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    /// Not a proof of a bug, but not what the IETF draft or the workbook expects.
    Warn,
    Fail,
    /// Not run: why is in the check's `why`.
    Skipped,
}

impl Verdict {
    /// The verdict's code, as the JSON report writes it (its words are
    /// [`words::verdict`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Warn => "warn",
            Self::Fail => "fail",
            Self::Skipped => "skipped",
        }
    }
}

/// What a whole run concluded: the worst verdict of its checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every check passed or was skipped.
    Pass,
    /// No check failed, and at least one warned.
    Warn,
    /// At least one check failed.
    Fail,
}

/// Why a request was sent, as the JSON report's answers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// One of a burst with one key.
    Burst,
    /// A request answered 409 (in flight), sent again with the same key.
    InFlightRetry,
    /// The first request with a key.
    First,
    /// A later retry with the same key and body.
    Retry,
    /// The same key with another body, after the first finished.
    OtherBody,
    /// The first of two in flight together, with the body.
    PairBody,
    /// The second of two in flight together: the same key, another body.
    PairOtherBody,
    /// The refused one of the pair, sent again after its 409.
    PairRetry,
    /// Two keys, one body: the second key.
    SecondKey,
    /// The same request, its fields reordered and respaced.
    Rewritten,
    KeyMissing,
    KeyEmpty,
    KeyTooLong,
    NotJson,
    OverTheLimit,
    /// The retry after an answer lost after the server answered.
    AnswerLostRetry,
    /// The retry after a request lost before the server.
    RequestLostRetry,
    /// The retry after an answer held past the client's patience.
    AnswerLateRetry,
    /// One of the hang check's bursts.
    Hang,
}

/// An answer that mattered to a check, as the report keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub role: Role,
    pub answer: Result<SeenAnswer, NoAnswer>,
}

/// The facts of one answer: its status, its media type, the start of its body,
/// the headers that matter to idempotency, and how long it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenAnswer {
    pub status: u16,
    pub media_type: String,
    /// Cut to [`checks::SHOWN`] characters, on one line.
    pub body: String,
    /// `retry-after`, and every header whose name mentions idempotency or a replay
    /// (lowercase names).
    pub headers: Vec<(String, String)>,
    pub elapsed: Duration,
}

impl SeenAnswer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

impl Seen {
    pub fn status(&self) -> Option<u16> {
        self.answer.as_ref().ok().map(|a| a.status)
    }
}

/// The effects a check created, when they were counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EffectCount {
    pub created: i64,
    /// `None` when the check does not judge them (hang).
    pub expected: Option<i64>,
}

/// One check's verdict, why, and what was seen.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub id: CheckId,
    pub verdict: Verdict,
    /// One reason or more, in order.
    pub why: Vec<Said>,
    /// Statuses, bodies, ids, counts and timings, one fact a line.
    pub evidence: Vec<Said>,
    /// The answers that decided it.
    pub answers: Vec<Seen>,
    pub effects: Option<EffectCount>,
    pub elapsed: Duration,
}

impl CheckResult {
    /// What the check asks, in a few words.
    pub fn title(&self) -> &'static str {
        words::title(self.id)
    }

    /// Why, as one line.
    pub fn why_text(&self) -> String {
        words::joined(&self.why)
    }

    /// Whether `said` is one of the reasons.
    pub fn says(&self, said: impl Fn(&Said) -> bool) -> bool {
        self.why.iter().any(said)
    }
}

/// Everything a probe run found.
#[derive(Debug, Clone)]
pub struct Report {
    pub method: String,
    /// One per instance, as given.
    pub urls: Vec<String>,
    /// The route, appended to each URL.
    pub path: String,
    /// Whether effects were counted (a database URL and a counting query were given).
    pub counted_effects: bool,
    pub checks: Vec<CheckResult>,
    /// What the API chose where the draft leaves it open.
    pub profile: Profile,
    pub elapsed: Duration,
}

impl Report {
    /// `METHOD URL/path[, URL/path...]`.
    pub fn target(&self) -> String {
        let routes: Vec<String> = self
            .urls
            .iter()
            .map(|url| format!("{}{}", url.trim_end_matches('/'), self.path))
            .collect();
        format!("{} {}", self.method, routes.join(", "))
    }

    /// True when no check failed (warnings and skipped checks do not fail a run).
    pub fn passed(&self) -> bool {
        self.outcome() != Outcome::Fail
    }

    /// The worst verdict: fail, then warn, then pass.
    pub fn outcome(&self) -> Outcome {
        if self.checks.iter().any(|c| c.verdict == Verdict::Fail) {
            Outcome::Fail
        } else if self.checks.iter().any(|c| c.verdict == Verdict::Warn) {
            Outcome::Warn
        } else {
            Outcome::Pass
        }
    }

    /// How many checks passed, warned, failed and were skipped.
    pub fn counts(&self) -> [usize; 4] {
        let count = |v| self.checks.iter().filter(|c| c.verdict == v).count();
        [
            count(Verdict::Pass),
            count(Verdict::Warn),
            count(Verdict::Fail),
            count(Verdict::Skipped),
        ]
    }

    /// The checks with this verdict.
    pub fn with_verdict(&self, verdict: Verdict) -> Vec<CheckId> {
        self.checks
            .iter()
            .filter(|c| c.verdict == verdict)
            .map(|c| c.id)
            .collect()
    }

    /// The result of one check, if it is in the report.
    pub fn check(&self, id: CheckId) -> Option<&CheckResult> {
        self.checks.iter().find(|c| c.id == id)
    }
}

pub(crate) fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What stops a probe before it has anything to report: each is one line that
/// says what to change.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{0}")]
    BadUrl(String),
    #[error(
        "{host} resolves to {addr}, which is not this machine: the probe sends real requests that \
         create real resources; pass --allow-remote if that is what you want"
    )]
    Remote { host: String, addr: String },
    #[error("cannot resolve {host}: {reason}")]
    Resolve { host: String, reason: String },
    #[error("nothing answers at {addr} ({reason}): is the server running, and on this port?")]
    Unreachable { addr: String, reason: String },
    #[error(
        "the server at {target} accepted the connections but answered none of {sent} requests \
         within {bound:?}: is it stuck, or is it an HTTP server at all?"
    )]
    NoAnswer {
        target: String,
        sent: usize,
        bound: Duration,
    },
    #[error(
        "the server at {target} answered {status} with a body that is not JSON ({media_type:?}: \
         {excerpt:?}): the probe needs a JSON answer with the created resource's id"
    )]
    NotJson {
        target: String,
        status: u16,
        media_type: String,
        excerpt: String,
    },
    #[error(
        "the server at {target} refused the probe's first request with {status} ({excerpt:?}): \
         set --path, --body or --header to what the route expects"
    )]
    Refused {
        target: String,
        status: u16,
        excerpt: String,
    },
    #[error(
        "the server at {target} answered 2xx without an id at the JSON pointer {pointer:?} \
         (body: {excerpt:?}): set --id-pointer"
    )]
    NoId {
        target: String,
        pointer: String,
        excerpt: String,
    },
    #[error("{0}")]
    Options(String),
    #[error("the effect count failed ({0}): check --database-url and --count-sql")]
    Count(String),
    #[error(
        "this probe was built without PostgreSQL, so it cannot count effects: install it with \
         `cargo install --locked --path crates/probe --features postgres`, or leave out \
         --database-url and --count-sql"
    )]
    NoCounting,
    #[error("cannot write the {format} report to {path}: {reason}")]
    Write {
        format: &'static str,
        path: String,
        reason: String,
    },
}

impl ProbeError {
    /// The error's code, as the JSON and JUnit reports name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::BadUrl(_) => "bad-url",
            Self::Remote { .. } => "remote",
            Self::Resolve { .. } => "resolve",
            Self::Unreachable { .. } => "unreachable",
            Self::NoAnswer { .. } => "no-answer",
            Self::NotJson { .. } => "not-json",
            Self::Refused { .. } => "refused",
            Self::NoId { .. } => "no-id",
            Self::Options(_) => "options",
            Self::Count(_) => "count",
            Self::NoCounting => "no-counting",
            Self::Write { .. } => "write",
        }
    }
}

/// Runs every check of `options` against its URL, one after the other.
pub async fn run(options: &Options) -> Result<Report, ProbeError> {
    checks::run(options).await
}
