// Stage 13's payment, for the known-wrong variants that get one step of it wrong:
// the model answer's `create_payment` and `attempt_once` (solutions/stage13-failover/
// src/retry.rs and src/payment.rs), step for step, calling `wait_for_standby_on_commit`,
// `commit_within` and `replay` by name. A variant's lib.rs takes the model
// answer's items (`pub use stage13_answer::*;`), defines the one step it gets
// wrong (which shadows the model answer's), and includes this file: its stage 13
// tests then fail for that step alone.
//
// Keep it step for step with the model answer's `create_payment` and `attempt_once`.

/// The payments API: the model answer's route, paying with this variant's
/// `create_payment`.
pub fn router(app: App) -> Router {
    stage8::payments_router(Paying(app))
}

/// The model answer's [`App`], whose payments are this variant's.
#[derive(Debug, Clone)]
pub struct Paying(App);

impl stage8::Payments for Paying {
    fn pool(&self) -> &sqlx::PgPool {
        &self.0.primary
    }

    async fn pay(
        &self,
        client: ClientId,
        key: &str,
        body: &str,
    ) -> Result<Answer, payment_model::PaymentError> {
        create_payment(&self.0, client, key, body).await
    }
}

/// The model answer's `create_payment`, with this variant's `attempt_once`.
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, payment_model::PaymentError> {
    let request = payment_model::PaymentRequest::parse(body)?;
    let hash = stage4::request_hash(body)?;
    let mut attempt = 1;
    loop {
        match attempt_once(app, client, key, &request, &hash).await {
            Err(e)
                if stage8::is_serialization_failure(&e) && attempt < app.config.route.attempts =>
            {
                attempt += 1
            }
            done => return done,
        }
    }
}

/// The model answer's `attempt_once`, with this variant's
/// `wait_for_standby_on_commit`, `commit_within` and `replay`.
async fn attempt_once(
    app: &App,
    client: ClientId,
    key: &str,
    request: &payment_model::PaymentRequest,
    hash: &str,
) -> Result<Answer, payment_model::PaymentError> {
    use sqlx::Acquire;
    let mut conn = app.primary.acquire().await?;
    let mut tx = conn.begin().await?;
    let previous = stage8::bound_lock_wait(&mut tx, &app.config.route).await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (client_id, key, body_hash) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO NOTHING",
    )
    .bind(client.0)
    .bind(key)
    .bind(hash)
    .execute(&mut *tx)
    .await;
    match inserted {
        Ok(done) if done.rows_affected() == 1 => {
            stage8::restore_lock_wait(&mut tx, &previous).await?;
            let backend = wait_for_standby_on_commit(&mut tx).await?;
            let reply = stage8::pay_and_record(&mut tx, client, key, request).await?;
            let commit = commit_within(tx, backend, app).await;
            if commit == Commit::Unknown {
                conn.close_on_drop();
            }
            Ok(commit.answer(reply))
        }
        Ok(_) => {
            tx.rollback().await?;
            replay(app, &mut conn, client, key, hash).await
        }
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => {
            tx.rollback().await?;
            Ok(Answer::first(payment_model::Reply::in_flight()))
        }
        Err(e) => Err(e.into()),
    }
}

// Where the model answer replays inline (stage 8's `stored_answer` on `conn`,
// the primary's connection that found the key taken), this file calls `replay`,
// which takes `app` too: a variant that reads the key elsewhere
// (stage13-replay-from-standby) defines its own, which shadows this one, and
// leaves this import unused.
#[allow(unused_imports)]
pub use model_answer_replay::*;

/// The model answer's replay, for the variants that keep it.
pub mod model_answer_replay {
    use super::{Answer, App, ClientId};

    /// The model answer's replay: the stored answer, read on `conn`.
    pub async fn replay(
        _app: &App,
        conn: &mut sqlx::PgConnection,
        client: ClientId,
        key: &str,
        hash: &str,
    ) -> Result<Answer, payment_model::PaymentError> {
        stage8::stored_answer(conn, client, key, hash).await
    }
}
