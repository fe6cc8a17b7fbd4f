//! Servers for the probe to probe: stage 6's router as it is, and the wrong
//! shapes of earlier stages behind the same HTTP route (key parsing, refusals as
//! problems), so that only what they do with PostgreSQL differs.

// Used by examples/probe_results.rs (the other languages' rows) and by
// tests/probe-servers, not by the tests of this package.
#[allow(dead_code)]
pub mod external;

use stage6::respond;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use harness::{PoolSize, TestDb};
use payment_model::{PaymentError, PaymentRequest, RaceWindow, Reply};
use sqlx::PgPool;
use tokio::sync::Mutex;

/// Serves `router` on an ephemeral port of 127.0.0.1 for as long as the test runs.
pub async fn serve(router: axum::Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener has an address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

/// A wrong way to write `create_payment`, as an earlier stage taught it.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Stage 2's naive check, then write; its first `held_for` requests are held
    /// between the two until all of them have checked.
    CheckThenWrite { held_for: usize },
    /// Stage 4's known-wrong variant: the body's hash is stored, never compared.
    HashIgnored,
    /// Stage 5's deadlocking shape: the stored answer read through the pool while
    /// the transaction holds a connection, on a pool of this size.
    ReadsThroughThePool { pool: u32 },
    /// Stage 3's known-wrong variant: three commits instead of one transaction.
    NoTransaction,
    /// The key guarded by a lock in the process's memory (a map of mutexes, one
    /// per key): check, then write, then store, one request per key at a time, in
    /// this process. The first request each instance serves is held after its
    /// check until every instance's first has checked: the race two processes
    /// lose, every time.
    InProcessLock,
    /// Stage 5's model answer with no body size limit: a 3 MB body is paid once.
    NoBodyLimit,
    /// Stage 4's model answer, on a pool of 20: a duplicate waits on the first
    /// request's key for as long as it holds it (stage 5 bounds that wait with
    /// a `lock_timeout` and answers 409), each with a connection of its own.
    /// Not a wrong shape: tests/timeline.rs holds its first request to draw the
    /// duplicates waiting (tests/shapes.rs has no bug of it to catch).
    #[allow(dead_code)]
    WaitsOnTheKey,
    /// No body size limit, and a body over 1 MB is paid, then answered 500: an
    /// effect left behind by an answer that says it failed.
    PaysThenFailsOnLargeBodies,
}

/// What [`Shape::PaysThenFailsOnLargeBodies`] calls large.
const LARGE: usize = 1024 * 1024;

struct Served {
    pool: PgPool,
    shape: Shape,
    arrivals: AtomicUsize,
    window: RaceWindow,
    /// [`Shape::InProcessLock`]'s locks: this instance's memory, nobody else's.
    locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

/// Serves `shape` on `db` behind stage 6's route.
pub async fn serve_shape(db: &TestDb, shape: Shape) -> SocketAddr {
    let window = match shape {
        Shape::InProcessLock => RaceWindow::held_for(1),
        _ => window_for(shape),
    };
    serve_instance(db, shape, window).await
}

/// Serves `shape` on `db` as `instances` instances (each its own pool and its
/// own memory, one database), as a deployment behind a load balancer would.
pub async fn serve_instances(db: &TestDb, shape: Shape, instances: usize) -> Vec<SocketAddr> {
    let window = match shape {
        Shape::InProcessLock => RaceWindow::held_for(instances),
        _ => window_for(shape),
    };
    let mut addrs = Vec::with_capacity(instances);
    for _ in 0..instances {
        addrs.push(serve_instance(db, shape, window.clone()).await);
    }
    addrs
}

fn window_for(shape: Shape) -> RaceWindow {
    match shape {
        Shape::CheckThenWrite { held_for } => RaceWindow::held_for(held_for),
        _ => RaceWindow::open(),
    }
}

async fn serve_instance(db: &TestDb, shape: Shape, window: RaceWindow) -> SocketAddr {
    let size = match shape {
        // sqlx's default patience: long enough that a deadlock outlasts the probe's
        // bound, as the article's pool (which has none) did.
        Shape::ReadsThroughThePool { pool } => {
            PoolSize::of(pool).with_acquire_timeout(Duration::from_secs(30))
        }
        Shape::WaitsOnTheKey => PoolSize::of(20),
        _ => PoolSize::of(10),
    };
    let served = Arc::new(Served {
        pool: db.pool(size),
        shape,
        arrivals: AtomicUsize::new(0),
        window,
        locks: Mutex::default(),
    });
    let router = axum::Router::new()
        .route("/payments", post(create))
        .with_state(served);
    serve(match shape {
        Shape::NoBodyLimit | Shape::PaysThenFailsOnLargeBodies => {
            router.layer(axum::extract::DefaultBodyLimit::disable())
        }
        _ => router,
    })
    .await
}

async fn create(
    State(served): State<Arc<Served>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(refused) => {
            return respond(payment_model::problem(
                refused.status().as_u16(),
                "body-refused",
                "The request body was refused",
                &refused.body_text(),
            ));
        }
    };
    let key = match stage6::IdempotencyKey::from_headers(&headers) {
        Ok(key) => key,
        Err(refused) => return respond(refused.reply()),
    };
    let Ok(body) = std::str::from_utf8(&body) else {
        return respond(Reply::invalid_body("the body is not UTF-8 text"));
    };
    let (pool, key) = (&served.pool, key.as_str());
    let result = match served.shape {
        Shape::CheckThenWrite { held_for } => {
            let window = if served.arrivals.fetch_add(1, Ordering::SeqCst) < held_for {
                served.window.clone()
            } else {
                RaceWindow::open()
            };
            stage2::create_payment(pool, key, body, &window).await
        }
        Shape::HashIgnored => stage4_hash_ignored::create_payment(pool, key, body).await,
        Shape::ReadsThroughThePool { .. } => {
            stage5::deadlocking::create_payment(pool, key, body).await
        }
        Shape::NoTransaction => stage3_no_transaction::create_payment(pool, key, body).await,
        Shape::InProcessLock => create_under_a_lock(&served, key, body).await,
        Shape::NoBodyLimit => stage5::create_payment(pool, key, body).await,
        Shape::WaitsOnTheKey => stage4::create_payment(pool, key, body).await,
        Shape::PaysThenFailsOnLargeBodies if body.len() > LARGE => {
            let paid = stage5::create_payment(pool, key, body).await;
            return respond(match paid {
                Ok(_) => Reply::internal_error(),
                Err(_) => Reply::internal_error(),
            });
        }
        Shape::PaysThenFailsOnLargeBodies => stage5::create_payment(pool, key, body).await,
    };
    match result {
        Ok(reply) => respond(reply),
        Err(PaymentError::InvalidBody(why)) => respond(Reply::invalid_body(&why.to_string())),
        Err(_) => respond(Reply::internal_error()),
    }
}

/// What a careful author writes when the lock is in memory: the body's hash
/// compared, replays answered, one request per key at a time. In one process it
/// is right; the lock is this process's alone.
async fn create_under_a_lock(
    served: &Served,
    key: &str,
    body: &str,
) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = stage4::request_hash(body)?;
    let lock = served
        .locks
        .lock()
        .await
        .entry(key.to_owned())
        .or_default()
        .clone();
    let _held = lock.lock().await;
    let stored: Option<(String, Option<i32>, Option<serde_json::Value>)> =
        sqlx::query_as("SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_optional(&served.pool)
            .await?;
    if let Some((stored_hash, status, response)) = stored {
        return Ok(if stored_hash == hash {
            Reply::from_stored(status, response)
        } else {
            Reply::key_reused()
        });
    }
    if served.arrivals.fetch_add(1, Ordering::SeqCst) == 0 {
        served.window.between_check_and_write().await;
    }
    // The lock "makes it safe", so the payment and the key go in one after the other.
    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&served.pool)
            .await?;
    let reply = Reply::created(payment_id, &request);
    sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash, status, response) VALUES ($1, $2, $3, $4)",
    )
    .bind(key)
    .bind(&hash)
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(&served.pool)
    .await?;
    Ok(reply)
}
