//! What the API chose where the IETF draft (draft-ietf-httpapi-idempotency-key-header)
//! leaves it open: facts about the API, read off the answers the checks got, never
//! a verdict. Each is open in the draft's issue tracker
//! (github.com/ietf-wg-httpapi/idempotency):
//!
//! - a duplicate that arrives while the first is in flight: the draft answers 409
//!   (sections 2.6 and 2.7); waiting for the first and replaying its answer is
//!   what issue #42 proposes as the alternative;
//! - whether a replayed answer says so: the draft defines no header; issue #46
//!   asks for one (Stripe's `Idempotent-Replayed: true`);
//! - another body while the first is in flight: 422 (another payload) or 409 (in
//!   flight), both in section 2.7; which comes first is issue #42's;
//! - how long a key lives: section 2.3 asks for the policy in the documentation;
//!   issue #35 proposes a response header, which no standard names yet.
//!
//! Issue #51 gathers them: the answers a client gets are only partly standardised.
//! The words for each fact are in [`crate::words::profile`].

use serde::Serialize;

use crate::checks::CheckId;
use crate::{CheckResult, Role, Seen, Verdict};

/// The four facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    pub in_flight: InFlight,
    pub replay_marker: ReplayMarker,
    pub concurrent_other_body: ConcurrentOtherBody,
    pub key_lifetime: KeyLifetime,
}

/// What a duplicate with the same body got while the first was in flight (the
/// burst's answers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum InFlight {
    /// No 409 in the burst: the duplicates waited and got the first's answer.
    Waits,
    /// 409, with the first one's `Retry-After` if it had one.
    Conflict { retry_after: Option<String> },
    /// The burst did not pass: its answers say nothing reliable.
    NotObserved,
}

/// Whether a replayed answer is marked, and by which header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum ReplayMarker {
    Marked { header: String, value: String },
    NotMarked,
    NotObserved,
}

/// What the request with another body got while the first was in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum ConcurrentOtherBody {
    /// 422 at once.
    Unprocessable,
    /// 409 at once, and `then` when retried after the first had finished.
    Conflict {
        then: u16,
    },
    /// Another 4xx.
    OtherRefusal {
        status: u16,
    },
    NotObserved,
}

/// Whether an answer says how long its key lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum KeyLifetime {
    Advertised { header: String, value: String },
    NotAdvertised,
}

/// The words a header name has when it says how long a key lives (with one that
/// names idempotency): `Idempotency-Key-Expires`, `Idempotency-TTL`, ...
const LIFETIME_WORDS: [&str; 6] = ["expir", "ttl", "lifetime", "retention", "valid", "max-age"];

impl Profile {
    /// The profile the checks' answers show.
    pub fn of(checks: &[CheckResult]) -> Self {
        Self {
            in_flight: in_flight(checks),
            replay_marker: replay_marker(checks),
            concurrent_other_body: concurrent_other_body(checks),
            key_lifetime: key_lifetime(checks),
        }
    }
}

/// The answers of a check that passed or warned (what a failed check saw is not
/// the API's choice, but its bug).
fn judged(checks: &[CheckResult], id: CheckId) -> Option<&[Seen]> {
    checks
        .iter()
        .find(|c| c.id == id && matches!(c.verdict, Verdict::Pass | Verdict::Warn))
        .map(|c| c.answers.as_slice())
}

fn in_flight(checks: &[CheckResult]) -> InFlight {
    let Some(answers) = judged(checks, CheckId::Burst) else {
        return InFlight::NotObserved;
    };
    let conflict = answers
        .iter()
        .filter_map(|s| s.answer.as_ref().ok())
        .find(|a| a.status == 409);
    match conflict {
        Some(a) => InFlight::Conflict {
            retry_after: a.header("retry-after").map(str::to_owned),
        },
        None => InFlight::Waits,
    }
}

fn replay_marker(checks: &[CheckResult]) -> ReplayMarker {
    let Some(answers) = judged(checks, CheckId::Replay) else {
        return ReplayMarker::NotObserved;
    };
    let headers = |role| {
        answers
            .iter()
            .find(|s| s.role == role)
            .and_then(|s| s.answer.as_ref().ok())
            .map(|a| a.headers.as_slice())
            .unwrap_or_default()
    };
    match crate::checks::replay_marker(headers(Role::First), headers(Role::Retry)) {
        Some((header, value)) => ReplayMarker::Marked {
            header: header.to_owned(),
            value: value.to_owned(),
        },
        None => ReplayMarker::NotMarked,
    }
}

fn concurrent_other_body(checks: &[CheckResult]) -> ConcurrentOtherBody {
    let Some(answers) = judged(checks, CheckId::ConcurrentBody) else {
        return ConcurrentOtherBody::NotObserved;
    };
    let refused = answers
        .iter()
        .filter(|s| matches!(s.role, Role::PairBody | Role::PairOtherBody))
        .filter_map(Seen::status)
        .find(|status| !(200..300).contains(status));
    let then = answers
        .iter()
        .filter(|s| s.role == Role::PairRetry)
        .find_map(Seen::status);
    match (refused, then) {
        (Some(422), _) => ConcurrentOtherBody::Unprocessable,
        (Some(409), Some(then)) => ConcurrentOtherBody::Conflict { then },
        (Some(status), _) => ConcurrentOtherBody::OtherRefusal { status },
        (None, _) => ConcurrentOtherBody::NotObserved,
    }
}

fn key_lifetime(checks: &[CheckResult]) -> KeyLifetime {
    checks
        .iter()
        .flat_map(|c| &c.answers)
        .filter_map(|s| s.answer.as_ref().ok())
        .flat_map(|a| &a.headers)
        .find(|(name, _)| {
            let name = name.to_ascii_lowercase();
            name.contains("idempot") && LIFETIME_WORDS.iter().any(|w| name.contains(w))
        })
        .map_or(KeyLifetime::NotAdvertised, |(header, value)| {
            KeyLifetime::Advertised {
                header: header.clone(),
                value: value.clone(),
            }
        })
}
