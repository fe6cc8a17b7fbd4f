//! `create_payment`: stage 8's, run again after a serialization failure, each
//! attempt `attempt_once` on the primary (`payment.rs`). Given to the learner as it
//! is (the exercise compiles this file with `#[path]`).

use payment_model::{PaymentError, PaymentRequest};
use stage4::request_hash;
use stage8::{Answer, ClientId, is_serialization_failure};

use crate::App;
use crate::payment::attempt_once;

/// Creates the payment for `body` once per `(client, key)`: stage 8's
/// `create_payment`, run again after a serialization failure, on `app`'s primary.
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut attempt = 1;
    loop {
        match attempt_once(app, client, key, &request, &hash).await {
            Err(e) if is_serialization_failure(&e) && attempt < app.config.route.attempts => {
                attempt += 1
            }
            done => return done,
        }
    }
}
