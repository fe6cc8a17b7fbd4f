//! Stage 8's route with this stage's `create_payment`, on a primary and its
//! standby. Given to the learner as it is (the exercise compiles this file with
//! `#[path]`).

use std::time::Duration;

use payment_model::PaymentError;
use sqlx::PgPool;
use stage8::{Answer, ClientId, Payments, payments_router};

use crate::create_payment;

pub use stage8::{Config as RouteConfig, Router, serve};

/// How the route waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Stage 8's waits and retries.
    pub route: RouteConfig,
    /// How long a payment's COMMIT may wait for the standby's confirmation.
    /// Past it, the wait is cancelled and the client is told 503, retry with the
    /// same key.
    pub commit_wait: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            route: RouteConfig::default(),
            commit_wait: Duration::from_secs(2),
        }
    }
}

/// The servers the route talks to, through three pools.
#[derive(Debug, Clone)]
pub struct App {
    /// The primary: every write, and every read of a key or of its answer.
    pub primary: PgPool,
    /// A small pool on the primary for one job: cancelling a COMMIT's wait for
    /// the standby once `config.commit_wait` has passed. A pool of its own,
    /// because while the standby is away the payments may hold every connection
    /// of `primary`, each waiting.
    pub watchdog: PgPool,
    /// The hot standby, for reads that may lag the primary: lists, reports,
    /// searches. This route makes none (the book's stage 13 says why).
    pub reader: PgPool,
    pub config: Config,
}

impl Payments for App {
    fn pool(&self) -> &PgPool {
        &self.primary
    }

    async fn pay(&self, client: ClientId, key: &str, body: &str) -> Result<Answer, PaymentError> {
        create_payment(self, client, key, body).await
    }
}

/// The payments API: stage 8's `POST /payments`, paying with this stage's
/// `create_payment`.
pub fn router(app: App) -> Router {
    payments_router(app)
}
