//! A fake payment provider on 127.0.0.1: the effect no database transaction can
//! roll back (stage 11).
//!
//! It speaks plain HTTP/1.1, one request per connection, on an ephemeral port:
//! `POST /charges` with an `Idempotency-Key` header and a body `{"amount": n}`.
//! It keeps its own idempotency the way Stripe documents it: the status and body
//! of the first request with a key are saved once the endpoint began executing,
//! errors included, and every later request with that key gets them again
//! (`Idempotent-Replayed: true`) without a new charge; the same key with another
//! amount is refused with Stripe's `400` (`idempotency_error`; the IETF draft's
//! code for it is 422); a request whose key is still executing is refused (409)
//! and nothing is saved for it. A failure before the endpoint began
//! (`FailBeforeCharging`, `TurnAway`) saves nothing either, and keys can be
//! forgotten, as a provider prunes them ([`FakeProvider::forget_keys`]). Its list
//! of charges is the test's source of truth: how many times was the card charged?
//!
//! On cue it fails the way a provider does. A fault applies to one request, in
//! the order they arrive; held requests wait for the test, never for a clock.

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use l10n::t;
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
    /// Answers `503` before the endpoint began executing: nothing is charged or
    /// saved, and a retry with the key is a first request.
    FailBeforeCharging,
    /// Declines the card (`402`): nothing is charged, and the decline is saved as
    /// the key's answer, replayed to every retry with it.
    Decline,
    /// Fails inside the endpoint (`500`): nothing is charged, and the error is
    /// saved as the key's answer, replayed to every retry with it.
    FailWhileCharging,
    /// Charges, then fails (`500`), and saves that error as the key's answer:
    /// the card is charged, and every answer for the key says it failed (what
    /// Stripe calls rolling a failed charge forward).
    ChargeThenFail,
    /// Charges (or replays), and answers with this 2xx status (`201`, `202`)
    /// instead of `200`, saved as the key's answer.
    ChargeAnswering(u16),
    /// Charges (or replays), and answers `200` with a body that has no charge
    /// id, saved as the key's answer.
    ChargeWithoutId,
    /// The endpoint refuses with this 4xx (a request it found wrong once it
    /// began), saved as the key's answer: nothing is charged.
    RefuseWhileCharging(u16),
    /// Answers this status before the idempotency layer (a rate limiter's
    /// `429`, `408`, `401`, `403`, `404`, a `400` for a malformed request):
    /// nothing is charged or saved, and a retry with the key is a first request.
    TurnAway(u16),
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
    /// Begins executing (a request with the same key is now refused with 409),
    /// then holds until the test calls [`FakeProvider::release_held`] (it is
    /// charged and answered) or [`FakeProvider::drop_held`] (it is charged, and
    /// the connection is closed without the answer).
    HoldWhileCharging,
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

/// A key's saved answer, and the amount it was first sent with.
#[derive(Debug, Clone)]
struct Saved {
    amount: i64,
    status: u16,
    body: Value,
}

#[derive(Default)]
struct Ledger {
    faults: VecDeque<ProviderFault>,
    requests: Vec<ProviderRequest>,
    charges: Vec<Charge>,
    /// The saved answer of every key whose endpoint began executing.
    answers: HashMap<String, Saved>,
    /// The keys whose request is executing now.
    executing: HashSet<String>,
    /// Requests held by the test: `true` lets one go on, `false` drops it.
    held: Vec<oneshot::Sender<bool>>,
    /// Whether an answer that is not a replay says so (`Idempotent-Replayed:
    /// false`), as some providers do; Stripe sends the header only on a replay.
    says_not_replayed: bool,
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

    /// Waits (bounded) until `n` requests are held by `AnswerLate`,
    /// `HoldBeforeCharging` or `HoldWhileCharging`.
    pub async fn wait_until_held(&self, n: usize) {
        self.wait_until_held_unless(n, || false).await;
    }

    /// Like [`wait_until_held`](Self::wait_until_held), for the `n`th request,
    /// running in `request`: fails at once, not at the bound, when that request
    /// ends without reaching the provider (it answered from our database).
    pub async fn wait_until_held_by<T>(&self, n: usize, request: &tokio::task::JoinHandle<T>) {
        self.wait_until_held_unless(n, || request.is_finished())
            .await;
    }

    async fn wait_until_held_unless(&self, n: usize, ended: impl Fn() -> bool) {
        let deadline = Instant::now() + CONDITION_BOUND;
        loop {
            let held = lock(&self.ledger).held.len();
            if held >= n {
                return;
            }
            if ended() {
                panic!(
                    "{}",
                    t!(
                        crate::messages::MESSAGES,
                        "provider-request-not-held",
                        number = n,
                        held = held
                    )
                );
            }
            if Instant::now() > deadline {
                panic!(
                    "{}",
                    t!(
                        crate::messages::MESSAGES,
                        "provider-waited-held",
                        seconds = crate::messages::MESSAGES
                            .current()
                            .decimal(CONDITION_BOUND.as_secs_f64(), 0),
                        count = n,
                        held = held
                    )
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

    /// Drops every held request: its connection is closed without an answer
    /// (a request held before charging is never charged).
    pub fn drop_held(&self) {
        for held in lock(&self.ledger).held.drain(..) {
            let _ = held.send(false);
        }
    }

    /// Lets the request held first go on, as [`FakeProvider::release_held`]
    /// does, and keeps the others held.
    pub fn release_first_held(&self) {
        let mut ledger = lock(&self.ledger);
        if !ledger.held.is_empty() {
            let _ = ledger.held.remove(0).send(true);
        }
    }

    /// From now on, every answer that is not a replay carries
    /// `Idempotent-Replayed: false`.
    pub fn say_not_replayed(&self) {
        lock(&self.ledger).says_not_replayed = true;
    }

    /// Forgets every saved answer, as a provider prunes its idempotency keys
    /// (Stripe: once they are at least 24 hours old): a key sent again is a new
    /// request, charged again. The charges stay.
    pub fn forget_keys(&self) {
        lock(&self.ledger).answers.clear();
    }

    /// Drops the request held first, as [`FakeProvider::drop_held`] does, and
    /// keeps the others held.
    pub fn drop_first_held(&self) {
        let mut ledger = lock(&self.ledger);
        if !ledger.held.is_empty() {
            let _ = ledger.held.remove(0).send(false);
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
            None,
        )
        .await;
    }
    let (Some(key), Some(amount)) = (key, amount) else {
        let error =
            json!({"error": "an Idempotency-Key header and a body {\"amount\": n} are required"});
        return answer(&mut stream, 400, &error, None).await;
    };
    let not_replayed = lock(&ledger).says_not_replayed.then_some(false);
    match fault {
        ProviderFault::FailBeforeCharging => {
            let error = json!({"error": "the provider is unavailable; nothing was charged"});
            return answer(&mut stream, 503, &error, not_replayed).await;
        }
        ProviderFault::TurnAway(status) => {
            let error = json!({"error": {"type": "invalid_request_error",
                                         "message": "turned away before the idempotency layer"}});
            return answer(&mut stream, status, &error, not_replayed).await;
        }
        ProviderFault::HoldBeforeCharging if !held(&ledger).await => return,
        _ => {}
    }
    let executing = match begin(&ledger, &key, amount) {
        Begun::Executing => fault,
        Begun::Replayed(saved) => {
            return answer(&mut stream, saved.status, &saved.body, Some(true)).await;
        }
        Begun::Refused(status, error) => {
            return answer(&mut stream, status, &error, not_replayed).await;
        }
    };
    let delivered = match executing {
        ProviderFault::HoldWhileCharging => held(&ledger).await,
        _ => true,
    };
    let saved = execute(&ledger, &key, amount, executing);
    match executing {
        ProviderFault::ChargeThenDropAnswer => {}
        ProviderFault::AnswerLate if !held(&ledger).await => {}
        _ if !delivered => {}
        _ => answer(&mut stream, saved.status, &saved.body, not_replayed).await,
    }
}

/// What a request with a key finds at the provider's idempotency layer.
enum Begun {
    /// The endpoint begins executing it: its key is marked as executing.
    Executing,
    /// The key's saved answer, sent again.
    Replayed(Saved),
    /// Refused before the endpoint began: nothing is saved.
    Refused(u16, Value),
}

/// The provider's idempotency layer, before the endpoint: a saved answer is
/// replayed (or refused for another amount); a key that is executing is refused
/// with 409, and nothing is saved for that request.
fn begin(ledger: &Mutex<Ledger>, key: &str, amount: i64) -> Begun {
    let mut ledger = lock(ledger);
    if let Some(saved) = ledger.answers.get(key) {
        if saved.amount != amount {
            // Stripe's answer: 400, an `idempotency_error` (the IETF draft's is 422).
            let error = json!({"error": {"type": "idempotency_error",
                                         "message": "this Idempotency-Key was used with other parameters"}});
            return Begun::Refused(400, error);
        }
        return Begun::Replayed(saved.clone());
    }
    if !ledger.executing.insert(key.to_owned()) {
        let error = json!({"error": "a request with this Idempotency-Key is being processed"});
        return Begun::Refused(409, error);
    }
    Begun::Executing
}

/// The endpoint: charges (or declines, or fails), saves the answer as the key's,
/// and ends the key's execution.
fn execute(ledger: &Mutex<Ledger>, key: &str, amount: i64, fault: ProviderFault) -> Saved {
    let mut ledger = lock(ledger);
    let (status, body) = match fault {
        ProviderFault::Decline => (
            402,
            json!({"error": {"type": "card_error", "code": "card_declined"}}),
        ),
        ProviderFault::FailWhileCharging => (
            500,
            json!({"error": {"type": "api_error", "message": "the charge failed; nothing was charged"}}),
        ),
        ProviderFault::RefuseWhileCharging(status) => (
            status,
            json!({"error": {"type": "invalid_request_error", "message": "the charge was refused"}}),
        ),
        _ => {
            let id = format!("ch_{}", ledger.charges.len() + 1);
            let body = json!({"id": id, "amount": amount, "status": "succeeded"});
            ledger.charges.push(Charge {
                id,
                idempotency_key: key.to_owned(),
                amount,
            });
            match fault {
                ProviderFault::ChargeThenFail => (
                    500,
                    json!({"error": {"type": "api_error", "message": "an error occurred"}}),
                ),
                ProviderFault::ChargeAnswering(status) => (status, body),
                ProviderFault::ChargeWithoutId => {
                    (200, json!({"amount": amount, "status": "succeeded"}))
                }
                _ => (200, body),
            }
        }
    };
    let saved = Saved {
        amount,
        status,
        body,
    };
    ledger.answers.insert(key.to_owned(), saved.clone());
    ledger.executing.remove(key);
    saved
}

/// Sends one answer; `replayed` is the `Idempotent-Replayed` header, if any.
async fn answer(stream: &mut TcpStream, status: u16, body: &Value, replayed: Option<bool>) {
    let body = body.to_string();
    let replayed = match replayed {
        Some(replayed) => format!("idempotent-replayed: {replayed}\r\n"),
        None => String::new(),
    };
    let reason = match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Other",
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
