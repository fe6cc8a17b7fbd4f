//! Known wrong: the key is reserved in the transaction, but the code never asks
//! whether the INSERT inserted anything. Each duplicate waits for the first
//! request, does nothing, and then pays anyway.

use payment_model::{PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::PgPool;
use stage4_answer::{pay_and_record, reserve};

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let mut tx = pool.begin().await?;
    // The bug: whether this inserted the key (true) or found it taken (false),
    // the code goes on to pay.
    let _inserted = reserve(&mut tx, key, &raw_body_hash(body)).await?;
    let reply = pay_and_record(&mut tx, key, &request).await?;
    tx.commit().await?;
    Ok(reply)
}
