//! Stage 9: keys that expire, and the clean-up.
//!
//! A key is kept for a retention window (24 hours by default). Within it, a repeat
//! replays the stored answer; past it, the key is expired: a request with it is a new
//! payment, whether the reaper has deleted the old row yet or not. The reaper
//! deletes expired keys in bounded batches of short transactions, passes over any
//! key whose request is in flight (`FOR UPDATE SKIP LOCKED`), and runs both as a
//! background task of the server and as a one-shot command (`just reap`).

mod payment;
mod reaper;

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use sqlx::PgPool;
use stage8::{admit, answer};

pub use axum::Router;
pub use payment::create_payment;
pub use reaper::{Reaped, Reaper, reap_expired_keys, spawn_reaper};
pub use stage8::{Answer, ClientId, Config as RouteConfig};

/// The migration of this stage's tables: stage 8's, then the index the reaper
/// needs; and the path of the file this stage adds (named in errors).
pub const MIGRATION: &str = concat!(
    include_str!("../../../solutions/stage8-key-per-client/migrations/0001_clients.sql"),
    include_str!("../migrations/0002_created_at_index.sql"),
);
pub const MIGRATION_SOURCE: &str = "solutions/stage9-expiry/migrations/0002_created_at_index.sql";

/// How long keys live, and how the reaper deletes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Stage 8's waits and retries.
    pub route: RouteConfig,
    /// How long a key replays its answer. Past it, the key is expired: a request
    /// with it is a new payment.
    pub retention: Duration,
    /// How many keys one reaper transaction deletes at most.
    pub reap_batch: i64,
    /// How often the server's background reaper runs.
    pub reap_every: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            route: RouteConfig::default(),
            retention: Duration::from_secs(24 * 60 * 60),
            reap_batch: 1000,
            reap_every: Duration::from_secs(60),
        }
    }
}

impl Config {
    /// The retention window as a PostgreSQL `interval` literal, in whole
    /// milliseconds: bound as text and cast with `$n::interval`.
    pub fn retention_interval(&self) -> String {
        format!("{} milliseconds", self.retention.as_millis())
    }
}

/// Serves `router` on `listener` until the process ends; a client that takes
/// longer than [`payment_model::HEADER_READ_TIMEOUT`] to send a request's head
/// loses its connection.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    payment_model::serve(listener, router).await
}

#[derive(Debug, Clone)]
struct App {
    pool: PgPool,
    config: Config,
}

/// The payments API: one route, `POST /payments`. The reaper is not part of it:
/// start it with [`spawn_reaper`] beside the server (or run `just reap` from cron).
pub fn router_with(pool: PgPool, config: Config) -> Router {
    Router::new()
        .route("/payments", post(create))
        .with_state(App { pool, config })
}

async fn create(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    let admitted = match admit(&app.pool, &headers, &body).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let paid = create_payment(
        &app.pool,
        admitted.client,
        admitted.key.as_str(),
        admitted.body,
        &app.config,
    )
    .await;
    answer(paid)
}
