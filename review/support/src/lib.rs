//! What the routes of `just review` share, so that each route's file holds only
//! what there is to review: how it reads the key, reserves it, pays, stores and
//! replays the answer.

use payment_model::{PaymentRequest, Reply};

pub use axum::Router;
pub use provider_client::{Provider, ProviderError};

/// What a route may use: the database's pool, and the payment provider (a route
/// that makes no call outside the database uses only the pool).
#[derive(Debug, Clone)]
pub struct App {
    pub pool: sqlx::PgPool,
    pub provider: Provider,
}

/// Serves `router` on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    axum::serve(listener, router).await
}

/// Why a payment that calls the provider failed: the database, or the provider
/// (which may or may not have charged the card).
#[derive(Debug)]
pub enum PayError {
    Database(sqlx::Error),
    Provider(ProviderError),
}

impl From<sqlx::Error> for PayError {
    fn from(e: sqlx::Error) -> Self {
        Self::Database(e)
    }
}

impl From<ProviderError> for PayError {
    fn from(e: ProviderError) -> Self {
        Self::Provider(e)
    }
}

impl PayError {
    /// 500 for the database; 502 when the provider did not confirm the charge.
    pub fn reply(&self) -> Reply {
        match self {
            Self::Database(_) => Reply::internal_error(),
            Self::Provider(_) => provider_client::provider_failed(),
        }
    }
}

/// Stage 4's hash: the same payment written with its fields in another order or
/// with other spacing has the same hash.
pub fn request_hash(request: &PaymentRequest) -> String {
    // A `PaymentRequest` serialises to JSON, which stage 4's hash always accepts.
    stage4::request_hash(&request.to_body()).unwrap_or_default()
}

/// The reply as an HTTP response, as stage 6's route sends it: refusals as
/// `application/problem+json`.
pub use stage6::respond;
