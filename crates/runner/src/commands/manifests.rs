//! `workbook manifests` (a maintainer's command, hidden from the learner's help):
//! writes every exercise's `Cargo.toml` from its solution's (`manifests.rs`
//! says how). `verify` checks that each is current.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cargo::Cargo;
use crate::error::Error;
use crate::manifests::exercise_manifest;
use crate::stages::Stage;
use crate::ui;
use crate::workbook::Workbook;

/// Writes each stage's exercise manifest; true when every one could be written.
pub fn run(wb: &Workbook) -> Result<bool, Error> {
    let dirs = Cargo::new(&wb.root, false).package_dirs()?;
    let mut changed = 0;
    for stage in &wb.stages {
        let (path, text) = expected(wb, &dirs, stage)?;
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, &text).map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })?;
            println!("wrote {}", wb.shown(&path));
            changed += 1;
        }
    }
    ui::note(&format!(
        "{changed} of {} exercise manifests rewritten; the others were current",
        wb.stages.len()
    ));
    Ok(true)
}

/// Stage `stage`'s exercise manifest, and what it should hold (its solution's,
/// derived). `dirs`: the workspace's packages and their folders.
pub fn expected(
    wb: &Workbook,
    dirs: &BTreeMap<String, PathBuf>,
    stage: &Stage,
) -> Result<(PathBuf, String), Error> {
    let folder = |package: &str| {
        dirs.get(package).cloned().ok_or_else(|| Error::Command {
            command: "cargo workbook manifests".to_owned(),
            detail: format!(
                "stage {}: no package {package} in the workspace",
                stage.number
            ),
        })
    };
    let (exercise, solution) = (folder(&stage.exercise)?, folder(&stage.solution)?);
    let manifest = solution.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|source| Error::Read {
        path: manifest.clone(),
        source,
    })?;
    let inside = |dir: &Path| dir.strip_prefix(&wb.root).unwrap_or(dir).to_owned();
    let derived =
        exercise_manifest(&text, &inside(&solution), &inside(&exercise)).map_err(|e| {
            Error::Command {
                command: "cargo workbook manifests".to_owned(),
                detail: e.to_string(),
            }
        })?;
    Ok((exercise.join("Cargo.toml"), derived))
}
