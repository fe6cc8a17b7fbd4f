//! Known wrong: the paying transaction asks for `synchronous_commit =
//! remote_apply`, the strongest level, and the primary names no standby in
//! `synchronous_standby_names`. PostgreSQL then treats remote_apply as local: the
//! COMMIT returns once the primary alone has the payment, and a failover loses it.
//!
//! The mistake is two lines, one on each side, and this variant needs both: with
//! the model answer's `primary.conf`, which names the standby, `remote_apply`
//! waits for it and the payment survives the failover.

pub use stage13_answer::*;
include!("../../stage13-payment.rs");

/// The mistake, on the server's side: no standby is named.
pub const PRIMARY_SETTINGS: &str = "synchronous_commit = local\n";
pub const PRIMARY_SETTINGS_SOURCE: &str =
    "solutions/known-wrong/stage13-remote-apply-alone/src/lib.rs";

pub async fn wait_for_standby_on_commit(
    tx: &mut sqlx::PgConnection,
) -> Result<i32, payment_model::PaymentError> {
    // The mistake, on the transaction's side: remote_apply, the strongest level,
    // trusted to wait for a standby that nothing names. With no synchronous
    // standby, every level waits for the primary alone.
    let (_, backend): (String, i32) = sqlx::query_as(
        "SELECT set_config('synchronous_commit', 'remote_apply', true), pg_backend_pid()",
    )
    .fetch_one(tx)
    .await?;
    Ok(backend)
}
