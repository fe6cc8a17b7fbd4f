//! Known wrong: every request is authenticated, but the key is still global
//! (`key TEXT PRIMARY KEY`): the model answer's route with
//! `stage8::global_key`'s tables and transaction. Client B sending a key client A
//! already used is played A's stored answer: A's payment id and amount.

pub use stage8_answer::global_key::{MIGRATION, MIGRATION_SOURCE, router_with};
pub use stage8_answer::{ClientId, Config, Router, serve};

/// The global key's transaction, called as the stage's tests call
/// `create_payment` (the route's settings are not used).
pub async fn create_payment(
    pool: &sqlx::PgPool,
    client: ClientId,
    key: &str,
    body: &str,
    _config: &Config,
) -> Result<stage8_answer::Answer, payment_model::PaymentError> {
    stage8_answer::global_key::create_payment(pool, client, key, body).await
}

/// The global key's route with the default settings, as `stage8::router` is.
pub fn router(pool: sqlx::PgPool) -> Router {
    router_with(pool, Config::default())
}
