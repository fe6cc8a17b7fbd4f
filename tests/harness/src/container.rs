//! A PostgreSQL container through testcontainers, when a Docker engine answers.

use std::sync::Mutex;
use std::time::Instant;

use sqlx::postgres::PgConnectOptions;
use testcontainers_modules::postgres::Postgres;
use testcontainers_modules::testcontainers::runners::SyncRunner;
use testcontainers_modules::testcontainers::{Container, ImageExt};

use crate::backend::{Backend, BackendChoice, NoServer, docker_engine};
use crate::cleanup::at_exit;

/// The image the harness runs: the module's default (11-alpine) is end of life.
pub const IMAGE_TAG: &str = "15-alpine";

static CONTAINER: Mutex<Option<Container<Postgres>>> = Mutex::new(None);

pub async fn start() -> Result<Backend, NoServer> {
    let started = Instant::now();
    let endpoint = docker_engine().map_err(|why| {
        NoServer::new(format!(
            "Docker (WORKBOOK_DB=container or a reachable socket): {why}"
        ))
    })?;
    // The sync runner blocks; keep it off this runtime's thread.
    let container = tokio::task::spawn_blocking(|| {
        Postgres::default()
            .with_tag(IMAGE_TAG)
            .with_cmd(["postgres", "-c", "fsync=off", "-c", "max_connections=300"])
            .start()
    })
    .await
    .map_err(|e| NoServer::new(format!("Docker: the container start panicked: {e}")))?
    .map_err(|e| {
        NoServer::new(format!(
            "Docker at {endpoint}: could not start postgres:{IMAGE_TAG}: {e}"
        ))
    })?;
    let port = container
        .get_host_port_ipv4(5432)
        .map_err(|e| NoServer::new(format!("Docker: no port mapped for the container: {e}")))?;
    let host = container
        .get_host()
        .map(|h| h.to_string())
        .unwrap_or_else(|_| "127.0.0.1".to_owned());
    let id = container.id().to_owned();
    if let Ok(mut slot) = CONTAINER.lock() {
        *slot = Some(container);
    }
    // Dropping the container removes it; statics are never dropped, so do it at exit.
    at_exit(|| {
        if let Ok(mut slot) = CONTAINER.lock() {
            drop(slot.take());
        }
    });
    let admin = PgConnectOptions::new()
        .host(&host)
        .port(port)
        .username("postgres")
        .password("postgres")
        .database("postgres");
    let max_connections = crate::db::probe(&admin).await.map_err(|e| {
        NoServer::new(format!(
            "Docker: the container's server does not answer: {e}"
        ))
    })?;
    Ok(Backend {
        choice: BackendChoice::Container,
        admin,
        description: format!(
            "postgres:{IMAGE_TAG} in Docker container {} on {host}:{port} (via {endpoint}), started in {:.2} s",
            &id[..12.min(id.len())],
            started.elapsed().as_secs_f64()
        ),
        max_connections,
    })
}
