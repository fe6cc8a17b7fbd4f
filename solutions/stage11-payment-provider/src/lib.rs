//! Stage 11: the payment provider.
//!
//! The card is charged by a provider over HTTP, and no database transaction can
//! roll that back. So the payment is made in phases that each commit, outside any
//! transaction while the provider is called, and the key records how far it got:
//!
//! 1. reserve the key, `started`, with a lease;
//! 2. charge the card with a provider key derived from the client's key, then
//!    record the charge: `charged`;
//! 3. insert the payment and store the answer: `finished`.
//!
//! A retry of a request that died finds the key unfinished; once the lease has
//! expired it takes the key over, with a new lease number, and resumes from its
//! recovery point. Sent again with the same derived key, the provider replays its
//! first answer instead of charging twice. Every write after the reservation
//! names its lease, so a request that was taken over writes nothing. A provider
//! answer that leaves the charge unknown for good sets the key aside
//! (`unknown`) for reconciliation.

mod payment;
mod phases;
mod reaper;
mod steps;

pub use payment::{derived_key, reserve};
pub use phases::{Lease, RecoveryPoint, Reserved, create_payment};
pub use provider_client::{
    App, Config, Provider, ProviderAnswer, ProviderError, charge_id, payment_pending,
    payment_refused, provider_failed, provider_not_charged,
};
pub use reaper::{Reaped, Stranded, reap};
pub use stage8::{Answer, ClientId};
pub use steps::{
    Claim, answer_from_the_key, claim, finish, record_charge, refuse, release, set_aside,
};

/// The migration of this stage's tables: stage 8's, then the recovery points;
/// and the path of the file this stage adds (named in errors).
pub const MIGRATION: &str = concat!(
    include_str!("../../../solutions/stage8-key-per-client/migrations/0001_clients.sql"),
    include_str!("../migrations/0002_recovery_points.sql"),
);
pub const MIGRATION_SOURCE: &str =
    "solutions/stage11-payment-provider/migrations/0002_recovery_points.sql";
