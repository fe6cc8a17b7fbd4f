//! What stops a probe before it has anything to report.

use std::time::Duration;

/// A mistake in the probe's options or URL, said where it is found
/// (`crate::words::mistake`): in the run's language for the terminal, in English
/// for the reports' `error` and the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mistake {
    pub said: String,
    pub english: String,
}

/// What stops a probe before it has anything to report: each is one line that
/// says what to change.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{}", .0.english)]
    BadUrl(Mistake),
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
        /// The burst's timeline: when each request went and how it ended (the
        /// bound, or a connection closed at once).
        timeline: Box<timeline::Trace>,
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
    #[error("{}", .0.english)]
    Options(Mistake),
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

impl ProbeError {
    /// The timeline of the burst that stopped the probe, when one did.
    pub fn timeline(&self) -> Option<&timeline::Trace> {
        match self {
            Self::NoAnswer { timeline, .. } => Some(timeline),
            _ => None,
        }
    }
}
