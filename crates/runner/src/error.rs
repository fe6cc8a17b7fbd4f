//! What can stop a command before it has anything to report.

use std::io;
use std::path::PathBuf;

use l10n::Localiser;
use l10n::t;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },

    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },

    #[error("{} is not a valid stages file: {source}", path.display())]
    StagesToml { path: PathBuf, source: StagesError },

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

    #[error("{} is not a valid translation of the stages file: {source}", path.display())]
    TwinToml {
        path: PathBuf,
        source: toml::de::Error,
    },

    #[error("{0}")]
    Lang(#[from] l10n::UnknownLang),
}

/// Why a stages file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StagesError {
    #[error("{0}")]
    Toml(#[from] toml::de::Error),
    #[error("stage {number} has no `{field}` and no `slug` to derive it from")]
    Underived { number: u32, field: &'static str },
}

impl Error {
    /// The error as the learner reads it, in their language. The causes that
    /// come from elsewhere (the OS, TOML, a program's output) are quoted as they
    /// came.
    pub fn said(&self, l: &Localiser) -> String {
        let path = |p: &PathBuf| p.display().to_string();
        match self {
            Self::Read { path: p, source } => {
                t!(l, "error-read", path = path(p), source = source.to_string())
            }
            Self::Write { path: p, source } => {
                t!(
                    l,
                    "error-write",
                    path = path(p),
                    source = source.to_string()
                )
            }
            Self::StagesToml { path: p, source } => t!(
                l,
                "error-stages-toml",
                path = path(p),
                source = source.to_string()
            ),
            Self::StateUnreadable { path: p, why } => {
                t!(l, "error-state-unreadable", path = path(p), why = why)
            }
            Self::NoRoot(p) => t!(l, "error-no-root", path = path(p)),
            Self::NoStage { number, available } => {
                t!(l, "error-no-stage", number = *number, available = available)
            }
            Self::Spawn { program, source } => t!(
                l,
                "error-spawn",
                program = program,
                source = source.to_string()
            ),
            Self::Command { command, detail } => {
                t!(l, "error-command", command = command, detail = detail)
            }
            Self::Prompt(e) => t!(l, "error-prompt", source = e.to_string()),
            Self::Interrupted => t!(l, "error-interrupted"),
            Self::NeedsConfirmation { what } => t!(l, "error-needs-confirmation", what = what),
            Self::WorkspaceDoesNotBuild { first_error_in } => match first_error_in {
                Some(package) => t!(l, "error-workspace-does-not-build-in", package = package),
                None => t!(l, "error-workspace-does-not-build"),
            },
            Self::NoExecutable { package, target } => {
                t!(l, "error-no-executable", package = package, target = target)
            }
            Self::ReviewToml { path: p, source } => t!(
                l,
                "error-review-toml",
                path = path(p),
                source = source.to_string()
            ),
            Self::NoRoute { name, available } => {
                t!(l, "error-no-route", name = name, available = available)
            }
            Self::Probe(why) => t!(l, "error-probe", why = why),
            Self::NoApi { number, served } => {
                t!(l, "error-no-api", number = *number, served = served)
            }
            Self::Runtime(e) => t!(l, "error-runtime", source = e.to_string()),
            Self::TwinToml { path: p, source } => t!(
                l,
                "error-twin-toml",
                path = path(p),
                source = source.to_string()
            ),
            Self::Lang(e) => t!(
                l,
                "error-unknown-lang",
                given = format!("{:?}", e.given),
                by = e.by
            ),
        }
    }
}
