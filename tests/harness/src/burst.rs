//! Firing concurrent requests, and summarising what they did.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use l10n::t;
use payment_model::{PaymentError, Reply};
use serde::Serialize;
use timeline::trace::{LOCK_TIMEOUT, NO_ANSWER, POOL_TIMED_OUT, UNANSWERED, UNIQUE_VIOLATION};
use tokio::sync::Barrier;

/// Every burst ends within this, or the test fails saying so (a hang is a bug).
pub const BURST_BOUND: Duration = Duration::from_secs(20);

/// Starts `n` calls of `call(i)` together and returns every result, in order of `i`.
///
/// Each call runs in its own task and waits at a barrier until all `n` tasks are
/// there, so the calls really overlap. The whole burst is bounded by [`BURST_BOUND`].
pub async fn fire_concurrently<F, Fut, T>(n: usize, call: F) -> Vec<T>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    // Recorded under the runner: its trace is written when this goes, also while
    // a panic of a request or of the bound unwinds through here.
    let burst = crate::trace::Burst::start();
    let start = Arc::new(Barrier::new(n));
    let mut tasks: Vec<(usize, tokio::task::JoinHandle<T>)> = (0..n)
        .map(|i| {
            let start = start.clone();
            let call = burst.request(i + 1, call(i), answer_of);
            let task = tokio::spawn(async move {
                start.wait().await;
                call.await
            });
            (i + 1, task)
        })
        .collect();
    let all = burst.join_all(&mut tasks);
    within(
        BURST_BOUND,
        &t!(crate::messages::MESSAGES, "burst-what", count = n),
        all,
    )
    .await
}

/// Awaits `future`, or fails the test after `bound` with a message naming `what`.
pub async fn within<T>(bound: Duration, what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(bound, future).await {
        Ok(value) => value,
        Err(_) => {
            crate::report(&crate::Condition::BoundExceeded {
                what: what.to_owned(),
                seconds: bound.as_secs_f64(),
            });
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "bound-exceeded",
                    what = what,
                    seconds = crate::messages::MESSAGES
                        .current()
                        .decimal(bound.as_secs_f64(), 1)
                )
            )
        }
    }
}

/// What a call ended with, as the outcome records it: a reply's kind, an HTTP
/// status, or `-` for a value the harness does not read.
pub(crate) fn answer_of<T: 'static>(out: &T) -> String {
    let any = out as &dyn Any;
    if let Some(result) = any.downcast_ref::<Result<Reply, PaymentError>>() {
        return ReplyKind::of(result).to_string();
    }
    if let Some(answer) = any.downcast_ref::<crate::http::Answer>() {
        return answer.status.to_string();
    }
    if let Some(result) = any.downcast_ref::<Result<crate::http::Answer, crate::http::CallError>>()
    {
        return match result {
            Ok(answer) => answer.status.to_string(),
            Err(crate::http::CallError::TimedOut(_)) => UNANSWERED.to_owned(),
            Err(crate::http::CallError::NoAnswer(_)) => NO_ANSWER.to_owned(),
            Err(crate::http::CallError::NotJson { status, .. }) => status.to_string(),
        };
    }
    if let Some(reply) = any.downcast_ref::<Reply>() {
        return reply.status.to_string();
    }
    "-".to_owned()
}

/// What a call of `create_payment` ended with: recorded by its `Display` (its
/// [`key`](Self::key), what stages.toml's answer keys name, the same in every
/// language), said in the learner's words by [`said`](Self::said).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum ReplyKind {
    Status(u16),
    PoolTimedOut,
    UniqueViolation,
    LockTimeout,
    OtherError(String),
}

impl ReplyKind {
    pub fn of(result: &Result<Reply, PaymentError>) -> Self {
        match result {
            Ok(reply) => Self::Status(reply.status),
            Err(e) if e.is_pool_timeout() => Self::PoolTimedOut,
            Err(e) => match e.sqlstate().as_deref() {
                Some("23505") => Self::UniqueViolation,
                Some("55P03") => Self::LockTimeout,
                _ => Self::OtherError(e.to_string()),
            },
        }
    }
}

impl ReplyKind {
    /// How the outcome records it, the same in every language: `201`,
    /// `error: pool timed out`, `error: unique violation (23505)`...
    pub fn key(&self) -> String {
        match self {
            Self::Status(status) => status.to_string(),
            Self::PoolTimedOut => POOL_TIMED_OUT.to_owned(),
            Self::UniqueViolation => UNIQUE_VIOLATION.to_owned(),
            Self::LockTimeout => LOCK_TIMEOUT.to_owned(),
            Self::OtherError(e) => format!("{OTHER_ERROR}{e}"),
        }
    }

    /// The kind a [`key`](Self::key) stands for.
    pub fn from_key(key: &str) -> Option<Self> {
        Some(match key {
            POOL_TIMED_OUT => Self::PoolTimedOut,
            UNIQUE_VIOLATION => Self::UniqueViolation,
            LOCK_TIMEOUT => Self::LockTimeout,
            _ => match key.strip_prefix(OTHER_ERROR) {
                Some(e) => Self::OtherError(e.to_owned()),
                None => Self::Status(key.parse().ok()?),
            },
        })
    }
}

const OTHER_ERROR: &str = "error: ";

impl ReplyKind {
    /// The kind in the learner's words ("error: pool timed out", "erro: o pool
    /// estourou o acquire timeout").
    pub fn said(&self) -> String {
        let m = &crate::messages::MESSAGES;
        match self {
            Self::Status(status) => t!(m, "reply-status", status = status.to_string()),
            Self::PoolTimedOut => t!(m, "reply-pool-timed-out"),
            Self::UniqueViolation => t!(m, "reply-unique-violation"),
            Self::LockTimeout => t!(m, "reply-lock-timeout"),
            Self::OtherError(e) => t!(m, "reply-other-error", error = e),
        }
    }
}

/// The kind's [`key`](ReplyKind::key): what the tests record (`unrelated:
/// kind.to_string()`), never translated.
impl fmt::Display for ReplyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// An answer as a failure message shows it: `201 {"amount":100,...}`, or the
/// error a call ended with.
pub trait Shown {
    fn shown(&self) -> String;
}

/// An answer as the tests' messages show it: status, content type, body, and
/// the headers the stages set, when present.
impl Shown for crate::http::Answer {
    fn shown(&self) -> String {
        let mut text = format!("{} {} {}", self.status, self.content_type, self.body);
        for (name, value) in [
            ("Idempotent-Replayed", &self.replayed),
            ("WWW-Authenticate", &self.challenge),
            ("Location", &self.location),
            ("Retry-After", &self.retry_after),
        ] {
            if let Some(value) = value {
                text.push_str(&format!(" ({name}: {value})"));
            }
        }
        text
    }
}

impl Shown for Reply {
    fn shown(&self) -> String {
        format!("{} {}", self.status, self.body)
    }
}

impl Shown for Result<Reply, PaymentError> {
    fn shown(&self) -> String {
        match self {
            Ok(reply) => reply.shown(),
            Err(e) => e.to_string(),
        }
    }
}

/// The facts of a burst: what the tests assert, and what the runner shows beside
/// the learner's predictions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub requests: usize,
    /// Rows in `payments` after the burst.
    pub payments: i64,
    /// How many calls ended each way, e.g. `{"201": 20}`.
    pub replies: BTreeMap<String, usize>,
    /// How many different response bodies the successful calls got.
    pub distinct_bodies: usize,
}

impl Outcome {
    pub fn new(results: &[Result<Reply, PaymentError>], payments: i64) -> Self {
        let mut replies = BTreeMap::new();
        for result in results {
            *replies.entry(ReplyKind::of(result).key()).or_insert(0) += 1;
        }
        let bodies: BTreeSet<String> = results
            .iter()
            .flatten()
            .map(|reply| reply.body.to_string())
            .collect();
        let outcome = Self {
            requests: results.len(),
            payments,
            replies,
            distinct_bodies: bodies.len(),
        };
        let calls = outcome.count(ReplyKind::PoolTimedOut);
        if calls > 0 {
            crate::report(&crate::Condition::PoolTimedOut { calls });
        }
        outcome
    }

    /// How many calls ended as `kind`.
    pub fn count(&self, kind: ReplyKind) -> usize {
        self.replies.get(&kind.key()).copied().unwrap_or(0)
    }

    /// The replies as one line, in the learner's words: "20 × 201" or
    /// "1 × 201, 19 × error: pool timed out".
    pub fn replies_line(&self) -> String {
        let mut parts: Vec<(usize, &String)> = self.replies.iter().map(|(k, n)| (*n, k)).collect();
        parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        parts
            .iter()
            .map(|(n, key)| {
                let kind = ReplyKind::from_key(key).map_or_else(|| (*key).clone(), |k| k.said());
                t!(
                    crate::messages::MESSAGES,
                    "outcome-replies-part",
                    count = n.to_string(),
                    kind = kind
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Records this outcome for the runner under the name of the scenario: its
    /// fields become the metrics `requests`, `payments`, `replies.<kind>` and
    /// `distinct_bodies`. See [`observe`].
    pub fn record(&self, scenario: &str) {
        self.record_with(scenario, serde_json::Value::Null);
    }

    /// Records this outcome with more fields of the same scenario beside it (an
    /// object, e.g. [`second_request`]'s), as one line.
    pub fn record_with(&self, scenario: &str, extra: serde_json::Value) {
        let mut fields = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(fields)) => fields,
            _ => return,
        };
        if let serde_json::Value::Object(extra) = extra {
            fields.extend(extra);
        }
        observe(scenario, &fields);
    }
}

/// Writes what a test saw where the runner reads it: one JSON line
/// `{"scenario": ..., <the fields of what>}` appended to the file named by
/// `WORKBOOK_OBSERVATIONS`, with `"trace": <id>` when the test fired a burst
/// before (its trace, in the same file). Does nothing when that is unset.
///
/// The runner shows these figures beside the learner's predictions, and `just
/// verify` checks the answer keys of `stages.toml` against them.
pub fn observe(scenario: &str, what: &impl Serialize) {
    if std::env::var_os("WORKBOOK_OBSERVATIONS").is_none() {
        return;
    }
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(what) else {
        return;
    };
    let mut line = serde_json::Map::new();
    line.insert("scenario".to_owned(), scenario.into());
    line.extend(fields);
    // The burst this test fired last: its timeline goes with these figures.
    if let Some(trace) = crate::trace::last_trace_id() {
        line.insert(timeline::trace::LINE_KEY.to_owned(), trace.into());
    }
    crate::condition::append_observation(&serde_json::Value::Object(line).to_string());
}

impl Outcome {
    /// The outcome as a table, for a test's output.
    pub fn table(&self) -> String {
        let mut table = Table::new();
        table
            .load_style(UTF8_FULL_CONDENSED)
            .set_header([
                t!(crate::messages::MESSAGES, "outcome-column-requests"),
                t!(crate::messages::MESSAGES, "outcome-column-payments"),
                t!(crate::messages::MESSAGES, "outcome-column-replies"),
                t!(crate::messages::MESSAGES, "outcome-column-distinct-bodies"),
            ])
            .add_row([
                self.requests.to_string(),
                self.payments.to_string(),
                self.replies_line(),
                self.distinct_bodies.to_string(),
            ]);
        table.to_string()
    }
}

/// One line, for failure messages: "20 requests: 1 payment; 20 × 201; 1 distinct body".
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let said = t!(
            crate::messages::MESSAGES,
            "outcome-line",
            requests = self.requests,
            payments = self.payments,
            replies = self.replies_line(),
            bodies = self.distinct_bodies
        );
        f.write_str(&said)
    }
}

/// What a second request with a used key and another body got, in one word:
/// `replayed` (the first answer), `refused` (422) or `paid again`. These are
/// the values stages.toml's answer keys name; the runner shows them in the
/// learner's words ([`observed_in_words`]).
pub fn second_request(first: &Reply, second: &Reply, payments: i64) -> serde_json::Value {
    let second = if second == first {
        "replayed"
    } else if second.status == 422 {
        "refused"
    } else if payments > 1 {
        "paid again"
    } else {
        "other"
    };
    serde_json::json!({ "second": second })
}

/// A value a test records for the runner (`observe`: `"paid again"`,
/// `"replayed"`, a reply's kind...), in the learner's words: `None` when the
/// harness has no words for it (a figure, a SQLSTATE), shown as it is.
pub fn observed_in_words(value: &str) -> Option<String> {
    if let Some(kind) = ReplyKind::from_key(value) {
        return Some(kind.said());
    }
    // "paid again" is `observed-paid-again`, "A's answer" `observed-a-s-answer`.
    let slug: Vec<String> = value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    if slug.is_empty() {
        return None;
    }
    crate::messages::MESSAGES
        .current()
        .try_say(&format!("observed-{}", slug.join("-")))
}
