//! Where a container engine answers, and what it is: the names the search, its
//! API calls and the errors speak of. Finding one and calling it is `engine.rs`.

use std::fmt;
use std::path::PathBuf;

/// Where an engine's API answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Unix(PathBuf),
    /// `host:port`, plain HTTP.
    Tcp(String),
}

impl Endpoint {
    /// The same place, spelled as `DOCKER_HOST` spells it.
    pub fn docker_host(&self) -> String {
        match self {
            Endpoint::Unix(path) => format!("unix://{}", path.display()),
            Endpoint::Tcp(address) => format!("tcp://{address}"),
        }
    }

    /// The host on which the engine publishes container ports.
    pub fn published_host(&self) -> String {
        match self {
            Endpoint::Unix(_) => "127.0.0.1".to_owned(),
            Endpoint::Tcp(address) => match address.rsplit_once(':') {
                Some((host, _)) => host.trim_matches(['[', ']']).to_owned(),
                None => address.clone(),
            },
        }
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.docker_host())
    }
}

/// An engine: where it answers, and what it most likely is (named by where it was found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Engine {
    pub endpoint: Endpoint,
    pub kind: &'static str,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let said = l10n::t!(
            crate::messages::MESSAGES,
            "engine-at",
            kind = self.kind,
            endpoint = self.endpoint.to_string()
        );
        f.write_str(&said)
    }
}
