//! `just reap`: deletes the expired idempotency keys once, and says how many.
//!
//!     DATABASE_URL=postgres://... just reap [RETENTION_HOURS]
//!
//! For cron, or for a deployment that runs no background reaper.

use std::process::ExitCode;
use std::time::Duration;

use sqlx::postgres::PgPoolOptions;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::var_os("DATABASE_URL").and_then(|url| url.into_string().ok()) else {
        eprintln!(
            "reap: set DATABASE_URL to the payments database, e.g. DATABASE_URL=postgres://user@host/db just reap"
        );
        return ExitCode::from(2);
    };
    let mut config = stage9::Config::default();
    if let Some(hours) = std::env::args().nth(1) {
        match hours.parse::<u64>() {
            Ok(hours) if hours > 0 => config.retention = Duration::from_secs(hours * 3600),
            _ => {
                eprintln!(
                    "reap: the retention is a whole number of hours (e.g. `just reap 24`), not {hours:?}"
                );
                return ExitCode::from(2);
            }
        }
    }
    let pool = match PgPoolOptions::new().max_connections(1).connect(&url).await {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("reap: cannot connect to DATABASE_URL: {e}");
            return ExitCode::FAILURE;
        }
    };
    match stage9::reap_expired_keys(&pool, &config).await {
        Ok(reaped) => {
            println!(
                "reap: deleted {} key(s) older than {} h, in {} batch(es) of at most {}",
                reaped.keys,
                config.retention.as_secs() / 3600,
                reaped.batches,
                config.reap_batch
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("reap: {e}");
            ExitCode::FAILURE
        }
    }
}
