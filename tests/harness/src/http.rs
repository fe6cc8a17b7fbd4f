//! The HTTP side of the stages' tests: a stage's server on an ephemeral port of
//! 127.0.0.1, a request with the headers the stages read, and what came back.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use l10n::t;
use payment_model::Reply;
use serde_json::Value;
use tokio::net::TcpListener;

/// Serves on an ephemeral port of 127.0.0.1 for as long as the test runs, with the
/// stage's own server: `serve(|listener| stage8::serve(listener, router))`.
pub async fn serve<F, Fut>(server: F) -> SocketAddr
where
    F: FnOnce(TcpListener) -> Fut,
    Fut: Future<Output = std::io::Result<()>> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| no_free_port(&e));
    let addr = listener.local_addr().unwrap_or_else(|e| no_free_port(&e));
    let running = server(listener);
    tokio::spawn(async move {
        if let Err(e) = running.await {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "http-server-stopped",
                    error = e.to_string()
                )
            );
        }
    });
    addr
}

/// What came back: status, the headers the stages set, and the JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    /// `Idempotent-Replayed`, if present.
    pub replayed: Option<String>,
    /// `WWW-Authenticate`, if present.
    pub challenge: Option<String>,
    /// `Location`, if present.
    pub location: Option<String>,
    /// `Retry-After`, if present.
    pub retry_after: Option<String>,
    /// `null` for an empty body (axum's 405); any other body must be JSON.
    pub body: Value,
}

impl Answer {
    /// The answer as the `Reply` a stage stores.
    pub fn reply(&self) -> Reply {
        Reply {
            status: self.status,
            body: self.body.clone(),
        }
    }

    /// Whether the answer says it is a replay (`Idempotent-Replayed` is present).
    pub fn is_replayed(&self) -> bool {
        self.replayed.is_some()
    }

    /// The answer of `status`, its headers (`header(name)`) and its body; panics
    /// when the body is not JSON.
    pub fn of(status: u16, header: impl Fn(&str) -> Option<String>, body: &[u8]) -> Self {
        Self::read(status, header, body).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The answer of `status`, its headers (`header(name)`) and its body, or why
    /// it cannot be read: a body that is not JSON.
    pub fn read(
        status: u16,
        header: impl Fn(&str) -> Option<String>,
        body: &[u8],
    ) -> Result<Self, CallError> {
        let body = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(body).map_err(|_| CallError::NotJson {
                status,
                body: String::from_utf8_lossy(body).into_owned(),
            })?
        };
        Ok(Self {
            status,
            content_type: header("content-type").unwrap_or_default(),
            replayed: header("idempotent-replayed"),
            challenge: header("www-authenticate"),
            location: header("location"),
            retry_after: header("retry-after"),
            body,
        })
    }
}

fn no_free_port(e: &std::io::Error) -> ! {
    panic!(
        "{}",
        t!(
            crate::messages::MESSAGES,
            "http-no-free-port",
            error = e.to_string()
        )
    )
}

/// Why a call brought back no answer a test can read.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No whole answer within the call's bound ([`Call::within`]): a server that
    /// hangs.
    TimedOut(Duration),
    /// The connection failed or closed before a whole answer came: a server that
    /// panicked (axum closes the connection without answering), or none listening.
    NoAnswer(#[source] reqwest::Error),
    /// An answer whose body is not JSON.
    NotJson { status: u16, body: String },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &crate::messages::MESSAGES;
        f.write_str(&match self {
            Self::TimedOut(bound) => t!(m, "http-timed-out", seconds = bound.as_secs().to_string()),
            Self::NoAnswer(e) => t!(m, "http-no-answer", error = e.to_string()),
            Self::NotJson { status, body } => t!(
                m,
                "http-not-json",
                status = status.to_string(),
                body = format!("{body:?}")
            ),
        })
    }
}

/// A request to a stage's server: a JSON body, and the headers the stages read.
#[derive(Debug)]
pub struct Call {
    method: reqwest::Method,
    path: String,
    request: reqwest::RequestBuilder,
    /// How long the whole answer may take, when bounded.
    bound: Option<Duration>,
}

impl Call {
    /// `POST path` to the server at `addr`, with `body` as JSON.
    pub fn post(addr: SocketAddr, path: &str, body: &str) -> Self {
        Self::new(addr, reqwest::Method::POST, path, body)
    }

    /// `method path` to the server at `addr`, with `body` as JSON.
    pub fn new(addr: SocketAddr, method: reqwest::Method, path: &str, body: &str) -> Self {
        let mut request = reqwest::Client::new()
            .request(method.clone(), format!("http://{addr}{path}"))
            .header("content-type", "application/json")
            .body(body.to_owned());
        // In a recorded burst: which request this is, for a server made `traced`.
        if let Some(tag) = crate::trace::request_header() {
            request = request.header(crate::trace::REQUEST_HEADER, tag);
        }
        Self {
            method,
            path: path.to_owned(),
            request,
            bound: None,
        }
    }

    /// `Authorization: <authorization>`, when there is one.
    pub fn authorization(mut self, authorization: Option<&str>) -> Self {
        if let Some(authorization) = authorization {
            self.request = self.request.header("authorization", authorization);
        }
        self
    }

    /// One `Idempotency-Key` field line per key (none for an empty slice).
    pub fn keys(mut self, keys: &[&str]) -> Self {
        for key in keys {
            // `header` appends: two calls send two field lines.
            self.request = self.request.header("idempotency-key", *key);
        }
        self
    }

    /// `Idempotency-Key: <key>`, when there is one.
    pub fn key(self, key: Option<&str>) -> Self {
        self.keys(key.as_slice())
    }

    /// Bounds the wait for the whole answer: past `bound`, [`Call::try_send`] says
    /// [`CallError::TimedOut`] instead of waiting on a server that hangs.
    pub fn within(mut self, bound: Duration) -> Self {
        self.request = self.request.timeout(bound);
        self.bound = Some(bound);
        self
    }

    /// Sends it, and reads the whole answer; panics when none came, or one whose
    /// body is not JSON.
    pub async fn send(self) -> Answer {
        let what = format!("{} {}", self.method, self.path);
        match self.try_send().await {
            Ok(answer) => answer,
            Err(e @ CallError::NotJson { .. }) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "http-got",
                    call = what,
                    error = e.to_string()
                )
            ),
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "http-got-server-panicked",
                    call = what,
                    error = e.to_string()
                )
            ),
        }
    }

    /// Sends it, and reads the whole answer, or says why there is none to read.
    pub async fn try_send(self) -> Result<Answer, CallError> {
        let Self { request, bound, .. } = self;
        let failed = |e: reqwest::Error| match bound {
            Some(bound) if e.is_timeout() => CallError::TimedOut(bound),
            _ => CallError::NoAnswer(e),
        };
        let response = request.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(failed)?;
        Answer::read(
            status,
            |name| Some(headers.get(name)?.to_str().ok()?.to_owned()),
            &body,
        )
    }
}

/// What a server did with a request whose body stopped arriving
/// ([`post_a_body_that_stops`]).
#[derive(Debug)]
pub struct StalledBody {
    /// The answer, read up to the close of the connection; `None` when the
    /// server sent nothing and kept the connection open for the whole bound.
    pub answer: Option<Answer>,
    /// The answer's `Connection` header, if any.
    pub connection: Option<String>,
    /// Whether the server closed the connection within the bound.
    pub closed: bool,
    /// How long after the last byte of the body the server closed the
    /// connection (or the bound, when it did not).
    pub after: Duration,
}

/// Sends `POST path` with `headers` and a `Content-Length` of `declared` bytes,
/// then only the first `sent` bytes of that body (spaces), and then nothing: a
/// client that stopped sending. Reads what comes back until the server closes
/// the connection, for at most `bound`.
pub async fn post_a_body_that_stops(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    declared: usize,
    sent: usize,
    bound: Duration,
) -> StalledBody {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("could not connect to the server at {addr}: {e}"));
    let mut head =
        format!("POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {declared}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let part = vec![b' '; sent.min(declared)];
    if let Err(e) = stream.write_all(&[head.as_bytes(), &part].concat()).await {
        panic!("could not send the request's head and {sent} bytes of its body: {e}");
    }
    let stopped = std::time::Instant::now();
    let mut seen = Vec::new();
    let read_to_close = async {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&chunk[..n]),
            }
        }
    };
    let closed = tokio::time::timeout(bound, read_to_close).await.is_ok();
    let after = stopped.elapsed();
    if seen.is_empty() {
        return StalledBody {
            answer: None,
            connection: None,
            closed,
            after,
        };
    }
    let text = String::from_utf8_lossy(&seen).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("the server's answer is not HTTP: {text:?}"));
    let fields: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let header = |name: &str| {
        fields
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, value)| value.clone())
    };
    StalledBody {
        answer: Some(Answer::of(status, header, body.as_bytes())),
        connection: header("connection"),
        closed,
        after,
    }
}
