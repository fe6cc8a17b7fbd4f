//! Counting effects: one query, on one connection, before and after each check.
//! Behind the `postgres` feature (on in the workbook), so that the probe alone
//! builds without a database driver.

use crate::error::ProbeError;

#[cfg(feature = "postgres")]
pub struct Effects {
    connection: tokio::sync::Mutex<sqlx::PgConnection>,
    sql: String,
}

#[cfg(feature = "postgres")]
impl Effects {
    pub async fn connect(url: &str, sql: &str) -> Result<Self, ProbeError> {
        use sqlx::Connection;
        let connection = sqlx::PgConnection::connect(url)
            .await
            .map_err(|e| ProbeError::Count(e.to_string()))?;
        let effects = Self {
            connection: tokio::sync::Mutex::new(connection),
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

/// Built without a database driver: asking to count is refused with the fix.
#[cfg(not(feature = "postgres"))]
pub struct Effects;

#[cfg(not(feature = "postgres"))]
impl Effects {
    pub async fn connect(_url: &str, _sql: &str) -> Result<Self, ProbeError> {
        Err(ProbeError::NoCounting)
    }

    pub async fn count(&self) -> Result<i64, ProbeError> {
        Err(ProbeError::NoCounting)
    }
}
