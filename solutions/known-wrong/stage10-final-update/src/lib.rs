//! Known wrong: the one statement written in the order of stage 5's transaction,
//! reserve the key, pay, then UPDATE the key row with the answer. Every CTE of a
//! statement runs on the same snapshot, so the final UPDATE cannot see the key
//! row its sibling just inserted: it updates nothing, and the key is committed
//! with (NULL, NULL). The first caller gets its 201; every retry, forever, a 409.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::PgPool;
use stage4_answer::{request_hash, stored_reply};

// ANCHOR: final_update
const PAY_THEN_UPDATE: &str = "
WITH reserved AS (
    INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2)
    ON CONFLICT (key) DO NOTHING
    RETURNING key
),
paid AS (
    INSERT INTO payments (order_id, amount)
    SELECT $3, $4 FROM reserved
    RETURNING id
),
answered AS (
    UPDATE idempotency_keys k
    SET status = 201,
        response = jsonb_build_object('id', p.id::text, 'orderId', $3::bigint,
                                      'amount', $4::int, 'status', 'approved')
    FROM paid p
    WHERE k.key = $1
)
SELECT id FROM paid";
// ANCHOR_END: final_update

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let paid: Option<i64> = sqlx::query_scalar(PAY_THEN_UPDATE)
        .bind(key)
        .bind(&hash)
        .bind(request.order_id)
        .bind(request.amount)
        .fetch_optional(pool)
        .await?;
    match paid {
        Some(id) => Ok(Reply::created(id, &request)),
        None => {
            let mut conn = pool.acquire().await?;
            stored_reply(&mut conn, key, &hash).await
        }
    }
}
