//! One fresh, migrated database per test.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use l10n::t;
use sqlx::postgres::{PgConnectOptions, PgPool};
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection, Row};
use tokio::sync::{OnceCell, OwnedSemaphorePermit, Semaphore};

use postgres_provisioning::{Backend, BackendChoice, NoServer, at_exit, owner, without_createdb};

use crate::admin::{Admin, Statement, copy_strategy};
use crate::burst::fire_concurrently;
use crate::condition::{Condition, report};
use crate::pool::{PoolSize, pool_on};
use crate::server::backend;

/// Why a test could not have its database; every message names the way out.
///
/// A schema's template is made once per process and its failure is shared by
/// every test of that schema ([`TestDbError::Template`]).
#[derive(Debug, thiserror::Error)]
pub enum TestDbError {
    /// No server at all: the message lists what was tried and the ways out.
    #[error(transparent)]
    NoServer(&'static NoServer),
    BudgetClosed(#[source] tokio::sync::AcquireError),
    Connect {
        to: Target,
        #[source]
        source: sqlx::Error,
    },
    /// The role may not create databases (SQLSTATE 42501 on CREATE DATABASE).
    CreateDenied {
        what: Target,
        role: String,
    },
    Create {
        what: Target,
        #[source]
        source: sqlx::Error,
    },
    /// The schema's SQL fails on a fresh database: the learner's file to fix.
    Migration {
        file: &'static str,
        #[source]
        source: sqlx::Error,
    },
    /// A test panicked while it registered a schema's template.
    RegistryPoisoned,
    /// The template of this schema could not be made (for an earlier test of this
    /// process too).
    #[error(transparent)]
    Template(Arc<TestDbError>),
}

/// What the harness connects to or creates, as its messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The server itself (its maintenance database), where databases are made.
    Server,
    /// A test's own database.
    TestDatabase,
    /// The migrated template a schema's test databases are copied from.
    Template,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &crate::messages::MESSAGES;
        f.write_str(&match self {
            Target::Server => t!(m, "target-server"),
            Target::TestDatabase => t!(m, "target-test-database"),
            Target::Template => t!(m, "target-template"),
        })
    }
}

impl std::fmt::Display for TestDbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &crate::messages::MESSAGES;
        let said = match self {
            Self::NoServer(e) => e.to_string(),
            Self::BudgetClosed(e) => t!(m, "db-budget-closed", error = e.to_string()),
            Self::Connect { to, source } => t!(
                m,
                "db-cannot-connect",
                target = to.to_string(),
                error = source.to_string()
            ),
            Self::CreateDenied { what, role } => t!(
                m,
                "db-create-denied",
                target = what.to_string(),
                why = without_createdb(role)
            ),
            Self::Create { what, source } => t!(
                m,
                "db-cannot-create",
                target = what.to_string(),
                error = source.to_string()
            ),
            Self::Migration { file, source } => t!(
                m,
                "db-migration",
                file = *file,
                error = source.to_string(),
                again = run_again(file)
            ),
            Self::RegistryPoisoned => t!(m, "db-registry-poisoned"),
            Self::Template(e) => e.to_string(),
        };
        f.write_str(&said)
    }
}

/// The command that runs a schema's tests again: `cargo workbook stage N` for a
/// file of a stage's crate (`exercises/stageN-...`, `solutions/stageN-...`).
fn run_again(file: &str) -> String {
    let stage = file
        .split('/')
        .nth(1)
        .and_then(|dir| dir.strip_prefix("stage"))
        .and_then(|rest| rest.split('-').next())
        .and_then(|n| n.parse::<u32>().ok());
    match stage {
        Some(n) => t!(
            crate::messages::MESSAGES,
            "run-again-stage",
            number = n.to_string()
        ),
        None => t!(crate::messages::MESSAGES, "run-again-tests"),
    }
}

/// A schema to migrate test databases with, and the file it comes from (named in
/// error messages, so the learner knows what to fix).
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    pub source: &'static str,
    pub sql: &'static str,
}

impl Schema {
    pub const fn new(source: &'static str, sql: &'static str) -> Self {
        Self { source, sql }
    }
}

/// How long a warm pool's logins may take in all, before the test begins.
pub const WARM_UP_BOUND: Duration = Duration::from_secs(30);

/// A database of its own for one test, dropped when this value is dropped.
pub struct TestDb {
    name: String,
    options: PgConnectOptions,
    admin: PgConnectOptions,
    /// The relay its pools go through while bursts are recorded (made with the
    /// first pool).
    relay: OnceLock<Option<crate::trace::Relay>>,
    _budget: OwnedSemaphorePermit,
}

/// The most connections one test may open (its pool, plus one to look at it).
const CONNECTIONS_PER_TEST: u32 = 24;

static NEXT_DB: AtomicU32 = AtomicU32::new(0);

impl TestDb {
    /// Creates a database migrated with `schema`, on this process's server.
    ///
    /// Panics, with a message naming the way out, when no server can be had or the
    /// schema does not apply.
    pub async fn create(schema: Schema) -> TestDb {
        match Self::try_create(schema).await {
            Ok(db) => db,
            Err(why) => panic!("{why}"),
        }
    }

    /// [`TestDb::create`] for a program rather than a test: the message naming the
    /// way out comes back as an error instead of a panic.
    pub async fn try_create(schema: Schema) -> Result<TestDb, TestDbError> {
        let backend = backend().map_err(TestDbError::NoServer)?;
        // Tests run in parallel; keep their connections within the server's limit.
        let budget = connection_budget(backend)
            .acquire_owned()
            .await
            .map_err(TestDbError::BudgetClosed)?;
        let template = template_for(backend, schema)
            .await
            .map_err(TestDbError::Template)?;
        let name = format!(
            "wb_test_{}_{}",
            owner(),
            NEXT_DB.fetch_add(1, Ordering::Relaxed)
        );
        Admin::of(&backend.admin)
            .run(Statement::Create {
                name: name.clone(),
                template,
            })
            .await
            .map_err(|e| create_error(&backend.admin, Target::TestDatabase, e))?;
        Ok(TestDb {
            options: backend.admin.clone().database(&name),
            admin: backend.admin.clone(),
            name,
            relay: OnceLock::new(),
            _budget: budget,
        })
    }

    /// The database's name (unique in this test run).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Connection options for this database.
    pub fn options(&self) -> &PgConnectOptions {
        &self.options
    }

    /// A URL for this database that `psql` and sqlx both read, password included
    /// (the container's is the harness's own `postgres`; a `DATABASE_URL`'s is kept).
    pub fn url(&self) -> String {
        if let Ok(backend) = backend()
            && backend.choice == BackendChoice::Url
            && let Ok(url) = std::env::var("DATABASE_URL")
        {
            return with_database(&url, &self.name);
        }
        let user = self.options.get_username();
        let port = self.options.get_port();
        match self.options.get_socket() {
            Some(socket) => format!(
                "postgresql://{user}@localhost:{port}/{}?host={}",
                self.name,
                socket.display()
            ),
            None => format!(
                "postgresql://{user}:postgres@{}:{port}/{}",
                self.options.get_host(),
                self.name
            ),
        }
    }

    /// A pool on this database, connections opened lazily as callers ask for them.
    ///
    /// While bursts are recorded (under the runner), its connections are named
    /// after the request that takes them and go through a relay that reads what
    /// they send: see the `trace` module.
    pub fn pool(&self, size: PoolSize) -> PgPool {
        if crate::trace::enabled() {
            let relay = self
                .relay
                .get_or_init(|| crate::trace::Relay::start(&self.options));
            return crate::trace::pool(relay.as_ref(), &self.options, size);
        }
        pool_on(&self.options, size)
    }

    /// A pool whose connections are all open before the test starts, so that a
    /// burst measures the code and not connection set-up.
    ///
    /// Logging in is not the scenario: the pool's acquire timeout bounds what the
    /// test does with the pool, not how long the server takes to let 20 sessions in
    /// (a scram-sha-256 login costs ~40 ms of CPU in the tests' unoptimised build;
    /// on a loaded machine 20 of them at once passed 2 s). A login cut short by the
    /// acquire timeout is tried again, within [`WARM_UP_BOUND`] in all.
    pub async fn warm_pool(&self, size: PoolSize) -> PgPool {
        let pool = self.pool(size);
        let deadline = Instant::now() + WARM_UP_BOUND;
        // All at once: the server starts its backends in parallel.
        let opening: Vec<_> = (0..size.max_connections)
            .map(|_| {
                let pool = pool.clone();
                tokio::spawn(async move {
                    loop {
                        match pool.acquire().await {
                            Err(sqlx::Error::PoolTimedOut) if Instant::now() < deadline => {}
                            done => return done,
                        }
                    }
                })
            })
            .collect();
        let mut held = Vec::with_capacity(opening.len());
        for task in opening {
            match task.await {
                Ok(Ok(conn)) => held.push(conn),
                Ok(Err(e)) => {
                    report(&Condition::ConnectionsNotOpened {
                        connections: size.max_connections,
                        error: e.to_string(),
                    });
                    match e {
                        sqlx::Error::PoolTimedOut => panic!(
                            "{}",
                            t!(
                                crate::messages::MESSAGES,
                                "db-logins-too-slow",
                                opened = held.len().to_string(),
                                wanted = size.max_connections.to_string(),
                                seconds = WARM_UP_BOUND.as_secs().to_string()
                            )
                        ),
                        e => panic!(
                            "{}",
                            t!(
                                crate::messages::MESSAGES,
                                "db-connections-not-opened",
                                wanted = size.max_connections.to_string(),
                                error = e.to_string()
                            )
                        ),
                    }
                }
                Err(e) => panic!(
                    "{}",
                    t!(
                        crate::messages::MESSAGES,
                        "db-opening-failed",
                        error = e.to_string()
                    )
                ),
            }
        }
        drop(held);
        pool
    }

    /// A connection of its own, outside any pool.
    pub async fn connect(&self) -> PgConnection {
        self.connect_with(&self.options).await
    }

    /// A connection of its own that PostgreSQL (and a burst's trace) knows by
    /// `application_name`.
    pub(crate) async fn connect_as(&self, application_name: &str) -> PgConnection {
        self.connect_with(&self.options.clone().application_name(application_name))
            .await
    }

    async fn connect_with(&self, options: &PgConnectOptions) -> PgConnection {
        match PgConnection::connect_with(options).await {
            Ok(conn) => conn,
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "db-cannot-connect-to",
                    name = &self.name,
                    error = e.to_string()
                )
            ),
        }
    }

    /// Runs one statement on a connection of its own, e.g. to arrange a fault.
    pub async fn execute(&self, sql: &'static str) {
        let mut conn = self.connect().await;
        if let Err(e) = conn.execute(sql).await {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "db-arranging-failed",
                    sql = format!("{sql:?}"),
                    error = e.to_string()
                )
            );
        }
        let _ = conn.close().await;
    }

    /// Counts the rows of `payments`.
    pub async fn payment_count(&self) -> i64 {
        self.count("SELECT count(*) FROM payments").await
    }

    /// Runs a `SELECT count(*) ...` on a connection of its own.
    pub async fn count(&self, sql: &'static str) -> i64 {
        let mut conn = self.connect().await;
        let count = match sqlx::query_scalar::<_, i64>(sql).fetch_one(&mut conn).await {
            Ok(count) => count,
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "db-count-failed",
                    sql = format!("{sql:?}"),
                    error = e.to_string()
                )
            ),
        };
        let _ = conn.close().await;
        count
    }

    /// What the pool and the server's sessions are doing, for a failure message:
    /// the pool's size and idle connections, and `pg_stat_activity` for this database.
    pub async fn describe(&self, pool: &PgPool) -> String {
        let m = &crate::messages::MESSAGES;
        let mut text = t!(
            m,
            "pool-state",
            open = pool.size().to_string(),
            max = pool.options().get_max_connections().to_string(),
            idle = pool.num_idle().to_string()
        );
        let sessions = async {
            let mut conn = PgConnection::connect_with(&self.options).await?;
            let rows = sqlx::query(
                "SELECT coalesce(state, '?') AS state, coalesce(wait_event_type, '-') AS wait_event_type,
                        coalesce(wait_event, '-') AS wait_event, count(*) AS n
                 FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()
                 GROUP BY 1, 2, 3 ORDER BY 4 DESC",
            )
            .fetch_all(&mut conn)
            .await?;
            let _ = conn.close().await;
            Ok::<_, sqlx::Error>(rows)
        };
        match tokio::time::timeout(Duration::from_secs(2), sessions).await {
            Ok(Ok(rows)) if rows.is_empty() => {
                text.push_str(&format!("; {}", t!(m, "pool-no-sessions")))
            }
            Ok(Ok(rows)) => {
                let parts: Vec<String> = rows
                    .iter()
                    .map(|row| {
                        let state: String = row.get("state");
                        let wait_type: String = row.get("wait_event_type");
                        let wait_event: String = row.get("wait_event");
                        let n: i64 = row.get("n");
                        let n = n.to_string();
                        match (wait_type.as_str(), wait_event.as_str()) {
                            ("-", _) => t!(m, "pool-session", count = n, state = state),
                            // Not a lock wait: the server waits for the application
                            // to send its next command, and the application sends none.
                            ("Client", "ClientRead") => {
                                t!(m, "pool-session-client-read", count = n, state = state)
                            }
                            _ => t!(
                                m,
                                "pool-session-waiting",
                                count = n,
                                state = state,
                                wait = format!("{wait_type}/{wait_event}")
                            ),
                        }
                    })
                    .collect();
                text.push_str(&format!(
                    "; {}",
                    t!(m, "pool-sessions", sessions = parts.join(", "))
                ));
            }
            Ok(Err(e)) => text.push_str(&format!(
                "; {}",
                t!(m, "pool-activity-unavailable", error = e.to_string())
            )),
            Err(_) => text.push_str(&format!("; {}", t!(m, "pool-activity-silent"))),
        }
        text
    }
}

impl TestDb {
    /// [`fire_concurrently`](crate::fire_concurrently), watched: if the burst is
    /// still running after `look_after`, the pool's and the server's state is taken
    /// once, so that a hang can be explained after it failed.
    pub async fn fire_watched<F, Fut, T>(
        &self,
        pool: &PgPool,
        look_after: Duration,
        n: usize,
        call: F,
    ) -> (Vec<T>, Option<String>)
    where
        F: Fn(usize) -> Fut,
        Fut: std::future::Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let burst = fire_concurrently(n, call);
        tokio::pin!(burst);
        tokio::select! {
            results = &mut burst => (results, None),
            () = tokio::time::sleep(look_after) => {
                let state = self.describe(pool).await;
                report(&Condition::PoolState { state: state.clone() });
                (burst.await, Some(state))
            }
        }
    }
}

/// `url` with its database (the path) replaced by `database`, query kept.
fn with_database(url: &str, database: &str) -> String {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    let path_start = url[after_scheme..]
        .find(['/', '?'])
        .map_or(url.len(), |at| after_scheme + at);
    let query = url[path_start..]
        .find('?')
        .map_or("", |at| &url[path_start + at..]);
    format!("{}/{database}{query}", &url[..path_start])
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = std::mem::take(&mut self.name);
        // Drop runs inside the test's runtime (and during a panic): the admin
        // connections' own runtime drops it, and this waits, so the database is
        // gone on return.
        let _ = Admin::of(&self.admin).run_blocking(Statement::Drop { name });
    }
}

/// Runs `create` (a CREATE DATABASE, completed with the copy strategy) on the
/// server as `admin`; a role without CREATEDB is told how to get it.
async fn create_database(
    admin: &PgConnectOptions,
    what: Target,
    create: &str,
) -> Result<(), TestDbError> {
    let mut conn =
        PgConnection::connect_with(admin)
            .await
            .map_err(|source| TestDbError::Connect {
                to: Target::Server,
                source,
            })?;
    let strategy = copy_strategy(&conn);
    let created = conn
        .execute(AssertSqlSafe(format!("{create}{strategy}")))
        .await;
    let _ = conn.close().await;
    created
        .map(|_| ())
        .map_err(|e| create_error(admin, what, e))
}

/// A failed CREATE DATABASE of `what` as `admin`'s role: a role without CREATEDB
/// is told how to get it.
fn create_error(admin: &PgConnectOptions, what: Target, e: sqlx::Error) -> TestDbError {
    // insufficient_privilege: CREATEDB is what the role lacks.
    if e.as_database_error().and_then(|db| db.code()).as_deref() == Some("42501") {
        TestDbError::CreateDenied {
            what,
            role: admin.get_username().to_owned(),
        }
    } else {
        TestDbError::Create { what, source: e }
    }
}

fn connection_budget(backend: &Backend) -> Arc<Semaphore> {
    static BUDGET: OnceLock<Arc<Semaphore>> = OnceLock::new();
    BUDGET
        .get_or_init(|| {
            let usable = backend.max_connections.saturating_sub(10);
            let tests = (usable / CONNECTIONS_PER_TEST).max(1);
            Arc::new(Semaphore::new(tests as usize))
        })
        .clone()
}

type TemplateCell = Arc<OnceCell<Result<String, Arc<TestDbError>>>>;

/// The template database for a schema, migrated once per process.
///
/// No connection stays open on a template: CREATE DATABASE ... TEMPLATE waits
/// for them and then fails.
async fn template_for(
    backend: &'static Backend,
    schema: Schema,
) -> Result<String, Arc<TestDbError>> {
    static TEMPLATES: Mutex<Option<HashMap<String, TemplateCell>>> = Mutex::new(None);
    let hash = content_hash(schema.sql);
    let cell = {
        let mut templates = TEMPLATES
            .lock()
            .map_err(|_| Arc::new(TestDbError::RegistryPoisoned))?;
        templates
            .get_or_insert_with(HashMap::new)
            .entry(hash.clone())
            .or_default()
            .clone()
    };
    cell.get_or_init(|| async move {
        let name = format!("wb_tmpl_{}_{}", owner(), &hash[..12]);
        let made = make_template(backend, &name, schema).await;
        // Registered even when migrating failed: the half-made template must go too.
        // A local cluster of this process goes as a whole when the process exits,
        // templates and all; one handed over by the runner serves its next runs.
        if backend.choice != BackendChoice::Local || backend.handed_over {
            let dropped = name.clone();
            at_exit(move || {
                let _ = Admin::of(&backend.admin).run_blocking(Statement::Drop { name: dropped });
            });
        }
        made.map(|()| name).map_err(Arc::new)
    })
    .await
    .clone()
}

async fn make_template(backend: &Backend, name: &str, schema: Schema) -> Result<(), TestDbError> {
    create_database(
        &backend.admin,
        Target::Template,
        &format!("CREATE DATABASE {name}"),
    )
    .await?;
    let mut conn = PgConnection::connect_with(&backend.admin.clone().database(name))
        .await
        .map_err(|source| TestDbError::Connect {
            to: Target::Template,
            source,
        })?;
    let migrated = conn.execute(sqlx::raw_sql(schema.sql)).await;
    let _ = conn.close().await;
    migrated
        .map(|_| ())
        .map_err(|source| TestDbError::Migration {
            file: schema.source,
            source,
        })
}

/// SHA-256 of some text, in hex: names derived from content (a cache directory,
/// a template database).
pub(crate) fn content_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    payment_model::hex(&Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gets_another_database_and_keeps_its_query() {
        assert_eq!(
            with_database("postgres://app:pw@db:5432/postgres?sslmode=disable", "wb_1"),
            "postgres://app:pw@db:5432/wb_1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://db", "wb_1"), "postgres://db/wb_1");
    }

    #[test]
    fn a_stages_migration_is_fixed_and_run_again_with_the_stages_command() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        assert_eq!(
            run_again("exercises/stage8-key-per-client/migrations/0001_clients.sql"),
            "`cargo workbook stage 8`"
        );
        assert_eq!(
            run_again("solutions/stage11-payment-provider/migrations/0002_recovery_points.sql"),
            "`cargo workbook stage 11`"
        );
        assert_eq!(run_again("tests/fixtures/broken.sql"), "the tests");
        assert_eq!(run_again("schema.sql"), "the tests");
    }

    #[test]
    fn a_role_without_createdb_is_named_with_the_grant_that_fixes_it() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let why = TestDbError::CreateDenied {
            what: Target::TestDatabase,
            role: "app".to_owned(),
        }
        .to_string();
        assert!(
            why.starts_with("harness: could not create the test database: the role app may not create databases (it lacks CREATEDB)"),
            "the message says what could not be made, and why: {why}"
        );
        assert!(
            why.contains("ALTER ROLE \"app\" CREATEDB;") && why.contains("DATABASE_URL"),
            "the message names the grant, and the other ways out: {why}"
        );
    }

    #[test]
    fn a_server_that_cannot_be_reached_or_used_points_at_doctor() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        for why in [
            TestDbError::Connect {
                to: Target::Server,
                source: sqlx::Error::PoolTimedOut,
            },
            TestDbError::Create {
                what: Target::Template,
                source: sqlx::Error::PoolTimedOut,
            },
        ] {
            let why = why.to_string();
            assert!(
                why.starts_with("harness: cannot connect to the server: ")
                    || why.starts_with("harness: could not create a template database: "),
                "the message says what failed: {why}"
            );
            assert!(
                why.ends_with("(`cargo workbook doctor` shows which server they use)"),
                "the message names a command that explains the server: {why}"
            );
        }
    }

    /// The denial is recognised by its SQLSTATE on a real server, not by words.
    #[tokio::test]
    async fn create_database_as_a_role_without_createdb_is_a_denial_naming_the_role() {
        let backend = backend().expect("a server for the tests");
        let role = format!("wb_db_no_createdb_{}", std::process::id());
        let mut admin = PgConnection::connect_with(&backend.admin)
            .await
            .expect("connect to the server");
        admin
            .execute(AssertSqlSafe(format!(
                "CREATE ROLE {role} LOGIN PASSWORD 'secret' NOCREATEDB"
            )))
            .await
            .expect("create a role without CREATEDB");
        let as_role = backend.admin.clone().username(&role).password("secret");
        let name = format!("wb_test_{}_denied", owner());
        let made = create_database(
            &as_role,
            Target::TestDatabase,
            &format!("CREATE DATABASE {name}"),
        )
        .await;
        let _ = admin
            .execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")))
            .await;
        let _ = admin
            .execute(AssertSqlSafe(format!("DROP ROLE {role}")))
            .await;
        let _ = admin.close().await;
        match made {
            Err(TestDbError::CreateDenied { what, role: named }) => {
                assert_eq!(what, Target::TestDatabase);
                assert_eq!(named, role, "the role the harness logged in as");
            }
            other => panic!("expected a denial for lack of CREATEDB, got {other:?}"),
        }
    }
}
