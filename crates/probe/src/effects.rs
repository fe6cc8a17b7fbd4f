//! Counting effects: one query, on one connection, before and after each check.

use sqlx::{Connection, PgConnection};
use tokio::sync::Mutex;

use crate::ProbeError;

pub struct Effects {
    connection: Mutex<PgConnection>,
    sql: String,
}

impl Effects {
    pub async fn connect(url: &str, sql: &str) -> Result<Self, ProbeError> {
        let connection = PgConnection::connect(url)
            .await
            .map_err(|e| ProbeError::Count(e.to_string()))?;
        let effects = Self {
            connection: Mutex::new(connection),
            sql: sql.to_owned(),
        };
        // A query that does not count fails here, not in the middle of a check.
        effects.count().await?;
        Ok(effects)
    }

    pub async fn count(&self) -> Result<i64, ProbeError> {
        let mut connection = self.connection.lock().await;
        sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(self.sql.clone()))
            .fetch_one(&mut *connection)
            .await
            .map_err(|e| ProbeError::Count(e.to_string()))
    }
}
