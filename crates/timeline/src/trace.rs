//! The trace of one burst: what the harness writes, and the runner, the book and
//! the probe read. One format, one JSON object per burst.
//!
//! # Where it is
//!
//! The harness appends each trace as one line `{"trace": <Trace>}` to the file
//! named by `WORKBOOK_OBSERVATIONS`, beside the tests' observations
//! (`{"scenario": ...}`) and the harness's conditions (`{"condition": ...}`). An
//! observation recorded by a test after its burst names that burst's trace
//! (`"trace": "<id>"`), so a prediction's figure and its picture go together.
//!
//! # What it holds
//!
//! Times are microseconds from the burst's start (when its requests were let go),
//! measured by the harness's clock. Per request (numbered from 1 in the order the
//! test fires them), in the order they happened:
//!
//! - [`Event::Connection`]: it got a connection from the pool (the instant the
//!   pool handed it over, in the request's own task);
//! - [`Event::Statement`]: a statement it sent, from its connection's wire (the
//!   harness relays the pool's connections): when it was sent (its `Parse`, when
//!   the statement was prepared for it), when PostgreSQL answered, the command tag
//!   or the SQLSTATE, and the transaction status PostgreSQL reported after it;
//! - [`Event::LockWait`]: a lock its statement waited for, from PostgreSQL itself:
//!   each traced session runs with `log_lock_waits = on`, `deadlock_timeout =
//!   1ms` and `client_min_messages = log`, so a backend that has waited 1 ms
//!   tells its own client "process P still waiting for ShareLock on transaction X
//!   after 1.0 ms", and "acquired ... after 212.3 ms" when it gets the lock. The
//!   harness then asks `pg_blocking_pids()` who holds it and reads their
//!   `application_name` (which names the request, or the test's gate). A wait
//!   shorter than 1 ms is not seen ([`Seen::lock_waits_from_us`]); a holder that
//!   let go before the question was asked is not named (`blocked_by` is `None`).
//!
//! and how it ended ([`End`]): its answer, as the harness's outcome records it
//! (`201`, `error: pool timed out`, ...), or the panic that ended it.
//!
//! A trace seen from the client's side (the probe's burst, [`Missing::ClientSide`])
//! has no events: each request's `start_us` is when its body was let go (every
//! request's connection and head were sent before, so that the bodies leave
//! together), its `end_us` when its whole answer had arrived, its [`End`] the
//! status the client read ([`UNANSWERED`] at the probe's bound, [`NO_ANSWER`] when
//! the connection failed or closed), and [`Request::replayed`] whether the answer
//! said it was a replay. How long a request waited on the server, and on what, is
//! not in it: the client cannot see it.
//!
//! What could not be seen is said ([`Seen`]), never guessed: on a `DATABASE_URL`
//! server the harness does not relay connections (TLS, its `pg_hba.conf`), so
//! there are no statements nor lock waits; a role that may not set
//! `log_lock_waits` gives statements without lock waits; the probe sees only the
//! client's side.

use serde::{Deserialize, Serialize};

/// The version of this format, written in every trace.
pub const FORMAT: u32 = 1;

/// The key of a trace line in the observations file.
pub const LINE_KEY: &str = "trace";

/// One burst, as it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub format: u32,
    /// Unique in its observations file: `<process id>.<n>`.
    pub id: String,
    /// The test that fired the burst (libtest's name), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// What the recording could see.
    pub seen: Seen,
    /// When the last request ended (or the burst was given up).
    pub end_us: u64,
    pub requests: Vec<Request>,
}

/// What a trace's method could see, and what it could not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    /// The statements of each request, from its connections' wire.
    pub statements: bool,
    /// Lock waits at least this long are seen (the sessions' `deadlock_timeout`);
    /// `None`: lock waits are not seen at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_waits_from_us: Option<u64>,
    /// Why a part is missing: a key of the timeline's words (`missing-KEY`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<Missing>,
}

impl Seen {
    /// What the probe sees of a burst: the client's side only (no statement,
    /// no lock, no connection of the server's).
    pub fn client_side() -> Seen {
        Seen {
            statements: false,
            lock_waits_from_us: None,
            missing: vec![Missing::ClientSide],
        }
    }
}

/// A part of the picture a trace lacks, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Missing {
    /// A `DATABASE_URL` server: its connections are not relayed.
    DatabaseUrl,
    /// The role may not set `log_lock_waits`: no lock waits.
    NotSuperuser,
    /// The client's side only (the probe): no statement, no lock.
    ClientSide,
    /// The burst ran on a pool the harness did not make (no connection seen).
    UntracedPool,
}

/// One request of the burst.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// From 1, in the order the test fired the requests.
    pub n: usize,
    pub start_us: u64,
    /// `None`: it had not ended when the burst was given up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_us: Option<u64>,
    pub end: End,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// The client's side only: whether its answer said it replayed a stored one
    /// (a header whose name mentions a replay, such as Stripe's
    /// `Idempotent-Replayed: true`). `None`: not known (the harness's traces, or
    /// an API whose answers in the burst carry no such header). Added to format
    /// 1 as an optional field: a trace without it reads as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum End {
    /// What it answered, as the harness's outcome records it: `201`,
    /// `error: pool timed out`, `error: unique violation (23505)`...
    Answered { answer: String },
    /// Its code panicked: the panic's first line.
    Panicked { message: String },
    /// Still running when the burst was given up.
    Unfinished,
}

/// The recorded answer of a request that asked its pool for a connection and
/// was given none within the pool's acquire timeout (sqlx's `PoolTimedOut`).
pub const POOL_TIMED_OUT: &str = "error: pool timed out";

/// The recorded answer of a request whose INSERT broke a unique constraint.
pub const UNIQUE_VIOLATION: &str = "error: unique violation (23505)";

/// The recorded answer of a request that gave up on a lock (`lock_timeout`).
pub const LOCK_TIMEOUT: &str = "error: lock timeout (55P03)";

/// The recorded answer of an HTTP call given no answer within its bound.
pub const UNANSWERED: &str = "unanswered";

/// The recorded answer of an HTTP call whose connection failed or closed
/// without an answer.
pub const NO_ANSWER: &str = "no answer";

/// Something a request did, with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Event {
    /// The pool handed it a connection (`opened`: a new one, opened for it).
    Connection {
        at_us: u64,
        connection: u32,
        opened: bool,
    },
    /// A statement on one of its connections.
    Statement {
        at_us: u64,
        /// `None`: no answer when the trace ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until_us: Option<u64>,
        connection: u32,
        /// The statement's text, on one line, cut at [`SQL_SHOWN`] characters.
        sql: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<Outcome>,
        /// PostgreSQL's transaction status after it: `I` idle, `T` in a
        /// transaction block, `E` in a failed one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tx_after: Option<char>,
    },
    /// A lock a statement of it waited for (PostgreSQL's own report of it).
    LockWait {
        at_us: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until_us: Option<u64>,
        connection: u32,
        /// PostgreSQL's words for it: `ShareLock on transaction 725`.
        lock: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blocked_by: Option<Holder>,
    },
}

/// How many characters of a statement a trace keeps.
pub const SQL_SHOWN: usize = 160;

/// What PostgreSQL answered to a statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Outcome {
    /// Its command tag: `INSERT 0 1`, `SELECT 0`, `COMMIT`, `ROLLBACK`...
    Done {
        tag: String,
    },
    Failed {
        sqlstate: String,
    },
}

/// Who held the lock a request waited for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Holder {
    /// Another request of the same burst.
    Request { n: usize },
    /// The test itself: its gate, holding a request where the test wants it.
    Gate,
    /// A session outside the burst.
    Other { pid: u32, application_name: String },
}

impl Event {
    pub fn at_us(&self) -> u64 {
        match self {
            Self::Connection { at_us, .. }
            | Self::Statement { at_us, .. }
            | Self::LockWait { at_us, .. } => *at_us,
        }
    }
}

impl Request {
    /// The recorded answer, if it answered.
    pub fn answer(&self) -> Option<&str> {
        match &self.end {
            End::Answered { answer } => Some(answer),
            _ => None,
        }
    }

    /// The statements, in order: (sent, answered, sql, outcome, status after).
    pub fn statements(&self) -> impl Iterator<Item = &Event> {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Statement { .. }))
    }

    /// The lock waits, in order.
    pub fn lock_waits(&self) -> impl Iterator<Item = &Event> {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::LockWait { .. }))
    }

    /// How many payments this request committed, read off its wire: an
    /// `INSERT INTO payments` that inserted a row (`INSERT 0 1`), in autocommit or
    /// in a transaction block that then committed. A payment made inside one
    /// statement of another kind (a data-modifying CTE answers `SELECT n`) cannot
    /// be told apart on the wire and is not counted.
    pub fn payments_committed(&self) -> usize {
        let mut committed = 0;
        // Per connection: payments inserted in the open transaction block.
        let mut pending: std::collections::BTreeMap<u32, usize> = Default::default();
        for event in self.statements() {
            let Event::Statement {
                connection,
                sql,
                outcome,
                tx_after,
                ..
            } = event
            else {
                continue;
            };
            let open = pending.entry(*connection).or_insert(0);
            if let Some(Outcome::Done { tag }) = outcome
                && inserts_into_payments(sql)
                && tag.starts_with("INSERT ")
            {
                *open += tag
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(0);
            }
            match tx_after {
                // In a transaction block: the payments wait for its end.
                Some('T') | Some('E') => {}
                // Idle: the block (or the autocommit statement) is over; it
                // committed only when it ended without an error and was not a
                // ROLLBACK (a COMMIT of a failed block answers `ROLLBACK`).
                Some('I') => {
                    let ended_well =
                        matches!(outcome, Some(Outcome::Done { tag }) if tag != "ROLLBACK");
                    if ended_well {
                        committed += *open;
                    }
                    *open = 0;
                }
                _ => {}
            }
        }
        committed
    }
}

/// Whether a statement is an `INSERT INTO payments` (any spacing or case).
pub fn inserts_into_payments(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(3)
        .map(|w| w.to_ascii_lowercase())
        .collect();
    words.len() == 3
        && words[0] == "insert"
        && words[1] == "into"
        && (words[2] == "payments" || words[2].starts_with("payments("))
}

impl Trace {
    /// How many requests ended each way, by recorded answer (the outcome's
    /// `replies`); a request that panicked or never ended is not counted.
    pub fn answers(&self) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for request in &self.requests {
            if let Some(answer) = request.answer() {
                *counts.entry(answer.to_owned()).or_insert(0) += 1;
            }
        }
        counts
    }

    /// The payments the requests committed, read off the wire
    /// ([`Request::payments_committed`]); `None` when the statements were not seen.
    pub fn payments_committed(&self) -> Option<usize> {
        self.seen
            .statements
            .then(|| self.requests.iter().map(Request::payments_committed).sum())
    }

    /// The trace of a line of an observations file, if the line holds one.
    pub fn from_line(line: &str) -> Option<Result<Trace, serde_json::Error>> {
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        let trace = value.get(LINE_KEY)?;
        trace.is_object().then(|| Trace::deserialize(trace))
    }

    /// This trace as a line of an observations file (no newline).
    pub fn to_line(&self) -> String {
        serde_json::json!({ LINE_KEY: self }).to_string()
    }
}

/// A statement's text on one line, cut at [`SQL_SHOWN`] characters.
pub fn one_line(sql: &str) -> String {
    let line = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(SQL_SHOWN) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(connection: u32, sql: &str, tag: &str, tx_after: char) -> Event {
        Event::Statement {
            at_us: 0,
            until_us: Some(1),
            connection,
            sql: sql.to_owned(),
            outcome: Some(Outcome::Done {
                tag: tag.to_owned(),
            }),
            tx_after: Some(tx_after),
        }
    }

    fn request(events: Vec<Event>) -> Request {
        Request {
            n: 1,
            start_us: 0,
            end_us: Some(10),
            end: End::Answered {
                answer: "201".to_owned(),
            },
            events,
            replayed: None,
        }
    }

    #[test]
    fn a_payment_counts_once_its_transaction_commits_and_never_after_a_rollback() {
        let paid = request(vec![
            statement(1, "BEGIN", "BEGIN", 'T'),
            statement(
                1,
                "INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id",
                "INSERT 0 1",
                'T',
            ),
            statement(1, "COMMIT", "COMMIT", 'I'),
        ]);
        assert_eq!(paid.payments_committed(), 1);
        let rolled_back = request(vec![
            statement(1, "BEGIN", "BEGIN", 'T'),
            statement(
                1,
                "insert into payments(order_id) values (1)",
                "INSERT 0 1",
                'T',
            ),
            statement(1, "ROLLBACK", "ROLLBACK", 'I'),
        ]);
        assert_eq!(rolled_back.payments_committed(), 0);
        let failed_block = request(vec![
            statement(1, "BEGIN", "BEGIN", 'T'),
            statement(1, "INSERT INTO payments VALUES (1)", "INSERT 0 1", 'T'),
            Event::Statement {
                at_us: 0,
                until_us: Some(1),
                connection: 1,
                sql: "INSERT INTO idempotency_keys ...".to_owned(),
                outcome: Some(Outcome::Failed {
                    sqlstate: "23505".to_owned(),
                }),
                tx_after: Some('E'),
            },
            // PostgreSQL answers the COMMIT of a failed block with ROLLBACK.
            statement(1, "COMMIT", "ROLLBACK", 'I'),
        ]);
        assert_eq!(failed_block.payments_committed(), 0);
        let autocommit = request(vec![statement(
            2,
            "INSERT INTO payments (order_id, amount) VALUES (1, 100) RETURNING id",
            "INSERT 0 1",
            'I',
        )]);
        assert_eq!(autocommit.payments_committed(), 1);
        let cte = request(vec![statement(
            2,
            "WITH k AS (INSERT INTO idempotency_keys ...) INSERT INTO payments ...",
            "INSERT 0 1",
            'I',
        )]);
        assert_eq!(
            cte.payments_committed(),
            0,
            "only a statement that starts as one is a payment INSERT"
        );
    }

    #[test]
    fn a_trace_is_one_line_of_the_observations_file_and_reads_back() {
        let trace = Trace {
            format: FORMAT,
            id: "7.1".to_owned(),
            test: Some("twenty".to_owned()),
            seen: Seen {
                statements: true,
                lock_waits_from_us: Some(1000),
                missing: vec![],
            },
            end_us: 10,
            requests: vec![request(vec![Event::LockWait {
                at_us: 1,
                until_us: Some(5),
                connection: 1,
                lock: "ShareLock on transaction 725".to_owned(),
                blocked_by: Some(Holder::Gate),
            }])],
        };
        let line = trace.to_line();
        assert!(line.starts_with(r#"{"trace":{"#), "{line}");
        assert!(!line.contains('\n'));
        let back = Trace::from_line(&line)
            .expect("a trace line")
            .expect("it parses");
        assert_eq!(back, trace);
        assert!(Trace::from_line(r#"{"scenario":"s","payments":1}"#).is_none());
    }
}
