//! Conditions the harness meets, reported to the runner as data: one JSON line
//! `{"condition": KIND, ...}` in the file named by `WORKBOOK_OBSERVATIONS`, beside
//! the tests' observations. The runner reacts to the kind (a deadlock hint, "no
//! server"), never to the wording of a message, so messages can be reworded freely.

use std::io::Write;

use serde::{Deserialize, Serialize};

/// Written by the harness, read back by the runner (`workbook`'s observations.rs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "condition", rename_all = "kebab-case")]
pub enum Condition {
    /// What the harness told the learner about its server (also printed on stderr).
    Note { text: String },
    /// No PostgreSQL server could be had.
    NoServer,
    /// A wait bounded by [`crate::within`] ran out.
    BoundExceeded { what: String, seconds: f64 },
    /// Calls of the code under test gave up waiting for a pool connection.
    PoolTimedOut { calls: usize },
    /// The pool, looked at while a burst waited ([`crate::TestDb::fire_watched`]).
    PoolState { state: String },
    /// The harness could not open a pool's connections before the test began.
    ConnectionsNotOpened { connections: u32, error: String },
}

/// Appends `condition` to the observations file; does nothing when the runner
/// did not ask for one (plain `cargo test`).
pub fn report(condition: &Condition) {
    if std::env::var_os("WORKBOOK_OBSERVATIONS").is_none() {
        return;
    }
    if let Ok(line) = serde_json::to_string(condition) {
        append_observation(&line);
    }
}

/// Appends `line` to the observations file the runner named
/// (`WORKBOOK_OBSERVATIONS`); does nothing when it named none.
pub(crate) fn append_observation(line: &str) {
    let Some(path) = std::env::var_os("WORKBOOK_OBSERVATIONS") else {
        return;
    };
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        // One write per line: lines from parallel tests do not interleave.
        let _ = file.write_all(format!("{line}\n").as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_is_one_json_line_tagged_with_its_kind() {
        let line = serde_json::to_string(&Condition::PoolTimedOut { calls: 3 }).expect("json");
        assert_eq!(line, r#"{"condition":"pool-timed-out","calls":3}"#);
        let line = serde_json::to_string(&Condition::NoServer).expect("json");
        assert_eq!(line, r#"{"condition":"no-server"}"#);
    }
}
