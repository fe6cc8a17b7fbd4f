//! `create_payment`'s phases, each of which commits, around the two pieces the
//! learner writes (`payment.rs`: the reservation and the provider's key). Given
//! to the learner as it is (the exercise compiles this file with `#[path]`).
//!
//! Every step is called through the crate's root (`use crate::...`), as
//! `derived_key` and `reserve` are: each known-wrong variant of this stage
//! (`solutions/known-wrong/`) replaces one step and keeps the rest.

use payment_model::{PaymentError, PaymentRequest, Reply};
use provider_client::{
    App, ProviderError, payment_pending, payment_refused, provider_failed, provider_not_charged,
};
use stage4::request_hash;
use stage8::{Answer, ClientId};

use crate::{
    Claim, answer_from_the_key, charge_id, claim, derived_key, finish, record_charge, refuse,
    release, set_aside,
};

/// How far the request that holds a key got: the phase a retry resumes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecoveryPoint {
    /// Reserved; the provider may or may not have charged the card.
    Started,
    /// The provider confirmed this charge; the payment row is not written yet.
    Charged { charge_id: String },
}

/// The fencing token of one reservation: the key's `lease` number when this
/// request reserved it or took it over. Every reservation gets a new number, so
/// a request that was taken over holds a number the key no longer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease(pub i64);

/// A key this request holds: its lease, and where to resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    pub lease: Lease,
    pub point: RecoveryPoint,
}

// ANCHOR: create_payment
/// Creates the payment for `body` once per `(client, key)`, and charges the card
/// once, even when an earlier request with this key died half-way.
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    // Phase 1: reserve the key (new, or taken over from a request that died), or
    // answer from it when it is not ours.
    let (lease, point) = match claim(app, client, key, &hash).await? {
        Claim::Ours(Reserved { lease, point }) => (lease, point),
        Claim::Answered(answer) => return Ok(answer),
    };
    // Phase 2: the charge, unless a request before us recorded it already.
    let charge_id = match point {
        RecoveryPoint::Charged { charge_id } => charge_id,
        RecoveryPoint::Started => {
            let provider_key = derived_key(client, key, &hash, "charge");
            let answer = app.provider.answer(&provider_key, request.amount).await;
            // What the provider's answer says about the card.
            match answer.map_err(ProviderError::from).and_then(charge_id) {
                Ok(charge_id) => {
                    if !record_charge(&app.pool, client, key, lease, &charge_id).await? {
                        // Taken over while we waited: the key is its request's now.
                        return answer_from_the_key(app, client, key, &hash).await;
                    }
                    charge_id
                }
                Err(e) => return not_charged(app, client, key, &hash, lease, e).await,
            }
        }
    };
    // Phase 3: the payment row and the answer.
    finish(&app.pool, client, key, &hash, lease, &request, &charge_id).await
}
// ANCHOR_END: create_payment

// ANCHOR: not_charged
/// Phase 2 when the provider confirmed no charge: what its answer means for the
/// key. Each write names our lease; when the key is no longer ours, the request
/// that took it over answers for it.
async fn not_charged(
    app: &App,
    client: ClientId,
    key: &str,
    hash: &str,
    lease: Lease,
    e: ProviderError,
) -> Result<Answer, PaymentError> {
    eprintln!("POST /payments: the provider did not confirm the charge: {e}");
    let (ours, reply) = match e {
        // Final at the provider, and nothing was charged: the key's final answer.
        ProviderError::Declined { status, .. } => {
            let reply = payment_refused(status);
            (refuse(&app.pool, client, key, lease, &reply).await?, reply)
        }
        // Final at the provider, and whether (or what) it charged is unknown:
        // set aside for reconciliation; a retry must not ask again.
        ProviderError::Indeterminate { .. } | ProviderError::NoChargeId { .. } => {
            let reply = payment_pending();
            (
                set_aside(&app.pool, client, key, lease, &reply).await?,
                reply,
            )
        }
        // Not final: end our lease, so that the client's retry resumes at once,
        // with the same provider key (which cannot charge twice).
        e => {
            let reply = match e {
                ProviderError::InFlight(_) => Reply::in_flight(),
                ProviderError::TurnedAway { .. } => provider_not_charged(),
                _ => provider_failed(),
            };
            (release(&app.pool, client, key, lease).await?, reply)
        }
    };
    if !ours {
        // Taken over while we waited: the key is its request's now.
        return answer_from_the_key(app, client, key, hash).await;
    }
    Ok(Answer::first(reply))
}
// ANCHOR_END: not_charged
