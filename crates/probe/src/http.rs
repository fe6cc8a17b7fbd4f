//! A small HTTP/1.1 client written for the probe, on plain TCP.
//!
//! A general client (reqwest, curl) sends a request's head and body together, as
//! soon as it can. The burst needs more control: every request's head first, on
//! its own connection, and only then every body at once, so that the requests
//! reach the handler within a few milliseconds of each other. One request per
//! connection (`connection: close`), so an answer is everything until the server
//! closes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Barrier;

/// Where requests go: the address to connect to, what the `Host` header says,
/// and the base path every request's path is appended to.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    pub host: String,
    /// Without a trailing slash; empty for none.
    pub base_path: String,
}

/// One request, ready to be written.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Appended to the target's base path.
    pub path: String,
    /// Every header but `host`, `content-length` and `connection`, which are added.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// What the server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// From the first byte of the request to the end of the answer.
    pub elapsed: Duration,
}

impl Answer {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The media type, without parameters (`application/json; charset=utf-8` → `application/json`).
    pub fn media_type(&self) -> String {
        self.header("content-type")
            .and_then(|value| value.split(';').next())
            .map(|value| value.trim().to_ascii_lowercase())
            .unwrap_or_default()
    }

    /// The body parsed as JSON, if it is.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The body as text, cut to `max` characters, for the evidence.
    pub fn body_excerpt(&self, max: usize) -> String {
        excerpt(&String::from_utf8_lossy(&self.body), max)
    }
}

/// Text on one line (every run of whitespace one space), cut to `max`
/// characters, with an ellipsis when cut: an HTML page is one line of evidence.
pub fn excerpt(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

/// Why a request got no answer (its words are in [`crate::words`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
pub enum NoAnswer {
    Connect(String),
    /// The bound, in milliseconds.
    Timeout(#[serde(serialize_with = "as_millis")] Duration),
    Closed,
    Malformed(String),
}

/// A request whose head is sent and whose body (or its end) is not yet.
struct Opened {
    stream: TcpStream,
    /// What is still to send of the body.
    body: Vec<u8>,
    started: Instant,
}

/// Connects and sends the head.
async fn open(target: &Target, request: &Request) -> Result<Opened, NoAnswer> {
    open_holding(target, request, request.body.len()).await
}

/// Connects and sends the head and the body but its last `held` bytes.
async fn open_holding(target: &Target, request: &Request, held: usize) -> Result<Opened, NoAnswer> {
    let started = Instant::now();
    let mut stream = TcpStream::connect(target.addr)
        .await
        .map_err(|e| NoAnswer::Connect(e.to_string()))?;
    let _ = stream.set_nodelay(true);
    let mut head = format!(
        "{} {}{} HTTP/1.1\r\nhost: {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        request.method,
        target.base_path,
        request.path,
        target.host,
        request.body.len()
    );
    for (name, value) in &request.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let sent_now = request.body.len().saturating_sub(held);
    let mut first_part = head.into_bytes();
    first_part.extend_from_slice(&request.body[..sent_now]);
    stream
        .write_all(&first_part)
        .await
        .map_err(|_| NoAnswer::Closed)?;
    Ok(Opened {
        stream,
        body: request.body[sent_now..].to_vec(),
        started,
    })
}

/// Sends the body and reads the answer. The body is written while the answer is
/// read: a server may answer (413) and close before it has read a large body.
async fn finish(opened: Opened) -> Result<Answer, NoAnswer> {
    let Opened {
        stream,
        body,
        started,
    } = opened;
    let (mut reader, mut writer) = stream.into_split();
    let writing = tokio::spawn(async move {
        // A server that refuses early stops reading: the write then fails, and
        // the answer it sent is what counts.
        let _ = writer.write_all(&body).await;
        writer
    });
    let mut raw = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&chunk[..n]),
            // A reset after the answer arrived (the server closed with our body
            // unread): keep what came.
            Err(_) => break,
        }
    }
    writing.abort();
    if raw.is_empty() {
        return Err(NoAnswer::Closed);
    }
    let mut answer = parse_answer(&raw)?;
    answer.elapsed = started.elapsed();
    Ok(answer)
}

/// Sends one request and waits at most `bound` for its whole answer.
pub async fn send(target: &Target, request: &Request, bound: Duration) -> Result<Answer, NoAnswer> {
    let exchange = async { finish(open(target, request).await?).await };
    tokio::time::timeout(bound, exchange)
        .await
        .unwrap_or(Err(NoAnswer::Timeout(bound)))
}

/// Sends every request to its target together: each connects and sends its
/// head, then waits until all have; then every body goes at once, whichever
/// instance it goes to. Each request is bounded by `bound` from its start. The
/// answers come back in the order of `requests`.
pub async fn send_together(
    requests: Vec<(Target, Request)>,
    bound: Duration,
) -> Vec<Result<Answer, NoAnswer>> {
    send_together_timed(requests, bound)
        .await
        .into_iter()
        .map(|(answer, _)| answer)
        .collect()
}

/// When one request of a burst went, and when it was over, by the probe's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timed {
    /// When its body was let go (every request's head was sent before); for a
    /// request that could not connect, when it would have been.
    pub sent: Instant,
    /// When its whole answer had arrived, or it was given up.
    pub ended: Instant,
}

/// [`send_together`], with when each request was let go and ended: what the
/// burst's timeline is drawn from.
pub async fn send_together_timed(
    requests: Vec<(Target, Request)>,
    bound: Duration,
) -> Vec<(Result<Answer, NoAnswer>, Timed)> {
    let all_opened = Arc::new(Barrier::new(requests.len()));
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|(target, request)| {
            let all_opened = all_opened.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                let sent = std::sync::OnceLock::new();
                let exchange = async {
                    let opened = open(&target, &request).await;
                    // A request that could not connect still takes its place at
                    // the barrier, or the others would wait for it forever.
                    all_opened.wait().await;
                    let _ = sent.set(Instant::now());
                    finish(opened?).await
                };
                let answer = tokio::time::timeout(bound, exchange)
                    .await
                    .unwrap_or(Err(NoAnswer::Timeout(bound)));
                let ended = Instant::now();
                let sent = sent.get().copied().unwrap_or(started);
                (answer, Timed { sent, ended })
            })
        })
        .collect();
    let mut answers = Vec::with_capacity(tasks.len());
    for task in tasks {
        let now = Instant::now();
        answers.push(task.await.unwrap_or((
            Err(NoAnswer::Closed),
            Timed {
                sent: now,
                ended: now,
            },
        )));
    }
    answers
}

/// Two requests in flight together, the first ahead of the second: each connects
/// and sends its head and its body but the last byte; when both have, the first's
/// last byte goes, then at once the second's, and both answers are read. A server
/// that reads a whole body before it handles a request gets the two complete
/// within microseconds of each other, the first slightly ahead. Each is bounded by
/// `bound` from its start; the answers come back as `(first, second)`.
pub async fn send_held_pair(
    first: (Target, Request),
    second: (Target, Request),
    bound: Duration,
) -> (Result<Answer, NoAnswer>, Result<Answer, NoAnswer>) {
    let deadline = tokio::time::Instant::now() + bound;
    let (a, b) = tokio::join!(
        by(deadline, bound, open_holding(&first.0, &first.1, 1)),
        by(deadline, bound, open_holding(&second.0, &second.1, 1))
    );
    // In this order, one after the other: the first's last byte leaves first.
    let a = by(deadline, bound, release(a)).await;
    let b = by(deadline, bound, release(b)).await;
    tokio::join!(
        by(deadline, bound, async move { finish(a?).await }),
        by(deadline, bound, async move { finish(b?).await })
    )
}

/// `step`, given up at `deadline` (the end of `bound`).
async fn by<T>(
    deadline: tokio::time::Instant,
    bound: Duration,
    step: impl std::future::Future<Output = Result<T, NoAnswer>>,
) -> Result<T, NoAnswer> {
    tokio::time::timeout_at(deadline, step)
        .await
        .unwrap_or(Err(NoAnswer::Timeout(bound)))
}

/// Sends what a request held back of its body.
async fn release(opened: Result<Opened, NoAnswer>) -> Result<Opened, NoAnswer> {
    let mut opened = opened?;
    let rest = std::mem::take(&mut opened.body);
    opened
        .stream
        .write_all(&rest)
        .await
        .map_err(|_| NoAnswer::Closed)?;
    Ok(opened)
}

/// Parses a whole HTTP/1.1 answer: status line, headers, and a body that is
/// chunked, sized by `content-length`, or everything up to the close.
pub fn parse_answer(raw: &[u8]) -> Result<Answer, NoAnswer> {
    let head_end = find(raw, b"\r\n\r\n")
        .ok_or_else(|| NoAnswer::Malformed(excerpt(&String::from_utf8_lossy(raw), 80)))?;
    let head = String::from_utf8_lossy(&raw[..head_end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| NoAnswer::Malformed(excerpt(status_line, 80)))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        })
        .collect();
    let rest = &raw[head_end + 4..];
    let chunked = headers.iter().any(|(name, value)| {
        name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked")
    });
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok());
    let body = if chunked {
        dechunk(rest)
    } else if let Some(length) = length {
        rest[..length.min(rest.len())].to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Answer {
        status,
        headers,
        body,
        elapsed: Duration::ZERO,
    })
}

/// The body of a chunked transfer (RFC 9112, section 7.1); a cut-off last chunk
/// gives what arrived.
pub fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(line_end) = find(rest, b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else {
            break;
        };
        if size == 0 {
            break;
        }
        let data = &rest[line_end + 2..];
        body.extend_from_slice(&data[..size.min(data.len())]);
        rest = data.get(size + 2..).unwrap_or_default();
    }
    body
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A duration as the reports write it: whole milliseconds.
pub(crate) fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_answer_is_put_back_together() {
        let raw = b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"id\r\n5\r\n\":\"7\"\r\n1\r\n}\r\n0\r\n\r\n";
        let answer = parse_answer(raw).expect("a valid answer");
        assert_eq!(answer.status, 201);
        assert_eq!(answer.body, br#"{"id":"7"}"#);
    }

    #[test]
    fn a_sized_answer_stops_at_its_content_length() {
        let raw = b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}trailing";
        let answer = parse_answer(raw).expect("a valid answer");
        assert_eq!(answer.body, b"{}");
        assert_eq!(answer.media_type(), "application/problem+json");
    }

    #[test]
    fn an_html_page_is_one_line_of_evidence() {
        let page = "<html>\n  <head><title>413 Request Entity Too Large</title></head>\n\n<body>\n</body></html>\n";
        assert_eq!(
            excerpt(page, 60),
            "<html> <head><title>413 Request Entity Too Large</title></he…"
        );
    }

    #[test]
    fn something_that_is_not_http_is_malformed() {
        assert!(matches!(
            parse_answer(b"SSH-2.0-OpenSSH\r\n\r\n"),
            Err(NoAnswer::Malformed(_))
        ));
    }
}
