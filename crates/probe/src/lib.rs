//! Checks an HTTP API's idempotency from the outside, whatever its language.
//!
//! Points at an endpoint that creates something (by default `POST /payments` with
//! `{"orderId": N, "amount": 100}` and an `Idempotency-Key`) and runs bounded
//! checks, each with a verdict and its evidence: a burst of requests with one key
//! released together, a replay, the same key with another body, two keys, the same
//! request written differently, bad keys, bad bodies, answers lost by the network
//! (through [`fault_proxy`]), and bursts larger than a typical pool.
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
mod options;
mod report;

use std::time::Duration;

use serde::Serialize;

pub use checks::{CHECKS, Check, CheckId, Expected};
pub use http::{Answer, NoAnswer, Target};
pub use options::{Options, ParsedUrl, defaults, parse_url};
pub use report::{markdown, table};

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
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Warn => "warn",
            Self::Fail => "fail",
            Self::Skipped => "skipped",
        }
    }
}

/// One check's verdict, why, and what was seen.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    pub id: CheckId,
    /// What the check asks, in a few words.
    pub title: &'static str,
    pub verdict: Verdict,
    pub why: String,
    /// Statuses, bodies, ids, counts and timings, one fact a line.
    pub evidence: Vec<String>,
    #[serde(serialize_with = "as_millis")]
    pub elapsed: Duration,
}

/// Everything a probe run found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `METHOD URL`.
    pub target: String,
    /// Whether effects were counted (a database URL and a counting query were given).
    pub counted_effects: bool,
    pub checks: Vec<CheckResult>,
    #[serde(serialize_with = "as_millis")]
    pub elapsed: Duration,
}

impl Report {
    /// True when no check failed (warnings and skipped checks do not fail a run).
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.verdict != Verdict::Fail)
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

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
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
}

/// Runs every check of `options` against its URL, one after the other.
pub async fn run(options: &Options) -> Result<Report, ProbeError> {
    checks::run(options).await
}
