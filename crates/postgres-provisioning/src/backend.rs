//! The server the tests use, as a value: what it is, how to reach it, and how a
//! process hands it to the processes it runs. Finding one is `find.rs`.

use sqlx::postgres::PgConnectOptions;

/// A running server the harness can create databases on.
#[derive(Debug, Clone)]
pub struct Backend {
    pub choice: BackendChoice,
    /// Connects to the server's maintenance database, where databases are created.
    pub admin: PgConnectOptions,
    /// One line for humans: what it is and how long it took to get.
    pub description: String,
    /// The server's `max_connections`.
    pub max_connections: u32,
    /// Started by another process (the runner), which handed it over and stops
    /// it: it outlives this process, so what this process made on it must go at
    /// exit.
    pub handed_over: bool,
}

/// The variable through which a process that started a server (the runner)
/// hands it to the test processes it runs: they then start none of their own.
pub const HANDOVER_VAR: &str = "WORKBOOK_SERVER";

impl Backend {
    /// This server, as [`HANDOVER_VAR`] carries it to a child process: `None` for
    /// `DATABASE_URL`, which the child reads itself.
    pub fn handover(&self) -> Option<String> {
        use sqlx::ConnectOptions;
        let choice = match self.choice {
            BackendChoice::Url => return None,
            BackendChoice::Container => "container",
            BackendChoice::Local => "local",
        };
        let handover = serde_json::json!({
            "choice": choice,
            "url": self.admin.to_url_lossy().to_string(),
            "description": self.description,
            "max_connections": self.max_connections,
        });
        Some(handover.to_string())
    }
}

/// The three ways to get a server, in the order the harness tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    Url,
    Container,
    Local,
}
