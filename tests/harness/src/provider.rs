//! A fake payment provider on 127.0.0.1: the effect no database transaction can
//! roll back (stage 11).
//!
//! It speaks plain HTTP/1.1, one request per connection, on an ephemeral port:
//! `POST /charges` with an `Idempotency-Key` header and a body `{"amount": n}`.
//! Like a real provider, it keeps its own idempotency: the first request with a
//! key charges the card and stores its answer, and every later request with that
//! key gets the same answer again (`Idempotent-Replayed: true`) without a new
//! charge; the same key with another amount is refused (422). Its list of charges
//! is the test's source of truth: how many times was the card charged?
//!
//! On cue it fails the way a provider does. A fault applies to one request, in
//! the order they arrive; held requests wait for the test, never for a clock.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::gate::CONDITION_BOUND;

/// What the provider does with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderFault {
    /// Charges (or replays the key's charge) and answers.
    Pass,
    /// Answers `503` without charging: a failure the caller may retry.
    FailBeforeCharging,
    /// Charges (or replays), then closes the connection without answering: the
    /// card is charged, and the caller cannot know it.
    ChargeThenDropAnswer,
    /// Charges (or replays), then holds the answer until the test calls
    /// [`FakeProvider::release_held`] (the answer is sent) or
    /// [`FakeProvider::drop_held`] (the connection is closed without it).
    AnswerLate,
    /// Holds the request before charging until the test calls
    /// [`FakeProvider::release_held`] (it is then charged and answered) or
    /// [`FakeProvider::drop_held`] (nothing is charged, no answer is sent).
    HoldBeforeCharging,
}

/// One charge of the card: what the provider really did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    pub id: String,
    pub idempotency_key: String,
    pub amount: i64,
}

/// One request as the provider received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRequest {
    pub fault: ProviderFault,
    /// Its `Idempotency-Key` header, as sent.
    pub idempotency_key: Option<String>,
    pub amount: Option<i64>,
}

#[derive(Default)]
struct Ledger {
    faults: VecDeque<ProviderFault>,
    requests: Vec<ProviderRequest>,
    charges: Vec<Charge>,
    /// The stored answer (status, body) of every key seen, and its amount.
    answers: HashMap<String, (i64, Value)>,
    /// Requests held by the test: `true` lets one go on, `false` drops it.
    held: Vec<oneshot::Sender<bool>>,
}

/// The provider, serving until it is dropped (its connections with it).
pub struct FakeProvider {
    addr: SocketAddr,
    ledger: Arc<Mutex<Ledger>>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        // Dropping the accept task drops its JoinSet, which aborts every connection.
        self.server.abort();
    }
}

/// No connection waits longer than this for its peer.
const PEER_BOUND: Duration = Duration::from_secs(10);

impl FakeProvider {
    /// Starts the provider on an ephemeral port of 127.0.0.1.
    pub async fn start() -> FakeProvider {
        let listener = match TcpListener::bind("127.0.0.1:0").await {
            Ok(listener) => listener,
            Err(e) => panic!("harness: the fake provider found no free port on 127.0.0.1: {e}"),
        };
        let addr = match listener.local_addr() {
            Ok(addr) => addr,
            Err(e) => panic!("harness: the fake provider has no address: {e}"),
        };
        let ledger = Arc::new(Mutex::new(Ledger::default()));
        let shared = ledger.clone();
        let server = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                connections.spawn(serve_one(stream, shared.clone()));
                // Forget the finished ones, so the set does not grow with every request.
                while connections.try_join_next().is_some() {}
            }
        });
        FakeProvider {
            addr,
            ledger,
            server,
        }
    }

    /// The base URL to send `POST /charges` to.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The faults for the next requests, in order of arrival; after them, `Pass`.
    pub fn inject(&self, faults: impl IntoIterator<Item = ProviderFault>) {
        lock(&self.ledger).faults.extend(faults);
    }

    /// Every charge so far: the test's answer to "how many times was the card charged?".
    pub fn charges(&self) -> Vec<Charge> {
        lock(&self.ledger).charges.clone()
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<ProviderRequest> {
        lock(&self.ledger).requests.clone()
    }

    /// Waits (bounded) until `n` requests are held by `AnswerLate` or `HoldBeforeCharging`.
    pub async fn wait_until_held(&self, n: usize) {
        let deadline = Instant::now() + CONDITION_BOUND;
        loop {
            let held = lock(&self.ledger).held.len();
            if held >= n {
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "waited {:.0} s for {n} request(s) to be held at the fake provider, saw {held}: \
                     did the route call the provider (POST /charges on the URL it was given)?",
                    CONDITION_BOUND.as_secs_f64()
                );
            }
            // Polling a condition, bounded by the deadline above: not timing a race.
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Lets every held request go on: charged (if it was not yet) and answered.
    pub fn release_held(&self) {
        for held in lock(&self.ledger).held.drain(..) {
            let _ = held.send(true);
        }
    }

    /// Drops every held request: no charge is made that was not made already,
    /// and its connection is closed without an answer.
    pub fn drop_held(&self) {
        for held in lock(&self.ledger).held.drain(..) {
            let _ = held.send(false);
        }
    }
}

/// The ledger, even if a test panicked while holding it (its data stays valid:
/// every change is one push or insert).
fn lock(ledger: &Mutex<Ledger>) -> MutexGuard<'_, Ledger> {
    ledger
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits for the test to let a held request go on (`true`) or drop it.
async fn held(ledger: &Mutex<Ledger>) -> bool {
    let (tx, rx) = oneshot::channel();
    lock(ledger).held.push(tx);
    rx.await.unwrap_or(false)
}

async fn serve_one(mut stream: TcpStream, ledger: Arc<Mutex<Ledger>>) {
    let Some((head, body)) = read_request(&mut stream).await else {
        return;
    };
    let key = header(&head, "idempotency-key");
    let amount = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["amount"].as_i64());
    let fault = {
        let mut ledger = lock(&ledger);
        let fault = ledger.faults.pop_front().unwrap_or(ProviderFault::Pass);
        ledger.requests.push(ProviderRequest {
            fault,
            idempotency_key: key.clone(),
            amount,
        });
        fault
    };
    if !head.starts_with("POST /charges ") {
        return answer(
            &mut stream,
            404,
            &json!({"error": "POST /charges only"}),
            false,
        )
        .await;
    }
    let (Some(key), Some(amount)) = (key, amount) else {
        let error =
            json!({"error": "an Idempotency-Key header and a body {\"amount\": n} are required"});
        return answer(&mut stream, 400, &error, false).await;
    };
    match fault {
        ProviderFault::FailBeforeCharging => {
            let error = json!({"error": "the provider is unavailable; nothing was charged"});
            return answer(&mut stream, 503, &error, false).await;
        }
        ProviderFault::HoldBeforeCharging if !held(&ledger).await => return,
        _ => {}
    }
    let (status, body, replayed) = charge_once(&ledger, &key, amount);
    match fault {
        ProviderFault::ChargeThenDropAnswer => {}
        ProviderFault::AnswerLate if !held(&ledger).await => {}
        _ => answer(&mut stream, status, &body, replayed).await,
    }
}

/// The provider's own idempotency: the first request with `key` charges, later
/// ones get its answer again; the same key with another amount is refused.
fn charge_once(ledger: &Mutex<Ledger>, key: &str, amount: i64) -> (u16, Value, bool) {
    let mut ledger = lock(ledger);
    if let Some((first_amount, body)) = ledger.answers.get(key) {
        if *first_amount != amount {
            let error = json!({"error": "this Idempotency-Key was used with another amount"});
            return (422, error, false);
        }
        return (200, body.clone(), true);
    }
    let id = format!("ch_{}", ledger.charges.len() + 1);
    let body = json!({"id": id, "amount": amount, "status": "succeeded"});
    ledger.charges.push(Charge {
        id,
        idempotency_key: key.to_owned(),
        amount,
    });
    ledger
        .answers
        .insert(key.to_owned(), (amount, body.clone()));
    (200, body, false)
}

async fn answer(stream: &mut TcpStream, status: u16, body: &Value, replayed: bool) {
    let body = body.to_string();
    let replayed = if replayed {
        "idempotent-replayed: true\r\n"
    } else {
        ""
    };
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        422 => "Unprocessable Content",
        _ => "Service Unavailable",
    };
    let message = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n{replayed}\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    // The caller may be gone (it crashed while the answer was held): nothing to do.
    let _ = stream.write_all(message.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// One HTTP/1.1 request: its head as text, and a body of `content-length` bytes.
async fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(stream, &mut buf).await?;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = header(&head, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        read_more(stream, &mut buf).await?;
    }
    Some((head, buf[head_end..head_end + length].to_vec()))
}

async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<()> {
    let mut chunk = [0u8; 4096];
    let n = tokio::time::timeout(PEER_BOUND, stream.read(&mut chunk))
        .await
        .ok()?
        .ok()?;
    (n > 0).then(|| buf.extend_from_slice(&chunk[..n]))
}

fn header(head: &str, name: &str) -> Option<String> {
    head.split("\r\n").find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}
