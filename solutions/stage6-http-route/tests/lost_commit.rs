//! The answer to our own COMMIT, lost: the ambiguity the key exists to solve, one
//! hop further in. PostgreSQL commits the payment, the connection drops before its
//! "COMMIT" acknowledgement reaches the route, `commit()` fails, and the route
//! answers 500, although the payment exists. A 500 therefore cannot promise that
//! nothing was charged; what it can promise is that a retry with the same key is
//! safe, and this test shows the retry replaying the 201 of the one payment.
//!
//! The fault is made certain by a small PostgreSQL-protocol relay between the
//! route's pool and the server: it forwards every message, and the first time the
//! server acknowledges a `COMMIT` (CommandComplete "COMMIT"), it closes both
//! connections instead of forwarding that acknowledgement.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use harness::{TestDb, reference_schema};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgSslMode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};

const BODY: &str = r#"{"orderId":1,"amount":100}"#;

// ANCHOR: lost_commit
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lost_commit_acknowledgement_is_a_500_and_the_retry_replays_the_payment() {
    let db = TestDb::create(reference_schema()).await;
    let pool = pool_through_a_relay_that_loses_the_first_commit_ack(&db).await;
    let addr = serve(stage6::router(pool)).await;

    let first = post(addr, "key-1").await;
    let payments_after_the_500 = db.payment_count().await;
    let retry = post(addr, "key-1").await;

    assert_eq!(
        first.0, 500,
        "commit() failed, so the route answers 500: {first:?}"
    );
    assert_eq!(
        first.1["type"],
        format!("{}internal-error", payment_model::PROBLEM_BASE)
    );
    assert_eq!(
        payments_after_the_500, 1,
        "the server committed before the acknowledgement was lost: the payment exists"
    );
    assert_eq!(
        retry.0, 201,
        "the retry with the same key replays the stored answer: {retry:?}"
    );
    assert_eq!(db.payment_count().await, 1, "one payment, not two");
    let paid_id: i64 = db.count("SELECT max(id) FROM payments").await;
    assert_eq!(
        retry.1["id"],
        paid_id.to_string(),
        "the replayed 201 is the answer of the payment made during the 500"
    );
}
// ANCHOR_END: lost_commit

/// A pool of 2 connections that reach the server through the relay. Both are
/// opened now, and the relay's socket is removed at once: nothing is left behind,
/// even if the test process is killed.
async fn pool_through_a_relay_that_loses_the_first_commit_ack(db: &TestDb) -> sqlx::PgPool {
    let upstream = Upstream::of(db.options());
    let dir = std::env::temp_dir().join(format!("workbook-commit-relay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory for the relay's socket");
    let port = db.options().get_port();
    let listener =
        UnixListener::bind(dir.join(format!(".s.PGSQL.{port}"))).expect("the relay's socket");
    let commit_ack_lost = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            tokio::spawn(relay(client, upstream.clone(), commit_ack_lost.clone()));
        }
    });
    let options: PgConnectOptions = db
        .options()
        .clone()
        .socket(&dir)
        .ssl_mode(PgSslMode::Disable);
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(5))
        .connect_lazy_with(options);
    let held = (pool.acquire().await, pool.acquire().await);
    let (Ok(_), Ok(_)) = held else {
        panic!("the pool could not connect through the relay: {held:?}");
    };
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
    pool
}

/// Where the test database really is: a Unix socket or a TCP address.
#[derive(Clone)]
enum Upstream {
    Socket(PathBuf),
    Tcp(String, u16),
}

impl Upstream {
    fn of(options: &PgConnectOptions) -> Self {
        let port = options.get_port();
        match options.get_socket() {
            Some(dir) => Self::Socket(Path::new(dir).join(format!(".s.PGSQL.{port}"))),
            None => Self::Tcp(options.get_host().to_owned(), port),
        }
    }

    async fn connect(&self) -> std::io::Result<Box<dyn Stream>> {
        Ok(match self {
            Self::Socket(path) => Box::new(UnixStream::connect(path).await?),
            Self::Tcp(host, port) => Box::new(TcpStream::connect((host.as_str(), *port)).await?),
        })
    }
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// Relays one connection. Client to server: the untyped startup message, then
/// typed messages, each watched for a simple-query `COMMIT`. Server to client:
/// typed messages; the acknowledgement of that COMMIT is swallowed, once per test.
async fn relay(client: UnixStream, upstream: Upstream, commit_ack_lost: Arc<AtomicBool>) {
    let Ok(server) = upstream.connect().await else {
        return;
    };
    let (mut client_read, mut client_write) = tokio::io::split(client);
    let (mut server_read, mut server_write) = tokio::io::split(server);
    let commit_sent = Arc::new(AtomicBool::new(false));
    let to_server = {
        let commit_sent = commit_sent.clone();
        async move {
            let Ok(startup) = read_untyped(&mut client_read).await else {
                return;
            };
            let mut forwarded = server_write.write_all(&startup).await;
            while forwarded.is_ok() {
                let Ok(message) = read_typed(&mut client_read).await else {
                    return;
                };
                if message[0] == b'Q' && &message[5..] == b"COMMIT\0" {
                    commit_sent.store(true, Ordering::SeqCst);
                }
                forwarded = server_write.write_all(&message).await;
            }
        }
    };
    let to_client = async move {
        while let Ok(message) = read_typed(&mut server_read).await {
            let acknowledges_commit = message[0] == b'C' && &message[5..] == b"COMMIT\0";
            if acknowledges_commit
                && commit_sent.load(Ordering::SeqCst)
                && !commit_ack_lost.swap(true, Ordering::SeqCst)
            {
                // The server has committed. Close both sides, unanswered.
                return;
            }
            if client_write.write_all(&message).await.is_err() {
                return;
            }
        }
    };
    // Whichever direction ends first ends the relay, dropping both connections.
    tokio::select! {
        () = to_server => {}
        () = to_client => {}
    }
}

/// A message without a type byte (the startup message): length, then the rest.
async fn read_untyped(from: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Vec<u8>> {
    let mut message = vec![0u8; 4];
    from.read_exact(&mut message).await?;
    let length = u32::from_be_bytes([message[0], message[1], message[2], message[3]]) as usize;
    message.resize(length.max(4), 0);
    from.read_exact(&mut message[4..]).await?;
    Ok(message)
}

/// A typed message: its type byte, its length (which counts itself), the rest.
async fn read_typed(from: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Vec<u8>> {
    let mut message = vec![0u8; 5];
    from.read_exact(&mut message).await?;
    let length = u32::from_be_bytes([message[1], message[2], message[3], message[4]]) as usize;
    message.resize(1 + length.max(4), 0);
    from.read_exact(&mut message[5..]).await?;
    Ok(message)
}

async fn serve(router: stage6::Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener has an address");
    tokio::spawn(async move { stage6::serve(listener, router).await });
    addr
}

/// POST /payments with `key`: the status and the JSON body.
async fn post(addr: std::net::SocketAddr, key: &str) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/payments"))
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .timeout(Duration::from_secs(10))
        .body(BODY)
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST /payments got no answer: {e}"));
    let status = response.status().as_u16();
    let text = response.text().await.expect("the body arrives");
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text:?}"));
    (status, body)
}
