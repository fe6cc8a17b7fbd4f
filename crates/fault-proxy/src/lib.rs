//! A fault-injecting HTTP proxy on 127.0.0.1, between a client and a server.
//!
//! It forwards one request per connection (it asks the server to close after the
//! answer, so every retry comes in on a connection of its own) and, on cue, breaks
//! an exchange the way a network does: the request never arrives, the answer is
//! lost after the server committed, or the answer comes too late; or it holds a
//! request until the test lets it go, so a retry reaches the server exactly when
//! the test wants.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What the proxy does to one exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Forwards the request and the answer.
    Pass,
    /// Reads the request, then closes the connection: the server never sees it.
    DropRequest,
    /// Forwards the request, reads the server's whole answer (so the server has
    /// committed), then closes the client's connection without sending it.
    DropResponse,
    /// Forwards the request and reads the answer, then holds it until the client
    /// gives up and closes the connection (its timeout), and drops it.
    HoldResponseUntilClientGivesUp,
    /// Answers `503 Service Unavailable` itself, without forwarding.
    Answer503,
    /// Answers `408 Request Timeout` itself, without forwarding.
    Answer408,
    /// Answers `429 Too Many Requests` itself, without forwarding, with this
    /// `Retry-After` value (delay-seconds or an HTTP-date).
    Answer429 { retry_after: &'static str },
    /// Forwards the request, reads the server's whole answer (so the server has
    /// committed), then answers the client `200 OK` with an HTML page instead, as
    /// a misconfigured gateway or a captive portal does.
    ReplaceResponseWithHtml,
    /// Reads the request and holds it, unsent, until [`FaultyProxy::release`]
    /// (at most 10 s); then forwards it as [`Fault::Pass`] does.
    HoldRequestUntilReleased,
}

/// One exchange as the proxy saw it.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub fault: Fault,
    /// The request's `Idempotency-Key` header, as sent.
    pub idempotency_key: Option<String>,
    pub reached_server: bool,
    /// The server's answer (status and body), whether or not the client got it.
    pub server_status: Option<u16>,
    pub server_body: Option<String>,
}

pub struct FaultyProxy {
    addr: SocketAddr,
    faults: Arc<Mutex<VecDeque<Fault>>>,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    gate: Arc<Gate>,
}

/// Where [`Fault::HoldRequestUntilReleased`] waits: how many requests are held
/// now, and whether the test let them go.
#[derive(Default)]
struct Gate {
    held: watch::Sender<usize>,
    released: watch::Sender<bool>,
}

/// No exchange waits longer than this for a peer.
const PEER_BOUND: Duration = Duration::from_secs(10);

impl FaultyProxy {
    /// Starts a proxy to `upstream` on an ephemeral port of 127.0.0.1; a test's
    /// shortcut for [`FaultyProxy::bind`] that panics with the reason.
    pub async fn start(upstream: SocketAddr) -> FaultyProxy {
        match FaultyProxy::bind(upstream).await {
            Ok(proxy) => proxy,
            Err(e) => panic!("harness: the proxy found no free port on 127.0.0.1: {e}"),
        }
    }

    /// Starts a proxy to `upstream` on an ephemeral port of 127.0.0.1. It runs on
    /// the current tokio runtime until that runtime ends.
    pub async fn bind(upstream: SocketAddr) -> std::io::Result<FaultyProxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let proxy = FaultyProxy {
            addr,
            faults: Arc::default(),
            exchanges: Arc::default(),
            gate: Arc::default(),
        };
        let (faults, exchanges) = (proxy.faults.clone(), proxy.exchanges.clone());
        let gate = proxy.gate.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let fault = faults
                    .lock()
                    .ok()
                    .and_then(|mut f| f.pop_front())
                    .unwrap_or(Fault::Pass);
                let (exchanges, gate) = (exchanges.clone(), gate.clone());
                tokio::spawn(relay(client, upstream, fault, exchanges, gate));
            }
        });
        Ok(proxy)
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The faults for the next connections, in order; after them, `Pass`.
    pub fn inject(&self, faults: impl IntoIterator<Item = Fault>) {
        if let Ok(mut queue) = self.faults.lock() {
            queue.extend(faults);
        }
    }

    /// Returns once [`Fault::HoldRequestUntilReleased`] holds `n` requests at
    /// the same time (bound it: it waits for as long as none come).
    pub async fn until_held(&self, n: usize) {
        let mut held = self.gate.held.subscribe();
        let _ = held.wait_for(|held| *held >= n).await;
    }

    /// Lets every held request go on to the server, and any held later.
    pub fn release(&self) {
        self.gate.released.send_replace(true);
    }

    /// Every finished exchange so far, in the order they ended.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.exchanges
            .lock()
            .map(|all| all.clone())
            .unwrap_or_default()
    }
}

/// Relays one exchange. It is recorded before the client can see how it ended
/// (its answer, or its connection closing), so a test that reads the exchanges
/// after the client's last try returned finds every one of them.
async fn relay(
    mut client: TcpStream,
    upstream: SocketAddr,
    fault: Fault,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    gate: Arc<Gate>,
) {
    let record = |exchange: Exchange| {
        if let Ok(mut all) = exchanges.lock() {
            all.push(exchange);
        }
    };
    let mut exchange = Exchange {
        fault,
        idempotency_key: None,
        reached_server: false,
        server_status: None,
        server_body: None,
    };
    let Some(request) = read_request(&mut client).await else {
        return record(exchange);
    };
    exchange.idempotency_key = header(&request, "idempotency-key");
    let own_answer = match fault {
        Fault::DropRequest => return record(exchange),
        Fault::Answer503 => Some((503, "Service Unavailable", None)),
        Fault::Answer408 => Some((408, "Request Timeout", None)),
        Fault::Answer429 { retry_after } => Some((429, "Too Many Requests", Some(retry_after))),
        _ => None,
    };
    if let Some((status, reason, retry_after)) = own_answer {
        record(exchange);
        let _ = client
            .write_all(&own_answer_bytes(status, reason, retry_after))
            .await;
        return;
    }
    if fault == Fault::HoldRequestUntilReleased {
        let mut released = gate.released.subscribe();
        gate.held.send_modify(|held| *held += 1);
        let _ = tokio::time::timeout(PEER_BOUND, released.wait_for(|go| *go)).await;
        gate.held.send_modify(|held| *held -= 1);
    }
    let Some(answer) = forward(&request, upstream).await else {
        return record(exchange);
    };
    exchange.reached_server = true;
    (exchange.server_status, exchange.server_body) = split_answer(&answer);
    record(exchange);
    match fault {
        Fault::DropResponse => {}
        Fault::ReplaceResponseWithHtml => {
            let _ = client.write_all(HTML_PAGE.as_bytes()).await;
            let _ = client.shutdown().await;
        }
        Fault::HoldResponseUntilClientGivesUp => {
            // The client's timeout closes its end; a read then returns 0 or fails.
            let mut scratch = [0u8; 64];
            let _ = tokio::time::timeout(PEER_BOUND, client.read(&mut scratch)).await;
        }
        _ => {
            let _ = client.write_all(&answer).await;
            let _ = client.shutdown().await;
        }
    }
}

/// What [`Fault::ReplaceResponseWithHtml`] answers instead of the server.
const HTML_PAGE: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 48\r\n\
     connection: close\r\n\r\n<html><body>Welcome to the network</body></html>";

/// An answer the proxy makes itself, as a problem body, on a connection it closes.
fn own_answer_bytes(status: u16, reason: &str, retry_after: Option<&str>) -> Vec<u8> {
    let body = format!(r#"{{"title":"{reason} (injected by the fault proxy)","status":{status}}}"#);
    let retry_after = retry_after
        .map(|value| format!("retry-after: {value}\r\n"))
        .unwrap_or_default();
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/problem+json\r\n{retry_after}\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One HTTP/1.1 request: the head, and a body of `content-length` bytes.
async fn read_request(client: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(at) = find(&buf, b"\r\n\r\n") {
            break at + 4;
        }
        read_more(client, &mut buf).await?;
    };
    let length: usize = header(&buf[..head_end], "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        read_more(client, &mut buf).await?;
    }
    Some(buf)
}

/// Appends what the peer sends next; `None` when it closed, failed or went quiet.
async fn read_more(peer: &mut TcpStream, buf: &mut Vec<u8>) -> Option<()> {
    let mut chunk = [0u8; 4096];
    let n = tokio::time::timeout(PEER_BOUND, peer.read(&mut chunk))
        .await
        .ok()?
        .ok()?;
    (n > 0).then(|| buf.extend_from_slice(&chunk[..n]))
}

/// Sends the request with `connection: close` and reads the answer to its end.
async fn forward(request: &[u8], upstream: SocketAddr) -> Option<Vec<u8>> {
    let head_end = find(request, b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&request[..head_end]);
    let mut rewritten: String = head
        .split("\r\n")
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .map(|line| format!("{line}\r\n"))
        .collect();
    rewritten.push_str("connection: close\r\n\r\n");
    let mut server = tokio::time::timeout(PEER_BOUND, TcpStream::connect(upstream))
        .await
        .ok()?
        .ok()?;
    server.write_all(rewritten.as_bytes()).await.ok()?;
    server.write_all(&request[head_end + 4..]).await.ok()?;
    let mut answer = Vec::new();
    tokio::time::timeout(PEER_BOUND, server.read_to_end(&mut answer))
        .await
        .ok()?
        .ok()?;
    Some(answer)
}

fn split_answer(answer: &[u8]) -> (Option<u16>, Option<String>) {
    let text = String::from_utf8_lossy(answer);
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok());
    let body = text.split_once("\r\n\r\n").map(|(_, body)| body.to_owned());
    (status, body)
}

fn header(head: &[u8], name: &str) -> Option<String> {
    String::from_utf8_lossy(head)
        .split("\r\n")
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
