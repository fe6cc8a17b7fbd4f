//! Servers for the probe to probe: stage 6's router as it is, and the wrong
//! shapes of earlier stages behind the same HTTP route (key parsing, refusals as
//! problems), so that only what they do with PostgreSQL differs.

// Used by examples/probe_results.rs (the other languages' rows) and by
// tests/probe-servers, not by the tests of this package.
#[allow(dead_code)]
pub mod external;

use stage6::respond;
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
use payment_model::{PaymentError, RaceWindow, Reply};
use sqlx::PgPool;

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
}

struct Served {
    pool: PgPool,
    shape: Shape,
    arrivals: AtomicUsize,
    window: RaceWindow,
}

/// Serves `shape` on `db` behind stage 6's route.
pub async fn serve_shape(db: &TestDb, shape: Shape) -> SocketAddr {
    let (size, window) = match shape {
        // sqlx's default patience: long enough that a deadlock outlasts the probe's
        // bound, as the article's pool (which has none) did.
        Shape::ReadsThroughThePool { pool } => (
            PoolSize::of(pool).with_acquire_timeout(Duration::from_secs(30)),
            RaceWindow::open(),
        ),
        Shape::CheckThenWrite { held_for } => (PoolSize::of(10), RaceWindow::held_for(held_for)),
        _ => (PoolSize::of(10), RaceWindow::open()),
    };
    let served = Arc::new(Served {
        pool: db.pool(size),
        shape,
        arrivals: AtomicUsize::new(0),
        window,
    });
    serve(
        axum::Router::new()
            .route("/payments", post(create))
            .with_state(served),
    )
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
    };
    match result {
        Ok(reply) => respond(reply),
        Err(PaymentError::InvalidBody(why)) => respond(Reply::invalid_body(&why.to_string())),
        Err(_) => respond(Reply::internal_error()),
    }
}
