//! Recording each burst's trace: who waited on whom, from PostgreSQL itself.
//!
//! The format, and what each part of it means, is the timeline crate's
//! (`timeline::trace`). How it is recorded, and why so:
//!
//! - **Which request**: every request of a burst runs in a task that carries its
//!   number (a tokio task-local). The pools the harness makes ([`TestDb::pool`])
//!   have two hooks, run by sqlx in the task that asks for a connection: when a
//!   connection is opened, and when an idle one is handed out. Each sends one
//!   statement that names the request (`SET application_name = 'wb:<trace>:<n>'`,
//!   after a marker comment), so from then on the connection, and PostgreSQL's
//!   `pg_stat_activity`, say whose it is. That costs one round trip per
//!   connection handed out during a burst, and nothing outside one.
//! - **What it sent, and what PostgreSQL answered**: the pool's connections go
//!   through a relay (a Unix socket of this process) that passes every byte on
//!   unchanged and reads the protocol on the way: each statement's text, when it
//!   was sent, its command tag or SQLSTATE, and the transaction status after it.
//!   Exact on the client's clock, for every statement, with no server setting.
//! - **Who blocked whom**: each traced session runs with `log_lock_waits = on`,
//!   `deadlock_timeout = 1ms`, `client_min_messages = log` and `lc_messages = C`
//!   (session settings a superuser may make; the server's own settings are not
//!   touched). A backend that has waited 1 ms for a lock then tells its own client
//!   "process P still waiting for ShareLock on transaction X after 1.0 ms", and
//!   "acquired ... after 212.3 ms" when it gets it: the wait's start and length
//!   are PostgreSQL's. At the first report the harness asks
//!   `pg_blocking_pids(P)` who holds the lock and reads their `application_name`:
//!   a request, or the test's gate. What this cannot see is said in the trace: a
//!   wait under 1 ms, and a holder that had let go before the question.
//!   `pg_blocking_pids()` alone, sampled, would miss every wait shorter than its
//!   period; `log_lock_waits` in the server's log would need a server setting and
//!   a log file the container and `DATABASE_URL` servers do not give.
//!
//! On a `DATABASE_URL` server nothing is relayed (TLS, the server's
//! `pg_hba.conf`: not the harness's to change): the trace holds when each
//! request got its connections and how it ended, and says what it lacks.
//!
//! Recording is on when the runner asks for observations (`WORKBOOK_OBSERVATIONS`)
//! and off with `WORKBOOK_TRACE=off`; plain `cargo test` records nothing.
//!
//! [`TestDb::pool`]: crate::TestDb::pool

use std::any::Any;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgSslMode};
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};
use timeline::trace::{
    End, Event, FORMAT, Holder, Missing, Outcome, Request, Seen, Trace, one_line,
};
use tokio::net::UnixListener;
use tokio::sync::mpsc;

use crate::BackendChoice;
use crate::pool::PoolSize;
use crate::wire::{self, Side, Upstream, split_cstr};

/// Turns recording on for this process even without `WORKBOOK_OBSERVATIONS`:
/// for tests of the recording itself, which read [`last_trace`].
pub fn record_traces() {
    IN_PROCESS.store(true, Ordering::Relaxed);
}

static IN_PROCESS: AtomicBool = AtomicBool::new(false);

/// Whether bursts are recorded.
pub(crate) fn enabled() -> bool {
    if std::env::var_os("WORKBOOK_TRACE").is_some_and(|v| v == "off") {
        return false;
    }
    IN_PROCESS.load(Ordering::Relaxed) || std::env::var_os("WORKBOOK_OBSERVATIONS").is_some()
}

/// How long the other requests of a burst are given to end once one panicked.
const SETTLE: Duration = Duration::from_secs(2);

/// A lock wait is reported once it has lasted this long (the sessions'
/// `deadlock_timeout`).
const LOCK_WAITS_FROM: Duration = Duration::from_millis(1);

/// How long a test holding a lock on purpose waits, at most, for the burst's
/// lock waits to be reported and their holders asked for ([`Burst::holders_asked`]).
const HOLDERS_ASKED_WITHIN: Duration = Duration::from_secs(1);

/// Whether sessions could be told to report their lock waits.
static LOCK_REPORTS: AtomicU8 = AtomicU8::new(UNKNOWN);
const UNKNOWN: u8 = 0;
const ON: u8 = 1;
const REFUSED: u8 = 2;

/// The traces still being recorded, by id: the relay finds a request's trace
/// from the name its connection was given.
fn live_traces() -> &'static Mutex<HashMap<String, Weak<Live>>> {
    static LIVE: OnceLock<Mutex<HashMap<String, Weak<Live>>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// How many bursts are being recorded now, in this process.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static NEXT_TRACE: AtomicU32 = AtomicU32::new(0);

thread_local! {
    /// The last trace a burst of this thread recorded (a test's thread).
    static LAST: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// The trace of the last burst this thread fired, if it was recorded.
pub fn last_trace() -> Option<Trace> {
    LAST.with(|last| last.borrow().clone())
}

/// The id of that trace: what an observation recorded after it names.
pub(crate) fn last_trace_id() -> Option<String> {
    LAST.with(|last| last.borrow().as_ref().map(|t| t.id.clone()))
}

/// A burst being recorded.
pub(crate) struct Live {
    id: String,
    t0: Instant,
    test: Option<String>,
    /// A connection of the burst went through the relay.
    relayed: AtomicBool,
    /// Lock waits of the burst whose holder has been asked for (named or not).
    asked: AtomicUsize,
    state: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    requests: Vec<Record>,
    finished: bool,
}

struct Record {
    n: usize,
    start: Option<Instant>,
    end: Option<(Instant, End)>,
    events: Vec<Event>,
}

impl Live {
    fn micros(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.t0).as_micros()).unwrap_or(u64::MAX)
    }

    /// Runs `change` on request `n`'s record, unless the trace is finished.
    fn with<R>(&self, n: usize, change: impl FnOnce(&mut Record) -> R) -> Option<R> {
        let mut state = self.state.lock().ok()?;
        if state.finished {
            return None;
        }
        let at = match state.requests.iter().position(|r| r.n == n) {
            Some(at) => at,
            None => {
                state.requests.push(Record {
                    n,
                    start: None,
                    end: None,
                    events: Vec::new(),
                });
                state.requests.len() - 1
            }
        };
        Some(change(&mut state.requests[at]))
    }

    /// Adds an event to request `n`; its index there.
    fn push(&self, n: usize, event: Event) -> Option<usize> {
        self.with(n, |r| {
            r.events.push(event);
            r.events.len() - 1
        })
    }

    fn patch(&self, n: usize, index: usize, change: impl FnOnce(&mut Event)) {
        self.with(n, |r| {
            if let Some(event) = r.events.get_mut(index) {
                change(event);
            }
        });
    }

    fn finish(&self) -> Trace {
        let now = Instant::now();
        let records = match self.state.lock() {
            Ok(mut state) => {
                state.finished = true;
                std::mem::take(&mut state.requests)
            }
            Err(_) => Vec::new(),
        };
        let mut requests: Vec<Request> = records
            .into_iter()
            .map(|r| {
                let mut events = r.events;
                events.sort_by_key(Event::at_us);
                Request {
                    n: r.n,
                    start_us: r.start.map_or(0, |t| self.micros(t)),
                    end_us: r.end.as_ref().map(|(t, _)| self.micros(*t)),
                    end: r.end.map_or(End::Unfinished, |(_, end)| end),
                    events,
                    replayed: None,
                }
            })
            .collect();
        requests.sort_by_key(|r| r.n);
        let end_us = requests
            .iter()
            .map(|r| r.end_us.unwrap_or_else(|| self.micros(now)))
            .max()
            .unwrap_or(0);
        Trace {
            format: FORMAT,
            id: self.id.clone(),
            test: self.test.clone(),
            seen: seen(&requests, self.relayed.load(Ordering::Relaxed)),
            end_us,
            requests,
        }
    }
}

/// What the recording saw, from the server the harness uses and what happened.
fn seen(requests: &[Request], relayed: bool) -> Seen {
    let choice = crate::backend().ok().map(|b| b.choice);
    if choice == Some(BackendChoice::Url) {
        return Seen {
            statements: false,
            lock_waits_from_us: None,
            missing: vec![Missing::DatabaseUrl],
        };
    }
    let any_event = requests.iter().any(|r| !r.events.is_empty());
    let all_panicked = requests
        .iter()
        .all(|r| matches!(r.end, End::Panicked { .. }));
    // Requests that panicked before asking for a connection: nothing to relay.
    if !relayed && (any_event || !all_panicked) {
        return Seen {
            statements: false,
            lock_waits_from_us: None,
            missing: vec![Missing::UntracedPool],
        };
    }
    if LOCK_REPORTS.load(Ordering::Relaxed) == REFUSED {
        return Seen {
            statements: true,
            lock_waits_from_us: None,
            missing: vec![Missing::NotSuperuser],
        };
    }
    Seen {
        statements: true,
        lock_waits_from_us: Some(LOCK_WAITS_FROM.as_micros() as u64),
        missing: Vec::new(),
    }
}

tokio::task_local! {
    /// The request this task runs, in the burst being recorded.
    static REQUEST: Tag;
}

#[derive(Clone)]
struct Tag {
    live: Arc<Live>,
    n: usize,
}

/// A burst, recorded while it runs; its trace is written when this is dropped
/// (also while a panic unwinds, so a burst that failed is pictured too).
pub(crate) struct Burst {
    live: Option<Arc<Live>>,
}

impl Burst {
    /// Starts recording, when recording is on.
    pub(crate) fn start() -> Burst {
        if !enabled() {
            return Burst { live: None };
        }
        let id = format!(
            "{}.{}",
            std::process::id(),
            NEXT_TRACE.fetch_add(1, Ordering::Relaxed) + 1
        );
        let live = Arc::new(Live {
            id: id.clone(),
            t0: Instant::now(),
            // libtest runs each test on a thread named after it.
            test: std::thread::current()
                .name()
                .filter(|name| *name != "main")
                .map(str::to_owned),
            relayed: AtomicBool::new(false),
            asked: AtomicUsize::new(0),
            state: Mutex::new(LiveState::default()),
        });
        if let Ok(mut all) = live_traces().lock() {
            all.insert(id, Arc::downgrade(&live));
        }
        ACTIVE.fetch_add(1, Ordering::Relaxed);
        Burst { live: Some(live) }
    }

    pub(crate) fn is_on(&self) -> bool {
        self.live.is_some()
    }

    /// Waits (bounded by [`HOLDERS_ASKED_WITHIN`]) until PostgreSQL has reported
    /// `waits` lock waits of this burst and the harness has asked who holds each
    /// lock. A test that holds a lock on purpose (the gate) calls this before it
    /// lets go, so that a holder is named while it still holds: what a loaded
    /// machine would otherwise turn into "the holder was gone". Past the bound
    /// the trace says just that; nothing is guessed.
    pub(crate) async fn holders_asked(&self, waits: usize) {
        let Some(live) = &self.live else { return };
        if !live.relayed.load(Ordering::Relaxed) || LOCK_REPORTS.load(Ordering::Relaxed) != ON {
            // Nothing relayed (a `DATABASE_URL` server), or no lock wait reported.
            return;
        }
        let deadline = Instant::now() + HOLDERS_ASKED_WITHIN;
        while live.asked.load(Ordering::Acquire) < waits && Instant::now() < deadline {
            // Polling a counter, bounded: the recording never holds a test up longer.
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// `call`, as request `n` of this burst: its start, its end and its answer
    /// recorded, and its connections named after it.
    pub(crate) fn request<F>(
        &self,
        n: usize,
        call: F,
        answer_of: fn(&F::Output) -> String,
    ) -> impl Future<Output = F::Output> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let live = self.live.clone();
        async move {
            match live {
                None => call.await,
                Some(live) => {
                    let mut guard = RequestGuard::start(live.clone(), n);
                    let out = REQUEST.scope(Tag { live, n }, call).await;
                    guard.answered(answer_of(&out));
                    out
                }
            }
        }
    }

    /// The values of `tasks` (each request's number and task), in order; a
    /// panic is [`joined`](Self::joined) with the tasks after it.
    pub(crate) async fn join_all<T>(
        &self,
        tasks: &mut [(usize, tokio::task::JoinHandle<T>)],
    ) -> Vec<T> {
        let mut results = Vec::with_capacity(tasks.len());
        for at in 0..tasks.len() {
            let (done, rest) = tasks.split_at_mut(at + 1);
            let (request, task) = &mut done[at];
            let result = task.await;
            results.push(self.joined(*request, result, rest).await);
        }
        results
    }

    /// The value of request `n`'s task; when it panicked, the panic is recorded,
    /// the other requests (`rest`) are given [`SETTLE`] to end (so that the trace
    /// says how each ended), and the panic goes on.
    pub(crate) async fn joined<T>(
        &self,
        n: usize,
        result: Result<T, tokio::task::JoinError>,
        rest: &mut [(usize, tokio::task::JoinHandle<T>)],
    ) -> T {
        let payload = match result {
            Ok(value) => return value,
            Err(e) => e.into_panic(),
        };
        self.panicked(n, &*payload);
        if self.is_on() {
            let deadline = tokio::time::Instant::now() + SETTLE;
            for (other, handle) in rest.iter_mut() {
                match tokio::time::timeout_at(deadline, handle).await {
                    Ok(Err(e)) if e.is_panic() => self.panicked(*other, &*e.into_panic()),
                    Ok(_) => {}
                    // Still running: the trace says so.
                    Err(_) => break,
                }
            }
        }
        std::panic::resume_unwind(payload)
    }

    /// Request `n` panicked with `payload` (from its task's `JoinError`).
    pub(crate) fn panicked(&self, n: usize, payload: &(dyn Any + Send)) {
        let Some(live) = &self.live else { return };
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let first = message.lines().next().unwrap_or("").to_owned();
        let now = Instant::now();
        live.with(n, |r| match &mut r.end {
            Some((_, End::Panicked { message })) => *message = first,
            _ => r.end = Some((now, End::Panicked { message: first })),
        });
    }
}

impl Drop for Burst {
    fn drop(&mut self) {
        let Some(live) = self.live.take() else { return };
        let trace = live.finish();
        if let Ok(mut all) = live_traces().lock() {
            all.remove(&trace.id);
        }
        ACTIVE.fetch_sub(1, Ordering::Relaxed);
        write(trace);
    }
}

/// Appends `trace` to the observations file (when the runner asked for one),
/// and keeps it as this thread's last.
fn write(trace: Trace) {
    if std::env::var_os("WORKBOOK_OBSERVATIONS").is_some() {
        crate::condition::append_observation(&trace.to_line());
    }
    LAST.with(|last| *last.borrow_mut() = Some(trace));
}

/// Records a request's start when it begins, and its end however it ends.
struct RequestGuard {
    live: Arc<Live>,
    n: usize,
    done: bool,
}

impl RequestGuard {
    fn start(live: Arc<Live>, n: usize) -> Self {
        let now = Instant::now();
        live.with(n, |r| r.start = Some(now));
        Self {
            live,
            n,
            done: false,
        }
    }

    fn answered(&mut self, answer: String) {
        let now = Instant::now();
        self.live
            .with(self.n, |r| r.end = Some((now, End::Answered { answer })));
        self.done = true;
    }
}

impl Drop for RequestGuard {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // Dropped while its task unwinds: it panicked (the message comes from
        // the task's JoinError). Dropped otherwise: the test stopped it.
        let end = if std::thread::panicking() {
            End::Panicked {
                message: String::new(),
            }
        } else {
            End::Unfinished
        };
        let now = Instant::now();
        self.live.with(self.n, |r| {
            if r.end.is_none() {
                r.end = Some((now, end));
            }
        });
    }
}

// ---------------------------------------------------------------------------
// Over HTTP: the client's request names itself in a header, and the server's
// handling of it runs as that request.

/// The header a traced HTTP call carries: `<trace>:<n>`.
pub(crate) const REQUEST_HEADER: &str = "workbook-trace-request";

/// The header value naming the request of this task, if a burst is recorded.
pub(crate) fn request_header() -> Option<String> {
    REQUEST
        .try_with(|tag| format!("{}:{}", tag.live.id, tag.n))
        .ok()
}

/// `router`, its handlers run as the burst's request that sent each HTTP
/// request ([`REQUEST_HEADER`]): the connections they take are named after it,
/// so the trace holds what the server did for each request. A request without
/// the header (outside a burst, or not recorded) runs as it would anyway.
pub fn traced(router: axum::Router) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        |request: axum::extract::Request, next: axum::middleware::Next| async move {
            let tag = request
                .headers()
                .get(REQUEST_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(|value| {
                    let (id, n) = value.rsplit_once(':')?;
                    let live = live_traces().lock().ok()?.get(id)?.upgrade()?;
                    Some(Tag {
                        live,
                        n: n.parse().ok()?,
                    })
                });
            match tag {
                Some(tag) => REQUEST.scope(tag, next.run(request)).await,
                None => next.run(request).await,
            }
        },
    ))
}

// ---------------------------------------------------------------------------
// The pools: hooks that name each connection after its request.

/// The comment a naming statement starts with; the relay reads it.
const MARKER: &str = "/* workbook-trace ";

/// The statement that names a connection after the request of this task (or
/// after none); `how`: `opened` (a connection just opened for it), `acquired`
/// (an idle one handed to it), `again` (the name alone, after settings the
/// role may not make: no second event).
fn naming(tag: Option<&Tag>, how: &str) -> (String, String) {
    let (owner, name) = match tag {
        Some(tag) => (
            format!("{}:{}", tag.live.id, tag.n),
            format!("wb:{}:{}", tag.live.id, tag.n),
        ),
        None => ("-".to_owned(), "wb".to_owned()),
    };
    (format!("{MARKER}{owner} {how} */"), name)
}

/// A pool on `db`'s database whose connections are named after the requests
/// that take them, through `relay` (none: a `DATABASE_URL` server, whose
/// connections are not relayed: the hooks record when each request got one).
pub(crate) fn pool(relay: Option<&Relay>, direct: &PgConnectOptions, size: PoolSize) -> PgPool {
    let relayed = relay.is_some();
    let options = relay.map_or_else(|| direct.clone(), |r| r.options.clone());
    PgPoolOptions::new()
        .max_connections(size.max_connections)
        .acquire_timeout(size.acquire_timeout)
        // A fresh test database has nothing to check; skip the round trip.
        .test_before_acquire(false)
        .after_connect(move |conn, _meta| {
            Box::pin(async move {
                let tag = REQUEST.try_with(Tag::clone).ok();
                if relayed {
                    name_and_report_waits(conn, tag.as_ref()).await;
                } else if let Some(tag) = &tag {
                    connection_event(tag, true);
                }
                Ok(())
            })
        })
        .before_acquire(move |conn, _meta| {
            Box::pin(async move {
                let tag = REQUEST.try_with(Tag::clone).ok();
                if relayed {
                    // Outside a burst nobody reads the name: no round trip.
                    if tag.is_some() || ACTIVE.load(Ordering::Relaxed) > 0 {
                        let (marker, name) = naming(tag.as_ref(), "acquired");
                        let _ = conn
                            .execute(AssertSqlSafe(format!(
                                "{marker} SET application_name = '{name}'"
                            )))
                            .await;
                    }
                } else if let Some(tag) = &tag {
                    connection_event(tag, false);
                }
                Ok(true)
            })
        })
        .connect_lazy_with(options)
}

/// A connection's first statement: its name, and its lock waits reported to it
/// (when the role may ask for that).
async fn name_and_report_waits(conn: &mut PgConnection, tag: Option<&Tag>) {
    let (marker, name) = naming(tag, "opened");
    if LOCK_REPORTS.load(Ordering::Relaxed) != REFUSED {
        let settings = format!(
            "{marker} SELECT set_config('application_name', '{name}', false), \
             set_config('lc_messages', 'C', false), \
             set_config('client_min_messages', 'log', false), \
             set_config('log_lock_waits', 'on', false), \
             set_config('deadlock_timeout', '{}ms', false)",
            LOCK_WAITS_FROM.as_millis()
        );
        match conn.execute(AssertSqlSafe(settings)).await {
            Ok(_) => {
                LOCK_REPORTS.store(ON, Ordering::Relaxed);
                return;
            }
            // insufficient_privilege: not a superuser; the name alone, then.
            Err(e) if e.as_database_error().and_then(|d| d.code()).as_deref() == Some("42501") => {
                LOCK_REPORTS.store(REFUSED, Ordering::Relaxed);
            }
            Err(_) => return,
        }
    }
    let (again, _) = naming(tag, "again");
    let _ = conn
        .execute(AssertSqlSafe(format!(
            "{again} SET application_name = '{name}'"
        )))
        .await;
}

/// Records that the tagged request got a connection now (not relayed: the
/// connection has no number).
fn connection_event(tag: &Tag, opened: bool) {
    let at_us = tag.live.micros(Instant::now());
    tag.live.push(
        tag.n,
        Event::Connection {
            at_us,
            connection: 0,
            opened,
        },
    );
}

// ---------------------------------------------------------------------------
// The relay: one listening socket per test database, in a directory of this
// process that a supervisor shell removes when the process ends, however.

/// The directory of this process's relay sockets (none when it cannot be made).
fn socket_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<(PathBuf, Child)>> = OnceLock::new();
    DIR.get_or_init(|| {
        // Kept for the whole process: its janitor removes it when the process ends.
        let (dir, janitor) = wire::janitored_dir("workbook-trace").ok()?;
        std::fs::create_dir(&dir).ok()?;
        Some((dir, janitor))
    })
    .as_ref()
    .map(|(dir, _)| dir)
}

static NEXT_SOCKET: AtomicU32 = AtomicU32::new(0);
static NEXT_CONNECTION: AtomicU32 = AtomicU32::new(0);

/// The relay of one test database's pools.
pub(crate) struct Relay {
    /// The database's options, through the relay.
    options: PgConnectOptions,
    socket: PathBuf,
    accept: tokio::task::AbortHandle,
}

impl Relay {
    /// A relay to `direct`'s server, when recording is on and the server may be
    /// relayed (not a `DATABASE_URL` one), on the current tokio runtime.
    pub(crate) fn start(direct: &PgConnectOptions) -> Option<Relay> {
        if !enabled() {
            return None;
        }
        if crate::backend().ok()?.choice == BackendChoice::Url {
            return None;
        }
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let dir = socket_dir()?;
        // A port number of its own names the socket (`.s.PGSQL.<port>`).
        let port = 20_000 + (NEXT_SOCKET.fetch_add(1, Ordering::Relaxed) % 40_000) as u16;
        let socket = dir.join(format!(".s.PGSQL.{port}"));
        let _guard = runtime.enter();
        let listener = UnixListener::bind(&socket).ok()?;
        let upstream = Upstream::of(direct);
        let lookups = Lookups::start(direct.clone().application_name("wb:look"));
        let accept = runtime
            .spawn(async move {
                while let Ok((client, _)) = listener.accept().await {
                    let conn = Arc::new(Mutex::new(Conn::new(lookups.clone())));
                    let upstream = upstream.clone();
                    tokio::spawn(async move {
                        wire::relay_to(client, &upstream, move |side, kind, body| {
                            if let Ok(mut conn) = conn.lock() {
                                conn.on(side, kind, body);
                            }
                            wire::Pass::On
                        })
                        .await;
                    });
                }
            })
            .abort_handle();
        Some(Relay {
            options: direct
                .clone()
                .socket(dir)
                .port(port)
                .ssl_mode(PgSslMode::Disable),
            socket,
            accept,
        })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.accept.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// A statement being recorded: its trace, request and event.
#[derive(Clone)]
struct Recorded {
    live: Arc<Live>,
    n: usize,
    event: usize,
}

enum Pending {
    /// A naming statement of the hooks: not the request's.
    Naming {
        answered: bool,
    },
    /// A simple query: done at its `ReadyForQuery`.
    Simple {
        recorded: Option<Recorded>,
        answered: bool,
        outcome: Option<Outcome>,
    },
    /// An extended-protocol execution: done at its `CommandComplete`.
    Execute {
        recorded: Option<Recorded>,
        answered: bool,
    },
    Sync,
}

/// One relayed connection, as the protocol goes.
struct Conn {
    id: u32,
    owner: Option<(Arc<Live>, usize)>,
    /// Statements prepared on it, by name: their text, and when the `Parse` was
    /// sent (a statement's first execution counts from its preparation).
    prepared: HashMap<String, (String, Option<Instant>)>,
    bound: String,
    pending: VecDeque<Pending>,
    /// Statements finished since the last `ReadyForQuery`: it tells their
    /// transaction status.
    finished: Vec<Recorded>,
    lookups: Lookups,
}

/// An error or notice's fields: type byte and value.
fn fields(body: &[u8]) -> HashMap<u8, String> {
    let mut out = HashMap::new();
    let mut rest = body;
    while let Some((&kind, after)) = rest.split_first() {
        if kind == 0 {
            break;
        }
        let (value, next) = split_cstr(after);
        out.insert(kind, value);
        rest = next;
    }
    out
}

impl Conn {
    fn new(lookups: Lookups) -> Self {
        Self {
            id: NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed) + 1,
            owner: None,
            prepared: HashMap::new(),
            bound: String::new(),
            pending: VecDeque::new(),
            finished: Vec::new(),
            lookups,
        }
    }

    fn on(&mut self, side: Side, kind: u8, body: &[u8]) {
        let now = Instant::now();
        match (side, kind) {
            (Side::Frontend, b'Q') => {
                let (sql, _) = split_cstr(body);
                if let Some(rest) = sql.strip_prefix(MARKER) {
                    self.named(rest, now);
                    self.pending.push_back(Pending::Naming { answered: false });
                } else {
                    let recorded = self.record(&sql, now);
                    self.pending.push_back(Pending::Simple {
                        recorded,
                        answered: false,
                        outcome: None,
                    });
                }
            }
            (Side::Frontend, b'P') => {
                let (name, rest) = split_cstr(body);
                let (sql, _) = split_cstr(rest);
                self.prepared.insert(name, (sql, Some(now)));
            }
            (Side::Frontend, b'B') => {
                let (_portal, rest) = split_cstr(body);
                self.bound = split_cstr(rest).0;
            }
            (Side::Frontend, b'E') => {
                let (sql, sent) = match self.prepared.get_mut(&self.bound) {
                    Some((sql, parsed)) => (sql.clone(), parsed.take().unwrap_or(now)),
                    None => (String::new(), now),
                };
                let recorded = self.record(&sql, sent);
                self.pending.push_back(Pending::Execute {
                    recorded,
                    answered: false,
                });
            }
            (Side::Frontend, b'S') => self.pending.push_back(Pending::Sync),
            (Side::Backend, b'C') | (Side::Backend, b'I') | (Side::Backend, b's') => {
                let tag = if kind == b'C' {
                    split_cstr(body).0
                } else {
                    String::new()
                };
                self.answered(Some(Outcome::Done { tag }), now, false);
            }
            (Side::Backend, b'E') => {
                let sqlstate = fields(body).remove(&b'C').unwrap_or_default();
                self.answered(Some(Outcome::Failed { sqlstate }), now, true);
            }
            (Side::Backend, b'N') => self.notice(body, now),
            (Side::Backend, b'Z') => {
                let status = body.first().map(|b| char::from(*b));
                self.ready(status, now);
            }
            _ => {}
        }
    }

    /// A naming statement: from now on the connection is that request's.
    fn named(&mut self, rest: &str, now: Instant) {
        let Some((owner, how)) = rest.split_once(' ') else {
            return;
        };
        if how.starts_with("again") {
            return;
        }
        let opened = how.starts_with("opened");
        self.owner = owner.rsplit_once(':').and_then(|(id, n)| {
            let live = live_traces().lock().ok()?.get(id)?.upgrade()?;
            Some((live, n.parse().ok()?))
        });
        if let Some((live, n)) = &self.owner {
            live.relayed.store(true, Ordering::Relaxed);
            let at_us = live.micros(now);
            live.push(
                *n,
                Event::Connection {
                    at_us,
                    connection: self.id,
                    opened,
                },
            );
        }
    }

    /// Records a statement sent at `sent` for the connection's owner.
    fn record(&mut self, sql: &str, sent: Instant) -> Option<Recorded> {
        let (live, n) = self.owner.clone()?;
        let event = live.push(
            n,
            Event::Statement {
                at_us: live.micros(sent),
                until_us: None,
                connection: self.id,
                sql: one_line(sql),
                outcome: None,
                tx_after: None,
            },
        )?;
        Some(Recorded { live, n, event })
    }

    /// The first statement without its answer got `outcome`.
    fn answered(&mut self, outcome: Option<Outcome>, now: Instant, error: bool) {
        let mut skipping = false;
        let mut index = 0;
        while index < self.pending.len() {
            match &mut self.pending[index] {
                Pending::Naming { answered } if !*answered && !skipping => {
                    *answered = true;
                    return;
                }
                Pending::Simple {
                    answered: done @ false,
                    outcome: kept,
                    ..
                } if !skipping => {
                    // A simple query may hold several statements: the last
                    // answer (or the first error) stands for it.
                    if kept
                        .as_ref()
                        .is_none_or(|o| matches!(o, Outcome::Done { .. }))
                    {
                        *kept = outcome.clone();
                    }
                    if error {
                        *done = true;
                    }
                    return;
                }
                Pending::Execute {
                    recorded,
                    answered: done @ false,
                } => {
                    *done = true;
                    let recorded = recorded.clone();
                    let outcome = if skipping { None } else { outcome.clone() };
                    if let Some(r) = &recorded {
                        finish(r, outcome, now);
                        self.finished.push(r.clone());
                    }
                    if !error {
                        return;
                    }
                    // After an error, the executions up to the next Sync are
                    // skipped by the server: they never run.
                    skipping = true;
                }
                Pending::Sync if skipping => return,
                _ => {}
            }
            index += 1;
        }
    }

    /// `ReadyForQuery`: the exchange up to it is over; `status` is the
    /// transaction status after it.
    fn ready(&mut self, status: Option<char>, now: Instant) {
        while let Some(item) = self.pending.pop_front() {
            match item {
                Pending::Naming { .. } => break,
                Pending::Sync => break,
                Pending::Simple {
                    recorded, outcome, ..
                } => {
                    if let Some(r) = recorded {
                        finish(&r, outcome, now);
                        self.finished.push(r);
                    }
                    break;
                }
                Pending::Execute { recorded, answered } => {
                    if let (Some(r), false) = (recorded, answered) {
                        finish(&r, None, now);
                        self.finished.push(r);
                    }
                }
            }
        }
        for r in self.finished.drain(..) {
            r.live.patch(r.n, r.event, |e| {
                if let Event::Statement { tx_after, .. } = e {
                    *tx_after = status;
                }
            });
        }
    }

    /// A notice: PostgreSQL's report of a lock wait of this session.
    fn notice(&mut self, body: &[u8], now: Instant) {
        let fields = fields(body);
        if fields.get(&b'V').map(String::as_str) != Some("LOG") {
            return;
        }
        let Some(report) = fields.get(&b'M').and_then(|m| LockReport::parse(m)) else {
            return;
        };
        let Some((live, n)) = self.owner.clone() else {
            return;
        };
        let took = Duration::from_secs_f64(report.after_ms / 1000.0);
        match report.kind {
            ReportKind::StillWaiting => {
                let at_us = live.micros(now.checked_sub(took).unwrap_or(now));
                // A backend woken while it still waits reports the same wait
                // again ("still waiting ... after" a longer time): one wait.
                let id = self.id;
                let event = live
                    .with(n, |r| {
                        let again = r.events.iter().any(|e| {
                            matches!(e, Event::LockWait { connection, lock, until_us: None, .. }
                                if *connection == id && *lock == report.lock)
                        });
                        if again {
                            return None;
                        }
                        r.events.push(Event::LockWait {
                            at_us,
                            until_us: None,
                            connection: id,
                            lock: report.lock.clone(),
                            blocked_by: None,
                        });
                        Some(r.events.len() - 1)
                    })
                    .flatten();
                if let Some(event) = event {
                    self.lookups.ask(Lookup {
                        live,
                        n,
                        event,
                        waiter: report.pid,
                    });
                }
            }
            ReportKind::Acquired => {
                let id = self.id;
                live.with(n, |r| {
                    let open = r.events.iter_mut().rev().find(|e| {
                        matches!(e, Event::LockWait { connection, lock, until_us: None, .. }
                            if *connection == id && *lock == report.lock)
                    });
                    if let Some(Event::LockWait {
                        at_us, until_us, ..
                    }) = open
                    {
                        *until_us = Some(*at_us + took.as_micros() as u64);
                    }
                });
            }
        }
    }
}

/// A statement answered (or given up) at `now`: its end, its outcome, and the
/// end of any lock wait of it PostgreSQL did not report the end of (a lock
/// timeout, a deadlock, a cancel).
fn finish(r: &Recorded, outcome: Option<Outcome>, now: Instant) {
    let until = r.live.micros(now);
    r.live.with(r.n, |record| {
        let mut connection_of = None;
        if let Some(Event::Statement {
            until_us,
            outcome: kept,
            connection,
            ..
        }) = record.events.get_mut(r.event)
        {
            *until_us = Some(until);
            *kept = outcome;
            connection_of = Some(*connection);
        }
        for event in &mut record.events {
            if let Event::LockWait {
                connection,
                until_us: open @ None,
                ..
            } = event
                && Some(*connection) == connection_of
            {
                *open = Some(until);
            }
        }
    });
}

#[derive(Debug, PartialEq)]
enum ReportKind {
    StillWaiting,
    Acquired,
}

/// PostgreSQL's report of a lock wait (`log_lock_waits`, in `lc_messages = C`):
/// `process 4636 still waiting for ShareLock on transaction 725 after 1.012 ms`,
/// `process 4636 acquired ShareLock on transaction 725 after 187.884 ms`.
#[derive(Debug, PartialEq)]
struct LockReport {
    kind: ReportKind,
    pid: u32,
    lock: String,
    after_ms: f64,
}

impl LockReport {
    fn parse(message: &str) -> Option<LockReport> {
        let rest = message.strip_prefix("process ")?;
        let (pid, rest) = rest.split_once(' ')?;
        let (kind, rest) = if let Some(rest) = rest.strip_prefix("still waiting for ") {
            (ReportKind::StillWaiting, rest)
        } else {
            (ReportKind::Acquired, rest.strip_prefix("acquired ")?)
        };
        let (lock, after) = rest.rsplit_once(" after ")?;
        Some(LockReport {
            kind,
            pid: pid.parse().ok()?,
            lock: lock.to_owned(),
            after_ms: after.strip_suffix(" ms")?.parse().ok()?,
        })
    }
}

// ---------------------------------------------------------------------------
// Who holds the lock: asked of PostgreSQL at the waiter's first report.

struct Lookup {
    live: Arc<Live>,
    n: usize,
    event: usize,
    waiter: u32,
}

#[derive(Clone)]
struct Lookups {
    ask: mpsc::UnboundedSender<Lookup>,
}

impl Lookups {
    /// A task asking on a connection of its own (opened at the first question).
    fn start(options: PgConnectOptions) -> Lookups {
        let (ask, mut questions) = mpsc::unbounded_channel::<Lookup>();
        tokio::spawn(async move {
            let mut conn: Option<PgConnection> = None;
            while let Some(first) = questions.recv().await {
                let mut batch = vec![first];
                while let Ok(more) = questions.try_recv() {
                    batch.push(more);
                }
                if conn.is_none() {
                    conn = PgConnection::connect_with(&options).await.ok();
                }
                let Some(c) = conn.as_mut() else {
                    for lookup in &batch {
                        lookup.live.asked.fetch_add(1, Ordering::Release);
                    }
                    continue;
                };
                let waiters: Vec<i32> = batch.iter().map(|l| l.waiter as i32).collect();
                let holders = sqlx::query_as::<_, (i32, i32, String)>(
                    "SELECT w.pid, b.pid, coalesce(b.application_name, '')
                     FROM unnest($1::int4[]) AS w(pid)
                     CROSS JOIN LATERAL unnest(pg_blocking_pids(w.pid)) AS held(pid)
                     JOIN pg_stat_activity b ON b.pid = held.pid",
                )
                .bind(&waiters)
                .fetch_all(&mut *c)
                .await
                .unwrap_or_default();
                for lookup in batch {
                    let mine: Vec<&(i32, i32, String)> = holders
                        .iter()
                        .filter(|(w, _, _)| *w == lookup.waiter as i32)
                        .collect();
                    let holder = mine
                        .iter()
                        .map(|(_, pid, name)| holder_of(&lookup.live.id, *pid as u32, name))
                        // A request of the burst first, then the gate, then others.
                        .min_by_key(|h| match h {
                            Holder::Request { .. } => 0,
                            Holder::Gate => 1,
                            Holder::Other { .. } => 2,
                        });
                    if let Some(holder) = holder {
                        lookup.live.patch(lookup.n, lookup.event, |e| {
                            if let Event::LockWait { blocked_by, .. } = e {
                                *blocked_by = Some(holder);
                            }
                        });
                    }
                    lookup.live.asked.fetch_add(1, Ordering::Release);
                }
            }
            if let Some(conn) = conn {
                let _ = conn.close().await;
            }
        });
        Lookups { ask }
    }

    fn ask(&self, lookup: Lookup) {
        let _ = self.ask.send(lookup);
    }
}

/// The application name of a holder: a request of trace `trace`, the gate, or
/// another session.
fn holder_of(trace: &str, pid: u32, application_name: &str) -> Holder {
    if application_name == GATE_NAME {
        return Holder::Gate;
    }
    let request = application_name
        .strip_prefix("wb:")
        .and_then(|rest| rest.rsplit_once(':'))
        .filter(|(id, _)| *id == trace)
        .and_then(|(_, n)| n.parse().ok());
    match request {
        Some(n) => Holder::Request { n },
        None => Holder::Other {
            pid,
            application_name: application_name.to_owned(),
        },
    }
}

/// The application name of the test's gate connection.
pub(crate) const GATE_NAME: &str = "wb:gate";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_reports_are_read_as_postgresql_writes_them() {
        assert_eq!(
            LockReport::parse(
                "process 4636 still waiting for ShareLock on transaction 725 after 8.251 ms"
            ),
            Some(LockReport {
                kind: ReportKind::StillWaiting,
                pid: 4636,
                lock: "ShareLock on transaction 725".into(),
                after_ms: 8.251
            })
        );
        assert_eq!(
            LockReport::parse(
                "process 12 acquired ExclusiveLock on tuple (0,1) of relation 16390 of database 16384 after 187.884 ms"
            ),
            Some(LockReport {
                kind: ReportKind::Acquired,
                pid: 12,
                lock: "ExclusiveLock on tuple (0,1) of relation 16390 of database 16384".into(),
                after_ms: 187.884
            })
        );
        assert_eq!(LockReport::parse("duration: 1.0 ms"), None);
    }

    #[test]
    fn a_holder_is_named_by_its_application_name() {
        assert_eq!(holder_of("9.1", 5, "wb:9.1:1"), Holder::Request { n: 1 });
        assert_eq!(holder_of("9.1", 5, GATE_NAME), Holder::Gate);
        assert_eq!(
            holder_of("9.1", 5, "wb:9.2:1"),
            Holder::Other {
                pid: 5,
                application_name: "wb:9.2:1".into()
            },
            "a request of another burst is not one of this burst"
        );
    }
}
