//! What can stop a command before it has anything to report.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },

    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },

    #[error("{} is not a valid stages file: {source}", path.display())]
    StagesToml {
        path: PathBuf,
        source: crate::stages::StagesError,
    },

    #[error(
        "{} cannot be read ({why}); delete it to start afresh (`rm {}`): the rest of \
         your progress is kept",
        path.display(),
        path.display()
    )]
    StateUnreadable { path: PathBuf, why: String },

    #[error(
        "no workbook found from {}: no stages.toml beside a Cargo.toml here or above \
         (run from the workbook's folder, or pass --root DIR / set WORKBOOK_ROOT)",
        .0.display()
    )]
    NoRoot(PathBuf),

    #[error("there is no stage {number}: {}", available)]
    NoStage { number: u32, available: String },

    #[error("could not run `{program}`: {source}")]
    Spawn { program: String, source: io::Error },

    #[error("`{command}` failed: {detail}")]
    Command { command: String, detail: String },

    #[error("the prompt failed: {0}")]
    Prompt(dialoguer::Error),

    #[error("interrupted")]
    Interrupted,

    #[error("{what} needs a confirmation, and nobody can answer (no terminal): run it with --yes")]
    NeedsConfirmation { what: String },

    #[error(
        "the workspace does not build{}; `cargo test --workspace --no-run` shows why",
        .first_error_in.as_ref().map(|p| format!(" (first error in {p})")).unwrap_or_default()
    )]
    WorkspaceDoesNotBuild { first_error_in: Option<String> },

    #[error("cargo built no test executable `{target}` of {package}, which stages.toml names")]
    NoExecutable { package: String, target: String },

    #[error("{} is not a valid review file: {source}", path.display())]
    ReviewToml {
        path: PathBuf,
        source: toml::de::Error,
    },

    #[error("there is no route {name} to review; the routes are {available}")]
    NoRoute { name: String, available: String },

    #[error("probe: {0}")]
    Probe(String),

    #[error(
        "stage {number} serves no HTTP API; `cargo workbook api --stage N` serves stages {served}"
    )]
    NoApi { number: u32, served: String },

    #[error("cannot start a tokio runtime: {0}")]
    Runtime(io::Error),
}
