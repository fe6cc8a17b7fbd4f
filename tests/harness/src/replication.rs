//! Two servers for one test: a primary and its streaming standby, started by the
//! test itself from the local PostgreSQL binaries, which the test can cut, crash
//! and promote.
//!
//! The runner hands one server to the tests' processes (`WORKBOOK_SERVER`), and a
//! test may not crash it. So a test that fails a server over starts its own pair
//! ([`Pair::start`]), whatever the backend of the other tests: a server from
//! `DATABASE_URL` cannot be crashed or promoted by a test, and the workbook's
//! container runs one server, so the pair comes from local binaries (said once
//! per process, [`Pair::start`]). Both servers are gone when the `Pair` is dropped,
//! when the test panics, and when the process is killed (their supervisors; see
//! `postgres_provisioning::StandbyPair`).
//!
//! Every operation waits for a server state or a WAL position, bounded, and panics
//! with what it saw when the servers do not get there: a test that fails says why.

use std::fmt;
use std::io::Write;
use std::sync::Once;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool};
use sqlx::{Connection, Executor, PgConnection};

pub use postgres_provisioning::{
    Lsn, PrimaryState, STANDBY_NAME, Server, StandbyPair, StandbyState, WalSender,
};

use crate::db::{Schema, TestDbError};
use crate::pool::{PoolSize, pool_on};
use l10n::t;

/// A `postgresql.conf` of the package under test (stage 13's `primary.conf`), and
/// the file it comes from (named when a line of it cannot be read).
#[derive(Debug, Clone, Copy)]
pub struct ServerSettings {
    pub source: &'static str,
    pub text: &'static str,
}

impl ServerSettings {
    pub const fn new(source: &'static str, text: &'static str) -> Self {
        Self { source, text }
    }

    /// No setting: PostgreSQL's defaults (asynchronous replication).
    pub const fn none() -> Self {
        Self::new("(none)", "")
    }

    /// Its `name = value` lines, as PostgreSQL reads them: `#` starts a comment,
    /// the `=` is optional, a value is a word or a single-quoted string (`''` is
    /// a quote inside it).
    pub fn parse(&self) -> Result<Vec<(String, String)>, SettingsError> {
        let mut settings = Vec::new();
        for (at, line) in self.text.lines().enumerate() {
            let bad = |why: &'static str| SettingsError {
                file: self.source,
                line: at + 1,
                text: line.to_owned(),
                why,
            };
            let rest = line.trim_start();
            if rest.is_empty() || rest.starts_with('#') {
                continue;
            }
            let name_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            let (name, rest) = rest.split_at(name_end);
            if name.is_empty() {
                return Err(bad("a line is `name = value`"));
            }
            let rest = rest.trim_start();
            let rest = rest.strip_prefix('=').unwrap_or(rest).trim_start();
            let (value, rest) = conf_value(rest).ok_or_else(|| bad("the value is missing"))?;
            let rest = rest.trim_start();
            if !(rest.is_empty() || rest.starts_with('#')) {
                return Err(bad(
                    "one setting per line; a value with blanks goes in single quotes",
                ));
            }
            settings.push((name.to_owned(), value));
        }
        Ok(settings)
    }
}

/// A value at the start of `text`, and what follows it.
fn conf_value(text: &str) -> Option<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('\'') {
        let mut value = String::new();
        let mut chars = quoted.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '\'' if chars.peek().map(|(_, next)| *next) == Some('\'') => {
                    value.push('\'');
                    chars.next();
                }
                '\'' => return Some((value, &quoted[at + 1..])),
                '\\' => {
                    let (_, escaped) = chars.next()?;
                    value.push(escaped);
                }
                c => value.push(c),
            }
        }
        None
    } else {
        let end = text
            .find(|c: char| c.is_whitespace() || c == '#')
            .unwrap_or(text.len());
        (end > 0).then(|| (text[..end].to_owned(), &text[end..]))
    }
}

/// A line of a settings file that is not a setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}, line {line}: {why}: {text:?}")]
pub struct SettingsError {
    pub file: &'static str,
    pub line: usize,
    pub text: String,
    pub why: &'static str,
}

/// A primary and its standby for one test, with the test's tables on them.
pub struct Pair {
    servers: StandbyPair,
}

impl Pair {
    /// Starts a primary with `settings`, then its standby; creates `schema` in the
    /// primary's `postgres` database, and returns once the standby has replayed it.
    ///
    /// Panics, saying what to do, when the binaries are missing, a line of
    /// `settings` is not a setting, the servers do not start, or the schema does
    /// not apply.
    pub async fn start(settings: ServerSettings, schema: Schema) -> Pair {
        let primary = settings.parse().unwrap_or_else(|e| {
            panic!(
                "{e}\nFix the file and run the tests again: the primary starts with its settings."
            )
        });
        let servers = StandbyPair::start(primary).await.unwrap_or_else(|e| {
            panic!(
                "harness: {e}\nA test that fails a server over starts its own primary and standby \
                 from PostgreSQL's server binaries (initdb and postgres: Debian/Ubuntu: apt-get \
                 install postgresql; macOS: brew install postgresql@15). \
                 `cargo workbook doctor` shows what this machine has."
            )
        });
        announce(&servers);
        let pair = Pair { servers };
        let mut primary = pair.connect(Server::Primary).await;
        let migrated = primary.execute(sqlx::raw_sql(schema.sql)).await;
        let _ = primary.close().await;
        if let Err(source) = migrated {
            panic!(
                "{}",
                TestDbError::Migration {
                    file: schema.source,
                    source
                }
            );
        }
        pair.catch_up().await;
        pair
    }

    /// The two servers, for what this module does not wrap.
    pub fn servers(&self) -> &StandbyPair {
        &self.servers
    }

    /// How to connect to `server`'s `postgres` database, where the tables are.
    pub fn options(&self, server: Server) -> PgConnectOptions {
        self.servers.options(server).clone()
    }

    /// A pool on `server`, connections opened as callers ask for them.
    pub fn pool(&self, server: Server, size: PoolSize) -> PgPool {
        pool_on(&self.options(server), size)
    }

    /// A pool on `server` whose sessions start with `settings` (sent at login, as
    /// `PGOPTIONS='-c name=value'` would), e.g. `[("synchronous_commit", "local")]`.
    pub fn pool_with_settings(
        &self,
        server: Server,
        size: PoolSize,
        settings: &[(&str, &str)],
    ) -> PgPool {
        pool_on(
            &self.options(server).options(settings.iter().copied()),
            size,
        )
    }

    /// A connection of its own to `server`.
    pub async fn connect(&self, server: Server) -> PgConnection {
        self.servers
            .connect(server)
            .await
            .unwrap_or_else(|e| panic!("harness: {e}"))
    }

    /// Runs one statement on `server`, e.g. to arrange the test.
    pub async fn execute(&self, server: Server, sql: &'static str) {
        let mut conn = self.connect(server).await;
        if let Err(e) = conn.execute(sql).await {
            panic!("harness: arranging the test on {server} failed on {sql:?}: {e}");
        }
        let _ = conn.close().await;
    }

    /// Runs a `SELECT count(*) ...` on `server`.
    pub async fn count(&self, server: Server, sql: &'static str) -> i64 {
        let mut conn = self.connect(server).await;
        let count = sqlx::query_scalar::<_, i64>(sql)
            .fetch_one(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("harness: {sql:?} on {server} failed: {e}"));
        let _ = conn.close().await;
        count
    }

    /// What the primary says of replication now.
    pub async fn primary_state(&self) -> PrimaryState {
        ok(self.servers.primary_state().await)
    }

    /// What the standby says of replication now.
    pub async fn standby_state(&self) -> StandbyState {
        ok(self.servers.standby_state().await)
    }

    /// Stops the standby's stream: it receives nothing more until
    /// [`Pair::restore_stream`]. Returns once neither server streams.
    pub async fn cut_stream(&self) {
        ok(self.servers.cut_stream().await)
    }

    /// Lets the standby stream again; returns once it does.
    pub async fn restore_stream(&self) {
        ok(self.servers.restore_stream().await)
    }

    /// Crashes the primary (`pg_ctl stop -m immediate`'s SIGQUIT); returns once it
    /// is gone.
    pub async fn crash_primary(&self) {
        ok(self.servers.crash_primary().await)
    }

    /// Promotes the standby; returns once it accepts writes.
    pub async fn promote_standby(&self) {
        ok(self.servers.promote_standby().await)
    }

    /// Returns once the standby has replayed every commit the primary returned.
    pub async fn catch_up(&self) -> StandbyState {
        ok(self.servers.catch_up().await)
    }

    /// Pauses the standby's replay (it keeps receiving); returns once it is paused.
    pub async fn pause_replay(&self) {
        ok(self.servers.pause_replay().await)
    }

    /// Resumes the standby's replay.
    pub async fn resume_replay(&self) {
        ok(self.servers.resume_replay().await)
    }

    /// Returns once `n` COMMITs on the primary wait for the standby.
    pub async fn until_commits_wait(&self, n: i64) -> PrimaryState {
        ok(self.servers.until_commits_wait(n, Duration::ZERO).await)
    }

    /// Returns once `n` COMMITs on the primary have waited for the standby for
    /// `longer_than` or more.
    pub async fn until_commits_waited(&self, n: i64, longer_than: Duration) -> PrimaryState {
        ok(self.servers.until_commits_wait(n, longer_than).await)
    }

    /// Returns once no COMMIT on the primary waits for the standby.
    pub async fn until_no_commit_waits(&self) -> PrimaryState {
        ok(self.servers.until_no_commit_waits().await)
    }

    /// Cancels every COMMIT's wait for the standby; returns how many.
    pub async fn cancel_waiting_commits(&self) -> i64 {
        ok(self.servers.cancel_waiting_commits().await)
    }
}

impl fmt::Debug for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.servers.description)
    }
}

fn ok<T>(done: Result<T, postgres_provisioning::ReplicationError>) -> T {
    done.unwrap_or_else(|e| panic!("harness: {e}"))
}

/// Says once per process where the pairs come from, and why.
fn announce(servers: &StandbyPair) {
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        let text = t!(
            crate::messages::MESSAGES,
            "each-failover-test-starts-a-pair",
            pair = servers.description.as_str()
        );
        // Outside libtest's capture, as the harness's other notes.
        let _ = writeln!(std::io::stderr(), "{text}");
        crate::report(&crate::Condition::Note { text });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &'static str) -> Result<Vec<(String, String)>, SettingsError> {
        ServerSettings::new("primary.conf", text).parse()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn settings_are_read_as_postgresql_reads_its_conf() {
        let text = "# comments and blank lines are skipped\n\n\
                    synchronous_standby_names = 'FIRST 1 (standby1)'  # a comment\n\
                    synchronous_commit=local\n\
                    application_name 'it''s'\n\
                    wal_keep_size = '64MB'";
        assert_eq!(
            parsed(text),
            Ok(pairs(&[
                ("synchronous_standby_names", "FIRST 1 (standby1)"),
                ("synchronous_commit", "local"),
                ("application_name", "it's"),
                ("wal_keep_size", "64MB"),
            ]))
        );
        assert_eq!(parsed("# nothing but comments\n"), Ok(vec![]));
    }

    #[test]
    fn a_line_that_is_not_a_setting_names_its_file_and_line() {
        let why = parsed("synchronous_commit = on\nsynchronous_standby_names = FIRST 1 (standby1)")
            .expect_err("an unquoted value with blanks is refused")
            .to_string();
        assert!(
            why.starts_with("primary.conf, line 2: one setting per line; a value with blanks"),
            "{why}"
        );
        let why = parsed("synchronous_commit =").expect_err("a missing value is refused");
        assert_eq!(why.why, "the value is missing");
        let why = parsed("= on").expect_err("a missing name is refused");
        assert_eq!(why.line, 1);
        assert!(parsed("x = 'unterminated").is_err());
    }
}
