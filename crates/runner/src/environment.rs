//! What the environment decides, in one place: whether this is CI, whether the
//! tests keep their PostgreSQL container, whether anyone can answer a prompt, and
//! which command the learner typed to start the runner (so that every message
//! names one that works: `cargo workbook ...`, or `just ...` when just started it).

use std::io::IsTerminal;

use console::Term;

/// The variable the justfile exports, so that the runner knows just started it.
pub const STARTED_BY: &str = "WORKBOOK_STARTED_BY";

/// CI=true (or any value but "", "0" and "false").
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Whether the tests should keep one PostgreSQL container between runs (when
/// they use Docker): yes in the learner's loop, no in CI or with
/// `WORKBOOK_KEEP_CONTAINER=0`. (The harness's `keep_container` is what acts on it.)
pub fn container_is_kept() -> bool {
    !in_ci() && std::env::var("WORKBOOK_KEEP_CONTAINER").map_or(true, |v| v.trim() != "0")
}

/// Someone can answer a prompt: stdin is a terminal and this is not CI.
pub fn can_ask() -> bool {
    std::io::stdin().is_terminal() && Term::stderr().is_term() && !in_ci()
}

pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// How the learner starts the runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// `cargo workbook ...` (the alias in .cargo/config.toml): works on a fresh clone.
    Cargo,
    /// `just ...`, when just started this run.
    Just,
}

impl Launcher {
    pub fn current() -> Self {
        Self::from_value(std::env::var(STARTED_BY).ok().as_deref())
    }

    fn from_value(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            Some("just") => Self::Just,
            _ => Self::Cargo,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Self::Cargo => "cargo workbook",
            Self::Just => "just",
        }
    }
}

/// A runner command as the learner should type it, in backticks:
/// `command("hint 3")` is "`cargo workbook hint 3`" (or "`just hint 3`").
pub fn command(args: &str) -> String {
    command_for(Launcher::current(), args)
}

fn command_for(launcher: Launcher, args: &str) -> String {
    format!("`{} {args}`", launcher.prefix())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_named_as_the_learner_started_the_runner() {
        assert_eq!(Launcher::from_value(None), Launcher::Cargo);
        assert_eq!(Launcher::from_value(Some("just")), Launcher::Just);
        assert_eq!(Launcher::from_value(Some("")), Launcher::Cargo);
        assert_eq!(
            command_for(Launcher::Cargo, "hint 3"),
            "`cargo workbook hint 3`"
        );
        assert_eq!(command_for(Launcher::Just, "hint 3"), "`just hint 3`");
    }
}
