//! Why a benchmark run could not measure.

/// What stopped the benchmark, each naming its cause.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("no PostgreSQL to measure on: {0}")]
    NoServer(&'static harness::NoServer),
    #[error("no PostgreSQL to measure on: {0}")]
    Cluster(#[from] postgres_provisioning::LocalError),
    #[error("PostgreSQL: {0}")]
    Database(#[from] sqlx::Error),
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    #[error("a route refused a request: {0}")]
    Refused(String),
    #[error("could not listen on 127.0.0.1: {0}")]
    Listen(std::io::Error),
    #[error("pgbench: could not run {}: {source}", .program.display())]
    PgbenchNotRun {
        program: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("pgbench: could not give pgbench its script: {0}")]
    PgbenchScript(#[source] std::io::Error),
    /// pgbench ran and gave no rate: what it said, and the script it was given.
    #[error("pgbench: {}: {said}\nThe script:\n{script}", .program.display())]
    PgbenchFailed {
        program: std::path::PathBuf,
        said: String,
        script: String,
    },
    #[error("the peers of the cost table: {0}")]
    PeersNotInstalled(String),
    #[error("the {0} server of servers/ did not start: {1}")]
    Peer(&'static str, String),
    #[error("a load task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("usage: bench-route [RUNS] (a number of runs, {default} by default)")]
    Usage { default: usize },
}
