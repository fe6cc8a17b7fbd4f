//! `workbook api`: stage 6's route served for real on 127.0.0.1 until Ctrl-C.
//!
//! The server is stage 6's `api` example (tests/stage6_api.rs), built from the
//! learner's exercise or the model answer: the runner does not link either, so
//! that it still runs when the exercise does not compile.

use std::process::Stdio;

use crate::cargo::Cargo;
use crate::error::Error;
use crate::ui;
use crate::workbook::Workbook;

/// The stage whose route is served.
const STAGE: u32 = 6;

pub fn run(wb: &Workbook, solution: bool, port: u16) -> Result<bool, Error> {
    let stage = wb.stage(STAGE)?;
    let package = if solution {
        &stage.solution
    } else {
        &stage.exercise
    };
    let port = port.to_string();
    let mut command = Cargo::new(&wb.root, ui::stdout_is_terminal()).command(&[
        "run",
        "-q",
        "-p",
        package,
        "--example",
        "api",
        "--",
        "--port",
        &port,
    ]);
    // The server reads nothing, but Ctrl-C must reach it: it shares the terminal.
    command.stdin(Stdio::inherit());
    run_in_place(command)
}

/// Becomes the command (Unix): Ctrl-C then goes to the server alone, which
/// cleans up and exits, and nothing is left waiting in between.
#[cfg(unix)]
fn run_in_place(mut command: std::process::Command) -> Result<bool, Error> {
    use std::os::unix::process::CommandExt;
    let e = command.exec();
    Err(Error::Spawn {
        program: "cargo".to_owned(),
        source: e,
    })
}

#[cfg(not(unix))]
fn run_in_place(mut command: std::process::Command) -> Result<bool, Error> {
    let status = command.status().map_err(|source| Error::Spawn {
        program: "cargo".to_owned(),
        source,
    })?;
    Ok(status.success())
}
