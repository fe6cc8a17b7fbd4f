//! What a check concluded, what a run concluded, and why each request was sent:
//! the codes the reports are built on (their words are [`crate::words`]).

use serde::Serialize;

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
    /// [`crate::words::verdict`]).
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
