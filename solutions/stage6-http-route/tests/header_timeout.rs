//! The server the workbook runs (`stage6::serve`, which stages 8, 9 and 12 and
//! `cargo workbook api` share) does not keep a half-sent request open: a client
//! that sends part of a request head and stops loses its connection within
//! [`payment_model::HEADER_READ_TIMEOUT`], while whole requests are answered.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::routing::get;
use stage6::Router;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

async fn served() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address");
    let router = Router::new().route("/", get(|| async { "ok" }));
    tokio::spawn(stage6::serve(listener, router));
    addr
}

/// Everything the server sends until it closes, or `None` if it is still open
/// after `bound`.
async fn read_until_closed(stream: &mut TcpStream, bound: Duration) -> Option<String> {
    let mut seen = Vec::new();
    let reading = async {
        let mut chunk = [0u8; 1024];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&chunk[..n]),
            }
        }
    };
    tokio::time::timeout(bound, reading).await.ok()?;
    Some(String::from_utf8_lossy(&seen).into_owned())
}

#[tokio::test]
async fn a_half_sent_request_head_loses_its_connection_within_the_bound() {
    let addr = served().await;
    let mut client = TcpStream::connect(addr).await.expect("connects");
    client
        .write_all(b"POST /payments HTTP/1.1\r\nhost: 127.0.0.1\r\nidempotency-key: k")
        .await
        .expect("half a head is sent");
    let started = Instant::now();
    let bound = payment_model::HEADER_READ_TIMEOUT + Duration::from_secs(3);
    let closed = read_until_closed(&mut client, bound).await;
    assert!(
        closed.is_some(),
        "the server still held a half-sent request open after {bound:?}"
    );
    assert!(
        started.elapsed() >= payment_model::HEADER_READ_TIMEOUT - Duration::from_millis(500),
        "closed after {:?}: before the client had its {:?} to finish the head",
        started.elapsed(),
        payment_model::HEADER_READ_TIMEOUT
    );
}

#[tokio::test]
async fn a_whole_request_is_answered() {
    let addr = served().await;
    let mut client = TcpStream::connect(addr).await.expect("connects");
    client
        .write_all(b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
        .await
        .expect("the request is sent");
    let answer = read_until_closed(&mut client, Duration::from_secs(5))
        .await
        .expect("answered and closed within 5 s");
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.ends_with("ok"), "{answer}");
}
