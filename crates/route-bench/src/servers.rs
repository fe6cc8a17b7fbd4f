//! The servers the bench runs on, and what each one really is.
//!
//! With local binaries the bench starts two clusters of its own, beside nothing
//! else: the tests' throwaway settings (`fsync=off`, in memory when it can) and a
//! production-like one (`fsync`, `synchronous_commit` and `full_page_writes` on,
//! its data directory on the disk). With `DATABASE_URL` or a container it uses the
//! harness's server as it is, and says what it could not vary.

use std::path::PathBuf;

use harness::{Schema, TestDb};
use postgres_provisioning::{ClusterSettings, LocalCluster};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};

use crate::error::BenchError;
use crate::peers::{self, Peer};

/// One server to measure on, and its facts.
pub struct Server {
    /// Which setup this is: "throwaway" (the tests' settings: fsync=off, in memory
    /// when it can), "durable" (fsync and synchronous_commit on, data on the disk), or
    /// "configured" (the harness's server as it was configured).
    pub setup: &'static str,
    /// Connects to the database the bench made there.
    pub options: PgConnectOptions,
    /// The harness's description of the server (which binaries or image, where).
    pub postgres: String,
    /// What the server says it runs with (`SHOW` of the settings that matter).
    pub settings: String,
    /// The file system of its data directory, when the bench can see it.
    pub data_on: Option<String>,
    /// libpq's connection string for `pgbench`, when the bench knows one.
    pub conninfo: Option<String>,
    /// Where `pgbench` is, when local binaries were found.
    pub pgbench: Option<PathBuf>,
    /// The data directory, when the bench started the server (to read its CPU time).
    pub data_dir: Option<PathBuf>,
    /// The article's servers, each on a database of its own here. Declared before
    /// the owner: they stop before their server does.
    pub peers: Vec<Peer>,
    /// Keeps the server or the test database alive while it is measured.
    /// (A [`LocalCluster`] or a [`TestDb`]: dropping it stops or drops it.)
    _owner: Box<dyn std::any::Any>,
}

const BENCH_DB: &str = "wb_bench";

/// The servers to measure on: two local clusters when the harness would use local
/// binaries, else the harness's own server (then fsync, synchronous_commit and where
/// its data directory lives are as it was configured: only one setup is measured).
pub async fn servers(schema: Schema) -> Result<Vec<Server>, BenchError> {
    let forced = std::env::var("WORKBOOK_DB").unwrap_or_default();
    let elsewhere = forced.trim() == "url"
        || forced.trim() == "container"
        || (forced.trim().is_empty() && std::env::var_os("DATABASE_URL").is_some());
    if elsewhere {
        return Ok(vec![harness_server(schema).await?]);
    }
    let in_memory = LocalCluster::start(ClusterSettings::default())
        .await
        .map_err(BenchError::Cluster)?;
    let on_disk = LocalCluster::start(ClusterSettings {
        place: Some(std::env::temp_dir()),
        durable: true,
        ..ClusterSettings::default()
    })
    .await
    .map_err(BenchError::Cluster)?;
    Ok(vec![
        cluster_server("throwaway", in_memory, schema).await?,
        cluster_server("durable", on_disk, schema).await?,
    ])
}

async fn cluster_server(
    setup: &'static str,
    cluster: LocalCluster,
    schema: Schema,
) -> Result<Server, BenchError> {
    let mut admin = PgConnection::connect_with(&cluster.backend.admin).await?;
    admin
        .execute(AssertSqlSafe(format!("CREATE DATABASE {BENCH_DB}")))
        .await?;
    let _ = admin.close().await;
    let options = cluster.backend.admin.clone().database(BENCH_DB);
    let mut conn = PgConnection::connect_with(&options).await?;
    conn.execute(sqlx::raw_sql(schema.sql)).await?;
    let _ = conn.close().await;
    let data_on = postgres_provisioning::file_system_of(&cluster.run_dir.join("data"))
        .unwrap_or_else(|| "an unknown file system".to_owned());
    let pgbench = find_pgbench(&cluster.binaries.bindir);
    let peers = peers::start(peers::Place::Cluster(&cluster)).await?;
    Ok(Server {
        peers,
        setup,
        conninfo: Some(cluster.conninfo(BENCH_DB)),
        data_dir: Some(cluster.run_dir.join("data")),
        postgres: cluster.backend.description.clone(),
        settings: settings(&options).await?,
        data_on: Some(data_on),
        options,
        pgbench,
        _owner: Box::new(cluster),
    })
}

/// `pgbench` beside the `postgres` the harness found, or beside the file that
/// `postgres` links to (`/usr/local/bin/postgres` -> `/usr/lib/postgresql/15/bin`).
fn find_pgbench(bindir: &std::path::Path) -> Option<PathBuf> {
    let linked = bindir
        .join("postgres")
        .canonicalize()
        .ok()
        .and_then(|real| real.parent().map(|dir| dir.join("pgbench")));
    std::iter::once(bindir.join("pgbench"))
        .chain(linked)
        .find(|candidate| candidate.is_file())
}

async fn harness_server(schema: Schema) -> Result<Server, BenchError> {
    let backend = harness::backend().map_err(BenchError::NoServer)?;
    let db = TestDb::create(schema).await;
    let options = db.options().clone();
    let peers = peers::start(peers::Place::Harness).await?;
    Ok(Server {
        peers,
        setup: "configured",
        postgres: backend.description.clone(),
        settings: settings(&options).await?,
        // On the server's machine, out of the bench's sight.
        data_on: None,
        options,
        conninfo: None,
        pgbench: None,
        data_dir: None,
        _owner: Box::new(db),
    })
}

/// What the server says it runs with.
async fn settings(options: &PgConnectOptions) -> Result<String, BenchError> {
    let mut conn = PgConnection::connect_with(options).await?;
    let mut said = Vec::new();
    for name in [
        "server_version",
        "fsync",
        "synchronous_commit",
        "full_page_writes",
        "wal_sync_method",
    ] {
        let value: String = sqlx::query_scalar(AssertSqlSafe(format!("SHOW {name}")))
            .fetch_one(&mut conn)
            .await?;
        said.push(format!("{name}={value}"));
    }
    let _ = conn.close().await;
    Ok(format!("SHOW: {}", said.join(", ")))
}

/// The pool every route shares: the harness's settings for tests (no ping before
/// each acquire), all connections open before the first request.
pub async fn warm_pool(options: &PgConnectOptions, size: u32) -> Result<PgPool, BenchError> {
    let pool = PgPoolOptions::new()
        .max_connections(size)
        .test_before_acquire(false)
        .connect_lazy_with(options.clone());
    let opening: Vec<_> = (0..size).map(|_| tokio::spawn(pool.acquire())).collect();
    let mut held = Vec::with_capacity(opening.len());
    for task in opening {
        held.push(task.await.map_err(BenchError::Task)??);
    }
    drop(held);
    Ok(pool)
}
