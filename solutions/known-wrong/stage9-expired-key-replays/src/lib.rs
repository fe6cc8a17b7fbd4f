//! Known wrong: the reaper is right, but the route is stage 8's: it never asks how
//! old a key is. An expired key replays its old answer until the reaper happens to
//! delete it, so what a late retry gets depends on when the reaper last ran.

pub use stage9_answer::{
    ClientId, Config, ConfigError, MIGRATION, MIGRATION_SOURCE, ReapError, Reaped, Reaper,
    RouteConfig, Router, create_payment, reap_expired_keys, serve, spawn_reaper,
};

/// Stage 8's route on stage 9's tables: `ON CONFLICT (client_id, key) DO NOTHING`,
/// whatever the key's age.
pub fn router_with(pool: sqlx::PgPool, config: Config) -> Router {
    stage8::router_with(pool, config.route)
}
