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
//! The words for each fact are in [`crate::words::profile`]; how the facts are read
//! off the answers, in `checks/profile.rs`.

use serde::Serialize;

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
