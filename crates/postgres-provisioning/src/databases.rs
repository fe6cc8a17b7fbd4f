//! The server's databases seen from the harness: is the server there, may we
//! create databases on it, and whose databases are these (the names carry their
//! owner, so a killed run's databases can be told from a running one's).

use std::sync::OnceLock;
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};

use crate::backend::Backend;
use crate::cleanup::{alive, host_name};
use crate::error::CreateDbError;
use crate::notice::announce;

/// Connects once and reads `max_connections`: proof that the server answers.
pub(crate) async fn probe(admin: &PgConnectOptions) -> Result<u32, sqlx::Error> {
    let mut conn = tokio::time::timeout(Duration::from_secs(5), PgConnection::connect_with(admin))
        .await
        .map_err(|_| sqlx::Error::PoolTimedOut)??;
    let max: String = sqlx::query_scalar("SHOW max_connections")
        .fetch_one(&mut conn)
        .await?;
    let _ = conn.close().await;
    Ok(max.parse().unwrap_or(100))
}

/// Who creates this process's databases, as their names carry it: this machine (a
/// short hash of its name) and this process, `<host>_<pid>`. A server may be shared
/// by several machines (a `DATABASE_URL`, a remote engine), and a database whose
/// owner is gone must be told from one whose owner is still running.
pub fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| format!("{}_{}", host_tag(), std::process::id()))
}

fn host_tag() -> String {
    crate::hash::content_hash(&host_name())[..8].to_owned()
}

/// The databases the harness names, with their owner: `wb_test_<host>_<pid>_<n>`
/// and `wb_tmpl_<host>_<pid>_<schema>`.
const OWNED_NAMES: &str = "^wb_(test|tmpl)_[0-9a-f]{8}_[0-9]+_";

/// The owner's process, when `name` is a database of this machine's runs.
fn owner_pid(name: &str, host: &str) -> Option<i32> {
    let mut parts = name.split('_').skip(2);
    if parts.next()? != host {
        return None;
    }
    parts.next()?.parse().ok()
}

/// Drops the databases of this machine's runs that are gone: a run killed with
/// `kill -9` (or a lost terminal) drops nothing, and on a server that outlives it
/// (`DATABASE_URL`, the kept container) its databases would pile up. Databases of
/// running processes and of other machines are left alone. Returns how many went.
pub(crate) async fn drop_databases_of_dead_runs(admin: &PgConnectOptions) -> usize {
    let Ok(mut conn) = PgConnection::connect_with(admin).await else {
        return 0;
    };
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname ~ $1")
            .bind(OWNED_NAMES)
            .fetch_all(&mut conn)
            .await
            .unwrap_or_default();
    let host = host_tag();
    let mut dropped = 0;
    for name in names {
        if owner_pid(&name, &host).is_some_and(|pid| !alive(pid))
            && drop_database(&mut conn, &name).await
        {
            dropped += 1;
        }
    }
    let _ = conn.close().await;
    if dropped > 0 {
        announce(&l10n::t!(
            crate::messages::MESSAGES,
            "harness-dropped-databases",
            count = dropped
        ));
    }
    dropped
}

impl Backend {
    /// Drops the databases that test processes of this machine made on this
    /// server and left when they were killed (`kill -9` drops nothing: a run
    /// stopped at its bound, a test process a watching runner cancelled);
    /// those of running processes are left alone. A server that serves run
    /// after run (the runner's, `DATABASE_URL`, the kept container) is swept
    /// before each run; returns how many went.
    pub async fn drop_databases_of_dead_runs(&self) -> usize {
        drop_databases_of_dead_runs(&self.admin).await
    }
}

/// Drops database `name`, ending first the sessions still on it (a failed test's
/// pool, a killed run's connections), which would otherwise make DROP refuse.
/// FORCE (PostgreSQL 13+) also ends one that connected in between; an older
/// server, which lacks it, gets the plain DROP. True when the database is gone.
pub async fn drop_database(conn: &mut PgConnection, name: &str) -> bool {
    end_sessions(conn, name).await;
    let forced = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
    if conn.execute(AssertSqlSafe(forced)).await.is_ok() {
        return true;
    }
    conn.execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")))
        .await
        .is_ok()
}

/// The longest [`end_sessions`] waits for the sessions it ended to be gone.
const SESSIONS_GONE_BOUND: Duration = Duration::from_secs(2);

/// Ends the sessions still on database `name`, and returns once they are gone
/// (or after [`SESSIONS_GONE_BOUND`]).
///
/// DROP DATABASE would end them too (FORCE), but it then checks for sessions
/// every 100 ms (`CountOtherDBBackends`), and an ending session is still there
/// at its first check: a test whose pool was still open when it ended (a
/// failed burst's twenty connections) waited 100 ms for its database to go, on
/// every run. Ending them here and looking every millisecond spares that.
async fn end_sessions(conn: &mut PgConnection, name: &str) {
    let sessions =
        |select: &'static str| sqlx::query_scalar::<_, i64>(select).bind(name.to_owned());
    let ended = sessions(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut *conn)
    .await;
    if !matches!(ended, Ok(n) if n > 0) {
        return;
    }
    let gone_by = tokio::time::Instant::now() + SESSIONS_GONE_BOUND;
    while tokio::time::Instant::now() < gone_by {
        let left = sessions("SELECT count(*) FROM pg_stat_activity WHERE datname = $1")
            .fetch_one(&mut *conn)
            .await;
        if !matches!(left, Ok(n) if n > 0) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// Whether the role logged in on `admin` may create databases: every test gets
/// one of its own. The way out when it may not, in words a newcomer can follow.
pub(crate) async fn may_create_databases(admin: &PgConnectOptions) -> Result<(), CreateDbError> {
    let mut conn = PgConnection::connect_with(admin)
        .await
        .map_err(CreateDbError::Connect)?;
    // CREATEDB is an attribute of the role itself: it is not inherited from roles
    // it is a member of, so this one row is the whole answer.
    let may: Option<bool> = sqlx::query_scalar(
        "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user",
    )
    .fetch_optional(&mut conn)
    .await
    .map_err(CreateDbError::ReadRole)?;
    let _ = conn.close().await;
    match may {
        Some(false) => Err(CreateDbError::NotAllowed {
            role: admin.get_username().to_owned(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{owner, owner_pid};

    #[test]
    fn a_database_name_carries_its_owner_machine_and_process() {
        let (host, pid) = owner().split_once('_').expect("<host>_<pid>");
        assert_eq!(host.len(), 8);
        assert_eq!(pid, std::process::id().to_string());
        let name = format!("wb_test_{}_7", owner());
        assert_eq!(owner_pid(&name, host), Some(std::process::id() as i32));
        assert_eq!(
            owner_pid(&format!("wb_tmpl_{}_0123456789ab", owner()), host),
            Some(std::process::id() as i32)
        );
        // Another machine's runs are not ours to judge.
        assert_eq!(owner_pid(&name, "00000000"), None);
    }
}
