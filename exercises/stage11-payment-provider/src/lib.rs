//! Stage 11: the payment provider.
//!
//! The card is charged by a provider over HTTP, and no database transaction can
//! roll that back. So the payment is made in phases that each commit, outside any
//! transaction while the provider is called, and the key records how far it got:
//! `started`, `charged`, `finished` (see the solution's
//! `migrations/0002_recovery_points.sql`, which this stage uses as it is).
//!
//! `create_payment` and the steps after the reservation are given (the model
//! answer's `phases.rs` and `steps.rs`, compiled into this crate). Write `derived_key` (the
//! provider's idempotency key) and `reserve` (a new key, or the takeover of a key
//! whose request died) in `payment.rs`; run `cargo workbook stage 11`, and
//! `cargo workbook hint 11` when stuck.

mod payment;
// The phases around the learner's two functions are given.
#[path = "../../../solutions/stage11-payment-provider/src/phases.rs"]
mod phases;
#[path = "../../../solutions/stage11-payment-provider/src/steps.rs"]
mod steps;
// Expiry is given: finished keys by age, unfinished ones never (see the chapter).
#[path = "../../../solutions/stage11-payment-provider/src/reaper.rs"]
mod reaper;

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
    include_str!("../../../solutions/stage11-payment-provider/migrations/0002_recovery_points.sql"),
);
pub const MIGRATION_SOURCE: &str =
    "solutions/stage11-payment-provider/migrations/0002_recovery_points.sql";
