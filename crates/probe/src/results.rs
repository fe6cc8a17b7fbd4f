//! What a probe run found, as data: each check's verdict, reasons, deciding
//! answers and effects ([`CheckResult`]), and the whole run ([`Report`]). The
//! table and Markdown are `report.rs`'s, the JSON and JUnit reports
//! [`crate::json`]'s and [`crate::junit`]'s.

use std::time::Duration;

use serde::Serialize;

use crate::catalogue::CheckId;
use crate::http::NoAnswer;
use crate::outcome::{Outcome, Role, Verdict};
use crate::profile::Profile;
use crate::words::{self, Said};

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
    /// Cut to `checks::SHOWN` characters, on one line.
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
    /// The burst's timeline from the client's side (the burst check's, once
    /// its requests were sent): when each went and came back, and its status.
    pub timeline: Option<timeline::Trace>,
    pub elapsed: Duration,
}

impl CheckResult {
    /// What the check asks, in a few words.
    pub fn title(&self) -> String {
        self.id.title()
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
