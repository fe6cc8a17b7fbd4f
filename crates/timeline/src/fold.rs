//! A trace made into a picture: each request's lane (what it was doing at each
//! instant), and lanes that did the same thing folded into one.
//!
//! Two requests fold together when they sent the same statements with the same
//! results, paid the same and ended the same way; how long each step took, and
//! whether a step waited, is not part of that shape (a key INSERT that waited
//! 1 ms on one request and not on another is still the same story). The waits
//! are told in the folded lane's facts instead: who blocked how many of them,
//! for how long at least and at most.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::trace::{End, Event, Holder, Missing, Outcome, POOL_TIMED_OUT, Request, Trace};

/// What a request was doing at an instant; a later variant wins when two
/// overlap (a lock wait happens inside a statement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Sent and not yet answered, nothing more known (the client's side).
    InFlight,
    /// Started, no connection yet.
    Waiting,
    /// Holding a connection, outside any transaction block, in its own code.
    Code,
    /// A transaction block open, no statement running.
    IdleInTransaction,
    /// A statement sent, not yet answered.
    Statement,
    /// Waiting for a lock the test's gate holds.
    Gate,
    /// Waiting for a lock another session holds.
    Blocked,
}

impl State {
    pub const ALL: [State; 7] = [
        State::InFlight,
        State::Waiting,
        State::Code,
        State::IdleInTransaction,
        State::Statement,
        State::Gate,
        State::Blocked,
    ];
}

/// A stretch of a lane in one state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub from_us: u64,
    pub to_us: u64,
    pub state: State,
}

/// One request's lane.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub n: usize,
    pub start_us: u64,
    pub end_us: u64,
    /// Overlapping stretches; at an instant the highest [`State`] is shown.
    pub spans: Vec<Span>,
    pub end: End,
}

impl Lane {
    /// The state shown for `[from, to)`: the highest of the spans overlapping it.
    pub fn state_during(&self, from_us: u64, to_us: u64) -> Option<State> {
        self.spans
            .iter()
            .filter(|s| s.from_us < to_us.max(from_us + 1) && s.to_us.max(s.from_us + 1) > from_us)
            .map(|s| s.state)
            .max()
    }
}

/// What a statement was, for a reader: `INSERT idempotency_keys`, `SELECT
/// idempotency_keys`, `BEGIN`, `WITH … (one statement)` as `WITH`.
pub fn statement_label(sql: &str) -> String {
    let words: Vec<&str> = sql.split_whitespace().collect();
    let upper = |w: &str| w.to_ascii_uppercase();
    let table = |w: &str| {
        w.trim_matches(|c: char| c == '"' || c == '(' || c == ';')
            .split('(')
            .next()
            .unwrap_or("")
            .to_owned()
    };
    let Some(first) = words.first() else {
        return String::new();
    };
    match upper(first).as_str() {
        "INSERT" if words.len() > 2 => format!("INSERT {}", table(words[2])),
        "UPDATE" if words.len() > 1 => format!("UPDATE {}", table(words[1])),
        "DELETE" if words.len() > 2 => format!("DELETE {}", table(words[2])),
        "SELECT" => match words.iter().position(|w| upper(w) == "FROM") {
            Some(at) if at + 1 < words.len() => format!("SELECT {}", table(words[at + 1])),
            _ => "SELECT".to_owned(),
        },
        word => word.trim_end_matches(';').to_owned(),
    }
}

/// A step of a lane's shape: a statement and how PostgreSQL answered it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Step {
    pub statement: String,
    /// The command tag (`INSERT 0 1`) or `error SQLSTATE`; `-` without answer.
    pub answered: String,
}

/// What a lane's payments came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "paid", content = "times")]
pub enum Paid {
    /// Not known: no statement seen, or one a payment may hide in (a CTE).
    Unknown,
    /// It sent no statement at all.
    NoStatement,
    Nothing,
    /// It inserted a payment and its transaction rolled back.
    RolledBack,
    Times(usize),
}

/// The shape two lanes must share to fold: no times in it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Shape {
    pub steps: Vec<Step>,
    #[serde(flatten)]
    pub paid: Paid,
    pub end: EndKind,
    /// The client's side: whether the answer said it was a replay (`None`: not
    /// known, and never in the harness's traces).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
}

/// How a lane ended, without its times.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "what")]
pub enum EndKind {
    Answered(String),
    Panicked(String),
    Unfinished,
}

impl From<&End> for EndKind {
    fn from(end: &End) -> Self {
        match end {
            End::Answered { answer } => Self::Answered(answer.clone()),
            End::Panicked { message } => Self::Panicked(message.clone()),
            End::Unfinished => Self::Unfinished,
        }
    }
}

/// A fact of a folded lane, with its figures (the words are `words.rs`'s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// Waited for its first connection from `low_us` to `high_us` (over the lanes).
    WaitedForConnection {
        low_us: u64,
        high_us: u64,
    },
    /// `count` of the lanes waited on a lock `holder` held, in `statement`.
    Blocked {
        holder: Option<Holder>,
        statement: String,
        count: usize,
        low_us: u64,
        high_us: u64,
    },
    /// The longest stretch a transaction stayed open with no statement running.
    IdleInTransaction {
        low_us: u64,
        high_us: u64,
    },
    Paid(Paid),
    /// The client's side: from the moment its body went to its whole answer,
    /// `low_us` to `high_us` over the lanes (all the client can time).
    AnsweredAfter {
        low_us: u64,
        high_us: u64,
    },
    /// The client's side: the answer said it was a replay (`true`) or carried
    /// the API's replay header with another value (`false`).
    Replayed(bool),
}

/// Lanes folded into one.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The requests' numbers, in order.
    pub members: Vec<usize>,
    /// The member whose lane is drawn: the one that ended in the middle.
    pub drawn: usize,
    pub shape: Shape,
    pub facts: Vec<Fact>,
}

/// A trace as lanes and folded groups.
#[derive(Debug, Clone)]
pub struct Picture {
    pub lanes: Vec<Lane>,
    pub groups: Vec<Group>,
    pub end_us: u64,
    pub requests: usize,
}

impl Picture {
    pub fn of(trace: &Trace) -> Picture {
        // With nothing seen of a request but its start and end: in flight, for
        // the client's side; in its own code, for the harness's.
        let unseen = if trace
            .seen
            .missing
            .contains(&crate::trace::Missing::ClientSide)
        {
            State::InFlight
        } else {
            State::Code
        };
        let connections_seen = !trace
            .seen
            .missing
            .iter()
            .any(|m| matches!(m, Missing::ClientSide | Missing::UntracedPool));
        let lanes: Vec<Lane> = trace
            .requests
            .iter()
            .map(|r| lane(r, trace.end_us, unseen, connections_seen))
            .collect();
        let shapes: Vec<Shape> = trace.requests.iter().map(|r| shape(trace, r)).collect();
        let mut by_shape: Vec<(Shape, Vec<usize>)> = Vec::new();
        for (index, shape) in shapes.into_iter().enumerate() {
            match by_shape.iter_mut().find(|(s, _)| *s == shape) {
                Some((_, members)) => members.push(index),
                None => by_shape.push((shape, vec![index])),
            }
        }
        let end_us = trace
            .end_us
            .max(lanes.iter().map(|l| l.end_us).max().unwrap_or(0));
        let mut groups: Vec<Group> = by_shape
            .into_iter()
            .map(|(shape, indices)| group(trace, &lanes, shape, &indices, end_us))
            .collect();
        // One request and "the others": the one first, whatever its number.
        if groups.len() == 2 && groups[1].members.len() == 1 {
            groups.swap(0, 1);
        }
        Picture {
            lanes,
            groups,
            end_us,
            requests: trace.requests.len(),
        }
    }

    pub fn lane(&self, n: usize) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.n == n)
    }

    /// The facts a run of the same code always gives, without times and without
    /// the request numbers a race hands out: what the book's timelines are checked
    /// current by (`timeline-svg --facts`).
    pub fn facts(&self) -> serde_json::Value {
        let groups: Vec<serde_json::Value> = self
            .groups
            .iter()
            .map(|g| {
                // A holder shared by every lane of the group, named by its group.
                let shared_holders: Vec<String> = g
                    .facts
                    .iter()
                    .filter_map(|f| match f {
                        Fact::Blocked {
                            holder,
                            count,
                            statement,
                            ..
                        } if *count == g.members.len() => Some(match holder {
                            // A request's number is a fact where the test fires
                            // them in order (the held first request is #1).
                            Some(Holder::Request { n }) => format!("request {n} in {statement}"),
                            Some(Holder::Gate) => format!("the gate in {statement}"),
                            Some(Holder::Other { .. }) => format!("another session in {statement}"),
                            None => format!("unnamed in {statement}"),
                        }),
                        _ => None,
                    })
                    .collect();
                serde_json::json!({
                    "requests": g.members.len(),
                    "shape": g.shape,
                    "blocked_by": shared_holders,
                })
            })
            .collect();
        let mut sorted = groups;
        sorted.sort_by_key(|g| g.to_string());
        serde_json::json!({ "requests": self.requests, "groups": sorted })
    }
}

/// `connections_seen`: every connection the burst's pools handed out is in the
/// trace.
fn lane(request: &Request, trace_end: u64, unseen: State, connections_seen: bool) -> Lane {
    let start = request.start_us;
    let end = request.end_us.unwrap_or(trace_end).max(start);
    let mut spans = Vec::new();
    if request.events.is_empty() {
        // Given no connection and ended by the pool's timeout: it was waiting
        // for one (the harness sees every connection its pools hand out).
        let never_served = connections_seen
            && matches!(&request.end, End::Answered { answer } if answer == POOL_TIMED_OUT);
        spans.push(Span {
            from_us: start,
            to_us: end,
            state: if never_served { State::Waiting } else { unseen },
        });
    }
    let first_connection = request.events.iter().find_map(|e| match e {
        Event::Connection { at_us, .. } => Some(*at_us),
        _ => None,
    });
    if let Some(at) = first_connection {
        spans.push(Span {
            from_us: start,
            to_us: at.clamp(start, end),
            state: State::Waiting,
        });
        spans.push(Span {
            from_us: at.clamp(start, end),
            to_us: end,
            state: State::Code,
        });
    }
    // Per connection: the statements, and where a transaction block stayed open
    // between them.
    let mut open_since: BTreeMap<u32, u64> = BTreeMap::new();
    let mut statements: Vec<(u64, u64, u32)> = Vec::new();
    for event in &request.events {
        match event {
            Event::Statement {
                at_us,
                until_us,
                connection,
                tx_after,
                ..
            } => {
                let until = until_us.unwrap_or(end);
                if let Some(since) = open_since.remove(connection) {
                    spans.push(Span {
                        from_us: since,
                        to_us: *at_us,
                        state: State::IdleInTransaction,
                    });
                }
                spans.push(Span {
                    from_us: *at_us,
                    to_us: until,
                    state: State::Statement,
                });
                statements.push((*at_us, until, *connection));
                if matches!(tx_after, Some('T') | Some('E')) {
                    open_since.insert(*connection, until);
                }
            }
            Event::LockWait {
                at_us,
                until_us,
                connection,
                blocked_by,
                ..
            } => {
                // A wait with no end of its own ends with its statement's answer.
                let until = until_us.unwrap_or_else(|| {
                    statements
                        .iter()
                        .rev()
                        .find(|(from, _, c)| c == connection && from <= at_us)
                        .map_or(end, |(_, until, _)| *until)
                });
                spans.push(Span {
                    from_us: *at_us,
                    to_us: until,
                    state: match blocked_by {
                        Some(Holder::Gate) => State::Gate,
                        _ => State::Blocked,
                    },
                });
            }
            Event::Connection { .. } => {}
        }
    }
    for since in open_since.into_values() {
        spans.push(Span {
            from_us: since,
            to_us: end,
            state: State::IdleInTransaction,
        });
    }
    // What happened after the request ended (its connection's rollback on the
    // way back to the pool) is not on its lane.
    let spans = spans
        .into_iter()
        .filter(|s| s.from_us < end || (s.from_us == end && s.to_us == end))
        .map(|s| Span {
            from_us: s.from_us.max(start),
            to_us: s.to_us.min(end),
            state: s.state,
        })
        .collect();
    Lane {
        n: request.n,
        start_us: start,
        end_us: end,
        spans,
        end: request.end.clone(),
    }
}

fn steps(request: &Request) -> Vec<Step> {
    let end = request.end_us.unwrap_or(u64::MAX);
    request
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Statement {
                at_us,
                sql,
                outcome,
                ..
            } if *at_us <= end => Some(Step {
                statement: statement_label(sql),
                answered: match outcome {
                    Some(Outcome::Done { tag }) => tag.clone(),
                    Some(Outcome::Failed { sqlstate }) => format!("error {sqlstate}"),
                    None => "-".to_owned(),
                },
            }),
            _ => None,
        })
        .collect()
}

fn paid(trace: &Trace, request: &Request) -> Paid {
    if !trace.seen.statements {
        return Paid::Unknown;
    }
    let statements: Vec<&Event> = request.statements().collect();
    if statements.is_empty() {
        return Paid::NoStatement;
    }
    let hides_a_payment = statements
        .iter()
        .any(|e| matches!(e, Event::Statement { sql, .. } if statement_label(sql) == "WITH"));
    if hides_a_payment {
        return Paid::Unknown;
    }
    match request.payments_committed() {
        0 => {
            let inserted = statements.iter().any(|e| {
                matches!(e, Event::Statement { sql, outcome: Some(Outcome::Done { tag }), .. }
                    if crate::trace::inserts_into_payments(sql) && tag != "INSERT 0 0")
            });
            if inserted {
                Paid::RolledBack
            } else {
                Paid::Nothing
            }
        }
        n => Paid::Times(n),
    }
}

fn shape(trace: &Trace, request: &Request) -> Shape {
    Shape {
        steps: steps(request),
        paid: paid(trace, request),
        end: EndKind::from(&request.end),
        replayed: request.replayed,
    }
}

/// Whether a recorded answer is one the server gave (not the client's bound, nor
/// a connection that failed).
pub fn answered(answer: &str) -> bool {
    answer != crate::trace::UNANSWERED && answer != crate::trace::NO_ANSWER
}

/// Who held a lock, and in which statement it was waited for.
type WaitKey = (Option<Holder>, String);

/// A stretch below this is noise of the machine, not a fact worth a sentence.
const NOTABLE_US: u64 = 1_000;

fn group(trace: &Trace, lanes: &[Lane], shape: Shape, indices: &[usize], end_us: u64) -> Group {
    let members: Vec<usize> = indices.iter().map(|i| trace.requests[*i].n).collect();
    let mut by_end: Vec<&Lane> = indices.iter().map(|i| &lanes[*i]).collect();
    by_end.sort_by_key(|l| (l.end_us, l.n));
    let drawn = by_end[by_end.len() / 2].n;
    let notable = (end_us / 10).max(NOTABLE_US);
    let mut facts = Vec::new();

    let waits: Vec<u64> = indices
        .iter()
        .filter_map(|i| {
            let request = &trace.requests[*i];
            request.events.iter().find_map(|e| match e {
                Event::Connection { at_us, .. } => Some(at_us.saturating_sub(request.start_us)),
                _ => None,
            })
        })
        .collect();
    if let (Some(low), Some(high)) = (waits.iter().min(), waits.iter().max())
        && *high >= notable
    {
        facts.push(Fact::WaitedForConnection {
            low_us: *low,
            high_us: *high,
        });
    }

    // Lock waits: per holder and statement, how many lanes, how long each in all.
    let mut blocked: Vec<(WaitKey, Vec<u64>)> = Vec::new();
    for i in indices {
        let request = &trace.requests[*i];
        let lane = &lanes[*i];
        let mut mine: Vec<(WaitKey, u64)> = Vec::new();
        for event in &request.events {
            let Event::LockWait {
                at_us,
                connection,
                blocked_by,
                ..
            } = event
            else {
                continue;
            };
            let statement = request
                .events
                .iter()
                .rev()
                .find_map(|e| match e {
                    Event::Statement {
                        at_us: from,
                        connection: c,
                        sql,
                        ..
                    } if c == connection && from <= at_us => Some(statement_label(sql)),
                    _ => None,
                })
                .unwrap_or_default();
            let took = lane
                .spans
                .iter()
                .find(|s| {
                    s.from_us == (*at_us).max(lane.start_us)
                        && matches!(s.state, State::Blocked | State::Gate)
                })
                .map_or(0, |s| s.to_us - s.from_us);
            let key = (blocked_by.clone(), statement);
            match mine.iter_mut().find(|(k, _)| *k == key) {
                Some((_, total)) => *total += took,
                None => mine.push((key, took)),
            }
        }
        for (key, took) in mine {
            match blocked.iter_mut().find(|(k, _)| *k == key) {
                Some((_, each)) => each.push(took),
                None => blocked.push((key, vec![took])),
            }
        }
    }
    for ((holder, statement), each) in blocked {
        facts.push(Fact::Blocked {
            holder,
            statement,
            count: each.len(),
            low_us: each.iter().copied().min().unwrap_or(0),
            high_us: each.iter().copied().max().unwrap_or(0),
        });
    }

    let idle: Vec<u64> = indices
        .iter()
        .map(|i| {
            lanes[*i]
                .spans
                .iter()
                .filter(|s| s.state == State::IdleInTransaction)
                .map(|s| s.to_us - s.from_us)
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Idle in a transaction between two statements for a few ms is the
    // machine's scheduling; a quarter of the burst is the code's doing.
    if let (Some(low), Some(high)) = (idle.iter().min(), idle.iter().max())
        && *high >= (end_us / 4).max(NOTABLE_US)
    {
        facts.push(Fact::IdleInTransaction {
            low_us: *low,
            high_us: *high,
        });
    }
    if shape.paid != Paid::Unknown {
        facts.push(Fact::Paid(shape.paid));
    }
    // From the client's side, when each answer came back is all there is to time.
    if trace.seen.missing.contains(&Missing::ClientSide)
        && matches!(shape.end, EndKind::Answered(ref answer) if answered(answer))
    {
        let took = indices
            .iter()
            .map(|i| lanes[*i].end_us - lanes[*i].start_us);
        if let (Some(low), Some(high)) = (took.clone().min(), took.max()) {
            facts.push(Fact::AnsweredAfter {
                low_us: low,
                high_us: high,
            });
        }
    }
    if let Some(replayed) = shape.replayed {
        facts.push(Fact::Replayed(replayed));
    }
    Group {
        members,
        drawn,
        shape,
        facts,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::trace::{FORMAT, Seen};

    pub(crate) fn statement(at: u64, until: u64, sql: &str, tag: &str, tx: char) -> Event {
        Event::Statement {
            at_us: at,
            until_us: Some(until),
            connection: 1,
            sql: sql.to_owned(),
            outcome: Some(if let Some(code) = tag.strip_prefix("error ") {
                Outcome::Failed {
                    sqlstate: code.to_owned(),
                }
            } else {
                Outcome::Done {
                    tag: tag.to_owned(),
                }
            }),
            tx_after: Some(tx),
        }
    }

    /// Stage 3's burst: #1 held at the gate in its payment, 19 blocked by it.
    pub(crate) fn stage3() -> Trace {
        let mut requests = vec![Request {
            n: 1,
            start_us: 0,
            end_us: Some(210_000),
            end: End::Answered {
                answer: "201".into(),
            },
            events: vec![
                Event::Connection {
                    at_us: 50,
                    connection: 1,
                    opened: false,
                },
                statement(100, 300, "BEGIN", "BEGIN", 'T'),
                statement(
                    400,
                    900,
                    "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
                    "INSERT 0 1",
                    'T',
                ),
                statement(
                    1_000,
                    205_000,
                    "INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id",
                    "INSERT 0 1",
                    'T',
                ),
                Event::LockWait {
                    at_us: 1_100,
                    until_us: Some(204_900),
                    connection: 1,
                    lock: "ShareLock on advisory lock [16384,0,4242,1]".into(),
                    blocked_by: Some(Holder::Gate),
                },
                statement(
                    205_100,
                    205_500,
                    "UPDATE idempotency_keys SET status = $2",
                    "UPDATE 1",
                    'T',
                ),
                statement(205_600, 206_000, "COMMIT", "COMMIT", 'I'),
            ],
            replayed: None,
        }];
        for n in 2..=20u64 {
            requests.push(Request {
                n: n as usize,
                start_us: 0,
                end_us: Some(207_000 + n * 100),
                end: End::Answered {
                    answer: "201".into(),
                },
                events: vec![
                    Event::Connection {
                        at_us: 60,
                        connection: n as u32,
                        opened: false,
                    },
                    statement(2_000, 2_100, "BEGIN", "BEGIN", 'T'),
                    statement(2_200, 206_100, "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", "INSERT 0 0", 'T'),
                    Event::LockWait {
                        at_us: 3_200 + n * 10,
                        until_us: Some(206_050),
                        connection: 1,
                        lock: "ShareLock on transaction 725".into(),
                        blocked_by: Some(Holder::Request { n: 1 }),
                    },
                    statement(206_200, 206_300, "ROLLBACK", "ROLLBACK", 'I'),
                    statement(206_400, 206_900, "SELECT status, response FROM idempotency_keys WHERE key = $1", "SELECT 1", 'I'),
                ],
                replayed: None,
            });
        }
        Trace {
            format: FORMAT,
            id: "1.1".into(),
            test: Some("twenty_concurrent_requests_create_one_payment".into()),
            seen: Seen {
                statements: true,
                lock_waits_from_us: Some(1_000),
                missing: vec![],
            },
            end_us: 209_000,
            requests,
        }
    }

    /// A burst seen by the probe: #1 answered first, 18 replays after it, one
    /// given no answer within the bound.
    pub(crate) fn client_side() -> Trace {
        let answered = |n: usize, end_us: u64, replayed: bool| Request {
            n,
            start_us: 100 + n as u64,
            end_us: Some(end_us),
            end: End::Answered {
                answer: "201".into(),
            },
            events: vec![],
            replayed: Some(replayed),
        };
        let mut requests = vec![answered(1, 210_000, false)];
        for n in 2..=19 {
            requests.push(answered(n, 211_000 + n as u64 * 200, true));
        }
        requests.push(Request {
            n: 20,
            start_us: 120,
            end_us: Some(3_000_000),
            end: End::Answered {
                answer: crate::trace::UNANSWERED.into(),
            },
            events: vec![],
            replayed: None,
        });
        Trace {
            format: FORMAT,
            id: "probe.1".into(),
            test: None,
            seen: Seen::client_side(),
            end_us: 3_000_000,
            requests,
        }
    }

    #[test]
    fn the_clients_side_folds_by_answer_and_replay_and_times_only_the_answers() {
        let picture = Picture::of(&client_side());
        let sizes: Vec<usize> = picture.groups.iter().map(|g| g.members.len()).collect();
        assert_eq!(sizes, [1, 18, 1], "{:#?}", picture.groups);
        let replays = &picture.groups[1];
        assert_eq!(replays.shape.replayed, Some(true));
        assert!(replays.facts.contains(&Fact::AnsweredAfter {
            low_us: 211_000 + 400 - 102,
            high_us: 211_000 + 19 * 200 - 119,
        }));
        assert!(replays.facts.contains(&Fact::Replayed(true)));
        // Nothing the client cannot see: no wait, no lock, no payment.
        for group in &picture.groups {
            assert!(
                group
                    .facts
                    .iter()
                    .all(|f| matches!(f, Fact::AnsweredAfter { .. } | Fact::Replayed(_))),
                "{:?}",
                group.facts
            );
        }
        let unanswered = &picture.groups[2];
        assert_eq!(unanswered.members, [20]);
        assert!(unanswered.facts.is_empty(), "{:?}", unanswered.facts);
        for lane in &picture.lanes {
            assert!(lane.spans.iter().all(|s| s.state == State::InFlight));
        }
        // The harness's facts of a burst are unchanged by the client's field.
        let facts = Picture::of(&stage3()).facts().to_string();
        assert!(!facts.contains("replayed"), "{facts}");
    }

    #[test]
    fn a_request_the_pool_never_served_waited_for_a_connection_all_along() {
        let mut trace = stage3();
        trace.requests[19] = Request {
            n: 20,
            start_us: 0,
            end_us: Some(200_000),
            end: End::Answered {
                answer: POOL_TIMED_OUT.into(),
            },
            events: vec![],
            replayed: None,
        };
        let during = |trace: &Trace| {
            Picture::of(trace)
                .lane(20)
                .and_then(|l| l.state_during(100_000, 101_000))
        };
        assert_eq!(during(&trace), Some(State::Waiting));
        // The probe sees no pool: the same request is only in flight.
        trace.seen.missing = vec![Missing::ClientSide];
        assert_eq!(during(&trace), Some(State::InFlight));
        // Another end, with nothing seen: in its own code, not waiting.
        trace.seen.missing.clear();
        trace.requests[19].end = End::Answered {
            answer: "201".into(),
        };
        assert_eq!(during(&trace), Some(State::Code));
    }

    #[test]
    fn duplicates_blocked_by_the_first_fold_into_one_lane_that_names_it() {
        let picture = Picture::of(&stage3());
        assert_eq!(picture.groups.len(), 2, "{:#?}", picture.groups);
        let first = &picture.groups[0];
        assert_eq!(first.members, [1]);
        assert_eq!(first.shape.paid, Paid::Times(1));
        assert!(first.facts.iter().any(|f| matches!(f,
            Fact::Blocked { holder: Some(Holder::Gate), statement, count: 1, .. } if statement == "INSERT payments")));
        let duplicates = &picture.groups[1];
        assert_eq!(duplicates.members, (2..=20).collect::<Vec<_>>());
        assert_eq!(duplicates.shape.paid, Paid::Nothing);
        let blocked = duplicates.facts.iter().find_map(|f| match f {
            Fact::Blocked {
                holder,
                count,
                low_us,
                high_us,
                statement,
            } => Some((holder.clone(), *count, *low_us, *high_us, statement.clone())),
            _ => None,
        });
        let (holder, count, low, high, statement) = blocked.expect("the duplicates were blocked");
        assert_eq!(holder, Some(Holder::Request { n: 1 }));
        assert_eq!(count, 19);
        assert_eq!(statement, "INSERT idempotency_keys");
        assert!(low <= high && high <= 206_050 - 3_210, "{low}..{high}");
        assert_eq!(
            picture
                .lane(5)
                .and_then(|l| l.state_during(100_000, 101_000)),
            Some(State::Blocked)
        );
        assert_eq!(
            picture
                .lane(1)
                .and_then(|l| l.state_during(100_000, 101_000)),
            Some(State::Gate)
        );
        let facts = picture.facts();
        assert_eq!(facts["requests"], 20);
        assert!(
            facts
                .to_string()
                .contains("request 1 in INSERT idempotency_keys"),
            "{facts}"
        );
    }

    #[test]
    fn statements_are_named_by_their_verb_and_table() {
        assert_eq!(
            statement_label("INSERT INTO idempotency_keys (key) VALUES ($1)"),
            "INSERT idempotency_keys"
        );
        assert_eq!(
            statement_label("insert into payments(order_id) values (1)"),
            "INSERT payments"
        );
        assert_eq!(
            statement_label("SELECT status, response FROM idempotency_keys WHERE key = $1"),
            "SELECT idempotency_keys"
        );
        assert_eq!(
            statement_label("UPDATE idempotency_keys SET status = 201"),
            "UPDATE idempotency_keys"
        );
        assert_eq!(statement_label("WITH k AS (INSERT ...) SELECT ..."), "WITH");
        assert_eq!(statement_label("COMMIT"), "COMMIT");
        assert_eq!(statement_label("SELECT 1"), "SELECT");
    }
}
