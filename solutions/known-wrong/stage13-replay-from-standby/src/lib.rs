//! Known wrong: the model answer, with the stored answer of a replay read on the
//! hot standby (`app.reader`), where the API sends its reads. On a standby that
//! lags, the key committed on the primary is not there yet: the replay finds no
//! row, and the client is told 500, outcome unknown, for a payment it made. (A
//! check-then-write route that looked for the key there would pay again.)

pub use stage13_answer::*;
include!("../../stage13-payment.rs");

pub async fn replay(
    app: &App,
    _conn: &mut sqlx::PgConnection,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Answer, payment_model::PaymentError> {
    // The mistake: a replay is a read, and reads go to the standby.
    let mut reader = app.reader.acquire().await?;
    stage8::stored_answer(&mut reader, client, key, hash).await
}
