//! Known wrong: the model answer's one statement, wrapped in `pool.begin()` ...
//! `commit()`. Every row is right (one transaction, one statement writing the key
//! and the payment), and the database cannot tell the difference; the wire can:
//! BEGIN and COMMIT are two more round trips, and the statement runs inside a
//! transaction block. Only a test that reads the protocol catches it.

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::PgPool;
use stage4_answer::{reply_from_key_row, request_hash, stored_reply};

/// Stage 10's statement, from the model answer itself: only the wrapping differs.
use stage10_answer::{IN_FLIGHT_WAIT, PAY_ONCE};

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut tx = pool.begin().await?;
    let key_row = sqlx::query_as::<_, (String, Option<i32>, Option<Value>)>(PAY_ONCE)
        .bind(key)
        .bind(&hash)
        .bind(request.order_id)
        .bind(request.amount)
        .bind(IN_FLIGHT_WAIT)
        .fetch_optional(&mut *tx)
        .await;
    match key_row {
        Ok(Some((stored_hash, status, response))) => {
            tx.commit().await?;
            Ok(reply_from_key_row(&stored_hash, &hash, status, response))
        }
        Ok(None) => {
            tx.rollback().await?;
            let mut conn = pool.acquire().await?;
            stored_reply(&mut conn, key, &hash).await
        }
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => {
            tx.rollback().await?;
            Ok(Reply::in_flight())
        }
        Err(e) => {
            let _ = tx.rollback().await;
            Err(e.into())
        }
    }
}
