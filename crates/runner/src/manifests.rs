//! An exercise's manifest, derived from its solution's: what a stage's crate
//! depends on is written once, in the solution's `Cargo.toml`.
//!
//! The exercise's manifest is the solution's with the exercise's name and
//! description, its paths seen from the exercise's folder, without the targets
//! only the solution holds (its own test files, its binaries: a `path` inside the
//! solution's folder), without the fields that only publishing reads
//! ([`PUBLISHING_ONLY`]: an exercise is never published) and without comments
//! (they are the solution's to say). A
//! table in the solution's manifest, which cargo ignores, says what the exercise
//! does differently:
//!
//! ```toml
//! [package.metadata.workbook.exercise]
//! leave-out = ["new-key-per-try"]   # dependencies the exercise does without
//!
//! [package.metadata.workbook.exercise.dependencies]
//! stage5 = { path = "../stage5-small-pool", package = "stage5-small-pool-solution" }
//! ```
//!
//! `cargo workbook manifests` writes every exercise's manifest from its
//! solution's, `cargo workbook new-stage` a new stage's, and `cargo workbook
//! verify` checks that each is current.

use std::path::{Component, Path, PathBuf};

/// The section of the solution's manifest that speaks of the exercise.
const EXERCISE: &str = "package.metadata.workbook.exercise";

/// The `[package]` fields that only publishing reads, which the exercise does
/// without: with no `version`, cargo takes 0.0.0 and never publishes the package,
/// so `publish` has nothing to say, nor has `license`. `edition` (which changes
/// the language) and `rust-version` (cargo names the toolchain a learner must
/// install) stay.
const PUBLISHING_ONLY: [&str; 3] = ["version", "license", "publish"];

/// Why an exercise's manifest cannot be derived from its solution's.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ManifestError {
    #[error("{file} is not TOML: {why}")]
    NotToml { file: String, why: String },
    #[error("{file}: the package's name {name:?} does not end in -solution")]
    NotASolution { file: String, name: String },
    #[error("{file}: `{EXERCISE}.leave-out` names {name:?}, which is no dependency here")]
    NoSuchDependency { file: String, name: String },
}

/// The exercise's manifest, from the text of its solution's. `solution` and
/// `exercise` are the two crates' folders, relative to the workbook's root.
pub fn exercise_manifest(
    solution_text: &str,
    solution: &Path,
    exercise: &Path,
) -> Result<String, ManifestError> {
    let file = solution.join("Cargo.toml").display().to_string();
    let parsed: toml::Table =
        toml::from_str(solution_text).map_err(|e| ManifestError::NotToml {
            file: file.clone(),
            why: e.message().to_owned(),
        })?;
    let leave_out: Vec<String> = parsed
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("workbook"))
        .and_then(|w| w.get("exercise"))
        .and_then(|e| e.get("leave-out"))
        .and_then(|l| l.as_array())
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();

    let rebase = |line: &str| rebase_paths(line, solution, exercise);
    let mut out: Vec<String> = vec![
        format!(
            "# Written by `cargo workbook manifests` from {}: edit that file, then run it",
            solution.join("Cargo.toml").display()
        ),
        "# again (`cargo workbook verify` checks that this one is current).".to_owned(),
        String::new(),
    ];
    let tables = tables(solution_text);
    let exercise_only = format!("{EXERCISE}.dependencies");
    let mut added: Vec<String> = tables
        .iter()
        .filter(|t| t.header.as_deref() == Some(exercise_only.as_str()))
        .flat_map(|t| t.entries().map(rebase).collect::<Vec<_>>())
        .collect();
    let mut left_out: Vec<&str> = Vec::new();
    for table in &tables {
        let header = table.header.as_deref().unwrap_or("");
        if header == EXERCISE || header == exercise_only {
            continue;
        }
        if table.is_array && table.path_inside(solution) {
            continue;
        }
        let dependencies = header.ends_with("dependencies");
        let mut lines: Vec<String> = Vec::new();
        if let Some(raw) = &table.raw_header {
            lines.push(raw.clone());
        }
        for line in table.entries() {
            let key = key_of(line);
            if dependencies && let Some(name) = leave_out.iter().find(|n| key == n.as_str()) {
                left_out.push(name);
                continue;
            }
            if header == "package" && PUBLISHING_ONLY.contains(&key) {
                continue;
            }
            let line = match (header, key) {
                ("package", "name") => {
                    let name = string_value(line).unwrap_or_default();
                    let Some(stem) = name.strip_suffix("-solution") else {
                        return Err(ManifestError::NotASolution { file, name });
                    };
                    format!("name = \"{stem}-exercise\"")
                }
                ("package", "description") => {
                    line.replacen("the model answer", "the learner's exercise", 1)
                }
                _ => rebase(line),
            };
            lines.push(line);
        }
        if header == "dependencies" {
            lines.append(&mut added);
        }
        if !lines.is_empty() {
            out.append(&mut lines);
            out.push(String::new());
        }
    }
    if !added.is_empty() {
        out.push("[dependencies]".to_owned());
        out.append(&mut added);
        out.push(String::new());
    }
    if let Some(name) = leave_out.iter().find(|n| !left_out.contains(&n.as_str())) {
        return Err(ManifestError::NoSuchDependency {
            file,
            name: name.clone(),
        });
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    Ok(out.join("\n") + "\n")
}

/// One table of a manifest: its header line (none for the lines before the
/// first) and its lines.
struct Table {
    raw_header: Option<String>,
    /// The header's name: `package`, `[[test]]`'s `test`, ...
    header: Option<String>,
    is_array: bool,
    lines: Vec<String>,
}

impl Table {
    /// Its keys and values, without comments and blank lines.
    fn entries(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .map(String::as_str)
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    }

    /// Whether the target this table declares lies inside `crate_dir` (the
    /// solution's own test files and binaries, which the exercise does not hold).
    fn path_inside(&self, crate_dir: &Path) -> bool {
        self.entries()
            .filter(|l| key_of(l) == "path")
            .filter_map(string_value)
            .any(|p| normalize(&crate_dir.join(p)).starts_with(crate_dir))
    }
}

fn tables(text: &str) -> Vec<Table> {
    let mut out = vec![Table {
        raw_header: None,
        header: None,
        is_array: false,
        lines: Vec::new(),
    }];
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            let is_array = trimmed.starts_with("[[");
            let name = trimmed
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_owned();
            out.push(Table {
                raw_header: Some(trimmed.to_owned()),
                header: Some(name),
                is_array,
                lines: Vec::new(),
            });
        } else if let Some(table) = out.last_mut() {
            table.lines.push(line.to_owned());
        }
    }
    out
}

/// The key of a `key = value` line (`serde_json.workspace = true`: `serde_json`).
fn key_of(line: &str) -> &str {
    line.split(['=', '.']).next().unwrap_or("").trim()
}

/// The string value of a `key = "value"` line.
fn string_value(line: &str) -> Option<String> {
    let (_, value) = line.split_once('=')?;
    let value = value.trim();
    Some(value.strip_prefix('"')?.split('"').next()?.to_owned())
}

/// `line` with each `path = "..."` seen from `to` instead of `from`.
fn rebase_paths(line: &str, from: &Path, to: &Path) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = find_path_key(rest) {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let Some(open) = after.find('"') else {
            out.push_str(after);
            return out;
        };
        let Some(len) = after[open + 1..].find('"') else {
            out.push_str(after);
            return out;
        };
        let value = &after[open + 1..open + 1 + len];
        let target = normalize(&from.join(value));
        out.push_str(&after[..=open]);
        out.push_str(&relative(&target, to).display().to_string());
        out.push('"');
        rest = &after[open + 1 + len + 1..];
    }
    out.push_str(rest);
    out
}

/// Where a `path` key starts in `text`: at the line's start or after `{` / `,`.
fn find_path_key(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find("path") {
        let at = from + i;
        let before = text[..at].trim_end();
        let after = text[at + 4..].trim_start();
        if (before.is_empty() || before.ends_with('{') || before.ends_with(','))
            && after.starts_with('=')
        {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// `path` without `.` and with each `..` taken back (relative paths stay relative).
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// `target` seen from the folder `from` (both relative to the same root).
fn relative(target: &Path, from: &Path) -> PathBuf {
    let (target, from) = (normalize(target), normalize(from));
    let target: Vec<_> = target.components().collect();
    let from: Vec<_> = from.components().collect();
    let common = target.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &target[common..] {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str = r#"[package]
name = "stage7-retrying-client-solution"
description = "Stage 7, the model answer: the retrying client."
version = "0.1.0"
edition.workspace = true
rust-version.workspace = true
license.workspace = true
publish.workspace = true

[lib]
name = "stage7"

# The one test file both run.
[[test]]
name = "stage7"
path = "../../tests/stage7_retrying_client.rs"

[dependencies]
payment-model.workspace = true
stage4 = { path = "../stage4-changed-body", package = "stage4-changed-body-solution" }

[dev-dependencies]
harness.workspace = true
new-key-per-try = { path = "../known-wrong/stage7-new-key-per-try", package = "stage7-wrong-new-key-per-try" }

[package.metadata.workbook.exercise]
leave-out = ["new-key-per-try"]

[package.metadata.workbook.exercise.dependencies]
# The starting code.
stage5 = { path = "../stage5-small-pool", package = "stage5-small-pool-solution" }

[lints]
workspace = true

[[test]]
name = "the_wrong_client"
path = "tests/the_wrong_client.rs"

[[bin]]
name = "reap"
path = "src/bin/reap.rs"
"#;

    #[test]
    fn an_exercise_manifest_is_its_solutions_seen_from_the_exercise() {
        let got = exercise_manifest(
            SOLUTION,
            Path::new("solutions/stage7-retrying-client"),
            Path::new("exercises/stage7-retrying-client"),
        )
        .expect("derives");
        let want = r#"# Written by `cargo workbook manifests` from solutions/stage7-retrying-client/Cargo.toml: edit that file, then run it
# again (`cargo workbook verify` checks that this one is current).

[package]
name = "stage7-retrying-client-exercise"
description = "Stage 7, the learner's exercise: the retrying client."
edition.workspace = true
rust-version.workspace = true

[lib]
name = "stage7"

[[test]]
name = "stage7"
path = "../../tests/stage7_retrying_client.rs"

[dependencies]
payment-model.workspace = true
stage4 = { path = "../../solutions/stage4-changed-body", package = "stage4-changed-body-solution" }
stage5 = { path = "../../solutions/stage5-small-pool", package = "stage5-small-pool-solution" }

[dev-dependencies]
harness.workspace = true

[lints]
workspace = true
"#;
        assert_eq!(
            got, want,
            "the exercise's manifest should be the solution's, renamed, its paths rebased, \
             without the solution's own targets, the fields only publishing reads, the \
             left-out dependency and the comments, with the exercise's own dependency"
        );
    }

    #[test]
    fn a_manifest_that_is_not_a_solutions_is_refused_by_name() {
        let other = SOLUTION.replace("-solution\"\ndescription", "\"\ndescription");
        let refused = exercise_manifest(&other, Path::new("solutions/x"), Path::new("exercises/x"));
        assert_eq!(
            refused,
            Err(ManifestError::NotASolution {
                file: "solutions/x/Cargo.toml".to_owned(),
                name: "stage7-retrying-client".to_owned()
            })
        );
        let typo = SOLUTION.replace(
            "leave-out = [\"new-key-per-try\"]",
            "leave-out = [\"nope\"]",
        );
        let refused = exercise_manifest(&typo, Path::new("solutions/x"), Path::new("exercises/x"));
        assert!(
            matches!(refused, Err(ManifestError::NoSuchDependency { ref name, .. }) if name == "nope"),
            "a left-out name that is no dependency must be refused, not ignored: {refused:?}"
        );
    }
}
