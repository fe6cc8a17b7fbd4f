//! The HTTP stages' server loop: axum's router over hyper's HTTP/1.1, with a
//! bound on reading each request's head.
//!
//! `axum::serve` sets no timer, so hyper's header-read timeout never fires: a
//! client that sends half a request head keeps its connection, and the task
//! serving it, for as long as it likes (more than 75 s was seen). Here hyper
//! gets a timer, and a head that is not complete within [`HEADER_READ_TIMEOUT`]
//! ends the connection.

use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// How long a client may take to send a request's head (its request line and
/// headers). Generous for any client on a working network; a stuck or hostile
/// one is cut off.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until the process ends.
pub async fn serve(listener: TcpListener, router: Router) -> std::io::Result<()> {
    serve_with(listener, router, HEADER_READ_TIMEOUT).await
}

/// [`serve`], with another bound on reading a request's head.
pub async fn serve_with(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Duration,
) -> std::io::Result<()> {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // A connection reset before it was accepted: the next one may be fine.
            Err(e) if is_per_connection(&e) => continue,
            // Out of file descriptors, or memory: as axum::serve does, wait for
            // connections to close before accepting more.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout);
            // An error ends this connection only (a client that went away, a head
            // too slow): nothing to tell anyone.
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
        });
    }
}

fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset, Interrupted};
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset | Interrupted
    )
}
