//! Stage 8's route with this stage's `create_payment`, and how long keys live.
//! Given to the learner as it is (the exercise compiles this file with `#[path]`).

use std::time::Duration;

use sqlx::PgPool;
use stage8::{Answer, ClientId, Payments, payments_router};

use crate::create_payment;
use payment_model::PaymentError;

pub use axum::Router;
pub use stage8::Config as RouteConfig;

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

    // ANCHOR: validate
    /// Whether the reaper can work with these settings; the reaper checks before
    /// it deletes anything ([`reap_expired_keys`](crate::reap_expired_keys),
    /// [`spawn_reaper`](crate::spawn_reaper)).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.reap_batch < 1 {
            return Err(ConfigError::ReapBatch(self.reap_batch));
        }
        if self.retention.as_millis() == 0 {
            return Err(ConfigError::Retention(self.retention));
        }
        Ok(())
    }
    // ANCHOR_END: validate
}

/// Settings the reaper cannot work with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A batch of 0 deletes nothing and is never "not full": the reaper would
    /// loop for ever; a negative one is a `LIMIT` PostgreSQL refuses.
    #[error(
        "reap_batch is {0}: a batch deletes at least 1 key (set reap_batch to 1 or more; the \
         default is 1000)"
    )]
    ReapBatch(i64),
    /// Under a millisecond, every key would be expired as soon as it is stored:
    /// no retry would ever be replayed, and the reaper would delete every answer.
    #[error(
        "retention is {0:?}: keys would expire as soon as they are stored (set a retention of \
         at least the time your clients keep retrying; the default is 24 h)"
    )]
    Retention(Duration),
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

impl Payments for App {
    fn pool(&self) -> &PgPool {
        &self.pool
    }

    async fn pay(&self, client: ClientId, key: &str, body: &str) -> Result<Answer, PaymentError> {
        create_payment(&self.pool, client, key, body, &self.config).await
    }
}

/// The payments API: stage 8's `POST /payments`, paying with this stage's
/// `create_payment`. The reaper is not part of it: start it with
/// [`spawn_reaper`](crate::spawn_reaper) beside the server (or run the `reap`
/// binary from cron).
pub fn router_with(pool: PgPool, config: Config) -> Router {
    payments_router(App { pool, config })
}
