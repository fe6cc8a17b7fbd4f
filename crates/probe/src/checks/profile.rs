//! The API's [`Profile`], read off the answers the checks got: what a passing or
//! warning check saw is the API's choice (what a failing one saw is its bug).

use crate::catalogue::CheckId;
use crate::outcome::{Role, Verdict};
use crate::profile::{ConcurrentOtherBody, InFlight, KeyLifetime, Profile, ReplayMarker};
use crate::results::{CheckResult, Seen};

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
    match super::replays::replay_marker(headers(Role::First), headers(Role::Retry)) {
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
