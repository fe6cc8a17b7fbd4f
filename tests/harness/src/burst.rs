//! Firing concurrent requests, and summarising what they did.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use payment_model::{PaymentError, Reply};
use serde::Serialize;
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
            let call = burst.request(i + 1, call(i));
            let task = tokio::spawn(async move {
                start.wait().await;
                call.await
            });
            (i + 1, task)
        })
        .collect();
    let all = async {
        let mut results = Vec::with_capacity(n);
        for at in 0..tasks.len() {
            let (done, rest) = tasks.split_at_mut(at + 1);
            let (request, task) = &mut done[at];
            let result = (&mut *task).await;
            let mut rest: Vec<(usize, &mut tokio::task::JoinHandle<T>)> =
                rest.iter_mut().map(|(n, t)| (*n, t)).collect();
            results.push(burst.joined(*request, result, &mut rest).await);
        }
        results
    };
    within(BURST_BOUND, &format!("{n} concurrent calls"), all).await
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
                "{what} did not finish within {:.1} s: something waits forever (a lock, or a pool with no free connection)",
                bound.as_secs_f64()
            )
        }
    }
}

/// What a call of `create_payment` ended with, in a learner's words.
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

impl fmt::Display for ReplyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(status) => write!(f, "{status}"),
            Self::PoolTimedOut => write!(f, "error: pool timed out"),
            Self::UniqueViolation => write!(f, "error: unique violation (23505)"),
            Self::LockTimeout => write!(f, "error: lock timeout (55P03)"),
            Self::OtherError(e) => write!(f, "error: {e}"),
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
            *replies
                .entry(ReplyKind::of(result).to_string())
                .or_insert(0) += 1;
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
        self.replies.get(&kind.to_string()).copied().unwrap_or(0)
    }

    /// The replies as one line: "20 × 201" or "1 × 201, 19 × error: pool timed out".
    pub fn replies_line(&self) -> String {
        let mut parts: Vec<(usize, &String)> = self.replies.iter().map(|(k, n)| (*n, k)).collect();
        parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        parts
            .iter()
            .map(|(n, k)| format!("{n} × {k}"))
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
    let Some(path) = std::env::var_os("WORKBOOK_OBSERVATIONS") else {
        return;
    };
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
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        // One write per line: lines from parallel tests do not interleave.
        let _ = file.write_all(format!("{}\n", serde_json::Value::Object(line)).as_bytes());
    }
}

impl Outcome {
    /// The outcome as a table, for a test's output.
    pub fn table(&self) -> String {
        let mut table = Table::new();
        table
            .load_style(UTF8_FULL_CONDENSED)
            .set_header(["requests", "payments created", "replies", "distinct bodies"])
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
        let plural = |n: i64, one: &str, many: &str| {
            if n == 1 {
                format!("{n} {one}")
            } else {
                format!("{n} {many}")
            }
        };
        write!(
            f,
            "{} requests: {}; {}; {}",
            self.requests,
            plural(self.payments, "payment", "payments"),
            self.replies_line(),
            plural(
                self.distinct_bodies as i64,
                "distinct body",
                "distinct bodies"
            ),
        )
    }
}

/// What a second request with a used key and another body got, in one word:
/// `replayed` (the first answer), `refused` (422) or `paid again`.
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
