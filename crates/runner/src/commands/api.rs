//! `workbook api`: an HTTP stage's API served for real on 127.0.0.1 until
//! Ctrl-C, as one instance or several over one database.
//!
//! The server is the stage's `stageN_api` example (tests/stageN_api.rs, on
//! tests/api_server.rs), built from the learner's exercise or the model answer:
//! the runner does not link either, so that it still runs when the exercise does
//! not compile. Which stages serve HTTP is read from their manifests: a stage
//! whose exercise package has that example.

use std::process::Stdio;

use crate::cargo::Cargo;
use crate::error::Error;
use crate::ui;
use crate::workbook::Workbook;

/// What `api` serves, as the flags say.
#[derive(Debug, Clone, Copy)]
pub struct ApiOptions {
    pub stage: u32,
    pub solution: bool,
    pub port: u16,
    pub instances: u16,
}

/// The example that serves stage `number`'s API.
fn example(number: u32) -> String {
    format!("stage{number}_api")
}

pub fn run(wb: &Workbook, options: ApiOptions) -> Result<bool, Error> {
    let stage = wb.stage(options.stage)?;
    let cargo = Cargo::new(&wb.root, ui::stdout_is_terminal());
    let with_api = packages_with_example(&cargo, "stage", "_api")?;
    if !with_api.contains(&(stage.exercise.clone(), example(stage.number))) {
        let served: Vec<String> = wb
            .stages
            .iter()
            .filter(|s| with_api.contains(&(s.exercise.clone(), example(s.number))))
            .map(|s| s.number.to_string())
            .collect();
        return Err(Error::NoApi {
            number: options.stage,
            served: served.join(", "),
        });
    }
    let package = if options.solution {
        &stage.solution
    } else {
        &stage.exercise
    };
    let (port, instances, example) = (
        options.port.to_string(),
        options.instances.to_string(),
        example(stage.number),
    );
    let mut command = cargo.command(&[
        "run",
        "-q",
        "-p",
        package,
        "--example",
        &example,
        // This process becomes the server and hands no PostgreSQL over: the
        // example starts its own, with the container client when Docker is here.
        "--features",
        "harness/containers",
        "--",
        "--port",
        &port,
        "--instances",
        &instances,
    ]);
    // The server reads nothing, but Ctrl-C must reach it: it shares the terminal.
    command.stdin(Stdio::inherit());
    run_in_place(command)
}

/// `(package, example)` for every example of the workspace whose name starts
/// with `prefix` and ends with `suffix` (`cargo metadata`, offline: no build).
fn packages_with_example(
    cargo: &Cargo,
    prefix: &str,
    suffix: &str,
) -> Result<Vec<(String, String)>, Error> {
    let output = cargo
        .command(&[
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| Error::Spawn {
            program: "cargo metadata".to_owned(),
            source,
        })?;
    let failed = |detail: String| Error::Command {
        command: "cargo metadata --no-deps".to_owned(),
        detail,
    };
    if !output.status.success() {
        return Err(failed(
            String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| failed(e.to_string()))?;
    let mut found = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        for target in package["targets"].as_array().into_iter().flatten() {
            let is_example = target["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "example"));
            let example = target["name"].as_str().unwrap_or_default();
            if is_example && example.starts_with(prefix) && example.ends_with(suffix) {
                found.push((name.to_owned(), example.to_owned()));
            }
        }
    }
    Ok(found)
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
