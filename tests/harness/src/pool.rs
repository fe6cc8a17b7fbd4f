//! A test's pool: how many connections it may open and how long a caller waits
//! for one. A leaf: the database, the wire relay and the trace all make pools.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

/// How many connections a test's pool may open, and how long a caller waits for one.
#[derive(Debug, Clone, Copy)]
pub struct PoolSize {
    pub max_connections: u32,
    pub acquire_timeout: Duration,
}

impl PoolSize {
    /// A pool of `max_connections`, with the harness's short acquire timeout.
    pub const fn of(max_connections: u32) -> Self {
        Self {
            max_connections,
            acquire_timeout: Self::ACQUIRE_TIMEOUT,
        }
    }

    /// Short enough that a deadlocked pool fails a test in seconds; long enough that
    /// a healthy burst of 20 never comes near it (a burst takes 6-12 ms here).
    pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

    pub const fn with_acquire_timeout(self, acquire_timeout: Duration) -> Self {
        Self {
            acquire_timeout,
            ..self
        }
    }
}

/// A pool on `options`, connections opened lazily as callers ask for them.
pub(crate) fn pool_on(options: &PgConnectOptions, size: PoolSize) -> PgPool {
    PgPoolOptions::new()
        .max_connections(size.max_connections)
        .acquire_timeout(size.acquire_timeout)
        // A fresh test database has nothing to check; skip the round trip.
        .test_before_acquire(false)
        .connect_lazy_with(options.clone())
}
