//! The peers a reader would pick instead of our routes: the article's own servers
//! in Python, TypeScript, Go and Java (`servers/`, their correct versions), each
//! on a database of its own on the server being measured, as the article wrote
//! them: its pool of 10 (`servers/start.sh`'s default, the `pg` default the
//! article used), and no simulated card authorisation (`AUTORIZACAO_MS=0`: the
//! pause stands in for a provider call the article's code does not make, and our
//! routes make none either).

use harness::TestDb;
use postgres_provisioning::LocalCluster;
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};

use crate::error::BenchError;
use crate::load::Target;

// The same start, readiness and clean-up as the probe's tests of these servers
// (a watchdog stops them if this process dies). Each package that includes the
// file uses part of it.
#[allow(dead_code)]
#[path = "../../probe/tests/server/external.rs"]
mod external;

use external::{ExternalServer, article_schema, missing_setup, servers_dir};

/// The article's four languages, by the name `servers/start.sh` takes.
pub const PEERS: [&str; 4] = ["python", "typescript", "go", "java"];

/// Every request's body: the one our routes are sent, in the article's field names.
const BODY: &str = r#"{"pedidoId": 1, "valor": 100}"#;

/// One peer serving on 127.0.0.1, stopped (with its whole process group) when dropped.
pub struct Peer {
    pub name: &'static str,
    pub target: Target,
    server: ExternalServer,
    /// The harness's database it serves from, dropped after the server stopped
    /// (fields drop in order); `None` on a cluster of the bench's own.
    _database: Option<TestDb>,
}

impl Peer {
    /// The server's process, whose CPU time [`crate::cpu::process`] reads.
    pub fn pid(&self) -> u32 {
        self.server.pid()
    }
}

/// Where the peers' databases are made.
pub enum Place<'a> {
    /// A cluster the bench started: `wb_bench_NAME`, made empty (each server
    /// applies `servers/schema.sql` itself when it starts).
    Cluster(&'a LocalCluster),
    /// The harness's server (`DATABASE_URL`, a container): a test database each.
    Harness,
}

/// Starts every peer, each on a new database of its own at `place`.
pub async fn start(place: Place<'_>) -> Result<Vec<Peer>, BenchError> {
    let servers = servers_dir();
    if let Some(missing) = missing_setup(&servers) {
        return Err(BenchError::PeersNotInstalled(missing));
    }
    let mut peers = Vec::new();
    for name in PEERS {
        let (url, database) = match place {
            Place::Cluster(cluster) => (on_cluster(cluster, name).await?, None),
            Place::Harness => {
                let db = TestDb::create(article_schema()).await;
                (db.url(), Some(db))
            }
        };
        let server = ExternalServer::start_authorising_in(&servers, name, &url, "0")
            .map_err(|e| BenchError::Peer(name, e.to_string()))?;
        peers.push(Peer {
            name,
            target: Target {
                url: format!("http://127.0.0.1:{}/pagamentos", server.port),
                body: BODY.to_owned(),
            },
            server,
            _database: database,
        });
    }
    Ok(peers)
}

/// A new database for `name` on `cluster`, and its URL.
async fn on_cluster(cluster: &LocalCluster, name: &str) -> Result<String, BenchError> {
    let database = format!("wb_bench_{name}");
    let mut admin = PgConnection::connect_with(&cluster.backend.admin).await?;
    admin
        .execute(AssertSqlSafe(format!("CREATE DATABASE {database}")))
        .await?;
    let _ = admin.close().await;
    // libpq's URL form, which psycopg, pg, lib/pq and the Java server all read: the
    // cluster listens on a Unix socket only, named by `host`.
    Ok(format!(
        "postgresql://postgres@localhost:5432/{database}?host={}",
        cluster.run_dir.display()
    ))
}
