//! Known wrong: stage 11's phases, with a fresh provider key for every attempt.
//! When the provider charged and its answer was lost (or the request died before
//! recording it), the retry is a new charge: the card is charged twice.

use payment_model::{PaymentError, PaymentRequest, Reply};
use stage4::request_hash;
use stage8::stored_answer;
pub use stage11_answer::*;

// ANCHOR: fresh_key
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let Some(Reserved { lease, point }) = reserve(app, client, key, &hash).await? else {
        let mut conn = app.pool.acquire().await?;
        return stored_answer(&mut conn, client, key, &hash).await;
    };
    let charge_id = match point {
        RecoveryPoint::Charged { charge_id } => charge_id,
        RecoveryPoint::Started => {
            // The mistake: a new key for every attempt, so the provider cannot
            // tell a retry from a new payment.
            let provider_key = uuid::Uuid::new_v4().to_string();
            match app.provider.charge(&provider_key, request.amount).await {
                Ok(charge_id) => {
                    record_charge(&app.pool, client, key, lease, &charge_id).await?;
                    charge_id
                }
                Err(ProviderError::Refused { status, .. }) => {
                    let refused = payment_refused(status);
                    return refuse(&app.pool, client, key, &hash, lease, refused).await;
                }
                Err(e) => {
                    release(&app.pool, client, key, lease).await?;
                    let reply = match e {
                        ProviderError::InFlight(_) => Reply::in_flight(),
                        _ => provider_failed(),
                    };
                    return Ok(Answer::first(reply));
                }
            }
        }
    };
    finish(&app.pool, client, key, &hash, lease, &request, &charge_id).await
}
// ANCHOR_END: fresh_key
