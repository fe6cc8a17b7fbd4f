//! Building test targets with cargo, and running them with a bound.
//!
//! `cargo test --no-run --message-format json` (cargo's stable JSON messages)
//! builds the targets and names their executables; `supervise.rs` then starts
//! each test executable itself, the way `cargo test` would, with a bound.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cargo_env::is_set_by_cargo_for_its_child;
use crate::error::Error;
use crate::lines::{Line, read_lines};
use l10n::Localiser;
use l10n::t;

/// What to build.
#[derive(Debug, Clone, Copy)]
pub enum Targets<'a> {
    /// `cargo test -p PACKAGE --test TARGET`
    Test { package: &'a str, target: &'a str },
    /// `cargo test -p PACKAGE`: every test executable of the package.
    Package(&'a str),
    /// `cargo test`: the workspace's default members, as plain `cargo test` at the
    /// root builds them (the container client in: the runner, which has it, is one).
    Default,
    /// `cargo test --workspace --exclude ...`: every member but `except` (the default
    /// members), without the container client, as `cargo workbook stage N` builds
    /// the exercises. Shared crates are the same in both: postgres-provisioning
    /// turns on, always, the features the client would turn on in them.
    WorkspaceExcept(&'a [String]),
}

impl Targets<'_> {
    fn args(&self) -> Vec<String> {
        match self {
            Self::Test { package, target } => {
                vec![
                    "-p".into(),
                    (*package).into(),
                    "--test".into(),
                    (*target).into(),
                ]
            }
            Self::Package(package) => vec!["-p".into(), (*package).into()],
            Self::Default => Vec::new(),
            Self::WorkspaceExcept(except) => std::iter::once("--workspace".to_owned())
                .chain(
                    except
                        .iter()
                        .flat_map(|package| ["--exclude".to_owned(), package.clone()]),
                )
                .collect(),
        }
    }

    /// The command a learner would type for the same tests.
    pub fn command(&self) -> String {
        std::iter::once("cargo test".to_owned())
            .chain(self.args())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Executable {
    pub package: String,
    pub target: String,
    /// A `tests/` target (`--test NAME`), not a library's or binary's unit tests,
    /// which may carry the same name.
    pub integration: bool,
    pub path: PathBuf,
    pub manifest_dir: PathBuf,
    /// The target's root source file (`tests/stage3_unique_key.rs`).
    #[serde(default)]
    pub src_path: PathBuf,
    /// Cargo found it up to date: this build did not rewrite it.
    #[serde(skip)]
    pub fresh: bool,
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub package: String,
    pub rendered: String,
}

#[derive(Debug, Clone)]
pub struct Build {
    pub success: bool,
    pub executables: Vec<Executable>,
    /// The compiler's errors, rendered as rustc prints them.
    pub errors: Vec<Diagnostic>,
    pub warnings: usize,
    /// What cargo itself printed (status lines and its own errors).
    pub stderr: String,
    pub elapsed: Duration,
}

impl Build {
    /// Cargo's own error lines, for failures that are not the compiler's.
    pub fn cargo_errors(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("error") || l.starts_with("Caused by") || l.starts_with("  "))
            .collect()
    }

    /// The integration test `target` of `package` (what `--test TARGET` runs).
    pub fn executable(&self, package: &str, target: &str) -> Option<&Executable> {
        self.executables
            .iter()
            .find(|e| e.package == package && e.target == target && e.integration)
    }

    /// The executables `cargo test` would run for `targets`, among those built.
    pub fn executables_of(&self, targets: Targets<'_>) -> Vec<Executable> {
        match targets {
            Targets::Test { package, target } => self
                .executable(package, target)
                .cloned()
                .into_iter()
                .collect(),
            Targets::Package(package) => self
                .executables
                .iter()
                .filter(|e| e.package == package)
                .cloned()
                .collect(),
            Targets::Default | Targets::WorkspaceExcept(_) => self.executables.clone(),
        }
    }

    /// This build and `other`, as one: what both made, and what went wrong in either.
    fn and(mut self, other: Build) -> Build {
        self.success &= other.success;
        self.executables.extend(other.executables);
        self.errors.extend(other.errors);
        self.warnings += other.warnings;
        self.stderr.push_str(&other.stderr);
        self.elapsed += other.elapsed;
        self
    }
}

/// Runs cargo for one workspace.
#[derive(Debug, Clone)]
pub struct Cargo {
    pub program: OsString,
    pub root: PathBuf,
    /// Ask for coloured compiler messages.
    pub color: bool,
}

/// What cargo is doing while it builds, for a spinner to tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildStatus<'a> {
    /// Compiling crate `name`, the `so_far`-th of this build.
    Compiling { name: &'a str, so_far: usize },
    /// Another cargo holds the build directory's lock.
    WaitingForLock,
}

impl BuildStatus<'_> {
    pub fn said(self, l: &Localiser) -> String {
        match self {
            // A first build compiles a few hundred crates: say so, so that two
            // minutes of it do not look like a hang.
            Self::Compiling { name, so_far } => {
                t!(l, "build-compiling", name = name, count = so_far)
            }
            Self::WaitingForLock => t!(l, "build-waiting-for-lock"),
        }
    }
}

impl Cargo {
    pub fn new(root: &Path, color: bool) -> Self {
        Self {
            program: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            root: root.to_owned(),
            color,
        }
    }

    /// A cargo command for the workbook, without what cargo told this process
    /// about itself when it ran it (`cargo run` sets `CARGO_MANIFEST_DIR`,
    /// `CARGO_PKG_*`, ...): build scripts that watch those variables (ring's
    /// does) would otherwise rebuild on every alternation of `cargo run` and
    /// the runner's own cargo, half the dependency tree each time.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(args)
            .current_dir(&self.root)
            .stdin(Stdio::null());
        for (name, _) in std::env::vars_os() {
            if let Some(name) = name.to_str()
                && is_set_by_cargo_for_its_child(name)
            {
                command.env_remove(name);
            }
        }
        // What it runs (`cargo workbook api`'s server) speaks the runner's language.
        command.env(l10n::LANG_VARIABLE, l10n::Lang::current().tag());
        command
    }

    /// Builds every package's tests (without running them), in two builds: the
    /// default members as plain `cargo test` builds them, so that what it built is
    /// reused (in CI it ran just before), then every other member as the learner's
    /// `cargo workbook stage N` builds an exercise (none when every member is a
    /// default member: cargo refuses a build that excludes them all).
    pub fn build_every_package(
        &self,
        status: &mut dyn FnMut(BuildStatus<'_>),
    ) -> Result<Build, Error> {
        let (default_members, others) = self.members()?;
        let default = self.build(Targets::Default, status)?;
        if others.is_empty() {
            return Ok(default);
        }
        let others = self.build(Targets::WorkspaceExcept(&default_members), status)?;
        Ok(default.and(others))
    }

    /// The names of the workspace's members (`cargo metadata --no-deps` lists only
    /// them): its default members (what plain `cargo test` builds), and the others.
    fn members(&self) -> Result<(Vec<String>, Vec<String>), Error> {
        let metadata = self.metadata()?;
        let defaults: Vec<&str> = metadata["workspace_default_members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let (defaults, others): (Vec<_>, Vec<_>) = metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p["id"].as_str()?, p["name"].as_str()?.to_owned())))
            .partition(|(id, _)| defaults.contains(id));
        let names =
            |packages: Vec<(&str, String)>| packages.into_iter().map(|(_, name)| name).collect();
        Ok((names(defaults), names(others)))
    }

    /// The directory of a workspace package, from `cargo metadata`.
    pub fn package_dir(&self, package: &str) -> Result<PathBuf, Error> {
        self.package_dirs()?
            .remove(package)
            .ok_or_else(|| Error::Command {
                command: "cargo metadata --no-deps".into(),
                detail: format!("no package {package} in the workspace"),
            })
    }

    /// The directory of every workspace package, by name, from `cargo metadata`.
    pub fn package_dirs(&self) -> Result<BTreeMap<String, PathBuf>, Error> {
        Ok(self.metadata()?["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let name = p["name"].as_str()?;
                let dir = Path::new(p["manifest_path"].as_str()?).parent()?;
                Some((name.to_owned(), dir.to_owned()))
            })
            .collect())
    }

    /// The workspace's own packages, from `cargo metadata --no-deps`.
    fn metadata(&self) -> Result<Value, Error> {
        let mut command = self.command(&["metadata", "--no-deps", "--format-version", "1"]);
        command
            .arg("--manifest-path")
            .arg(self.root.join("Cargo.toml"));
        let out = command.output().map_err(|source| Error::Spawn {
            program: "cargo metadata".into(),
            source,
        })?;
        let failed = |detail: String| Error::Command {
            command: "cargo metadata --no-deps".into(),
            detail,
        };
        if !out.status.success() {
            return Err(failed(
                String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            ));
        }
        serde_json::from_slice(&out.stdout).map_err(|e| failed(e.to_string()))
    }

    /// Builds `targets` (without running them); `status` hears what cargo is doing.
    pub fn build(
        &self,
        targets: Targets<'_>,
        status: &mut dyn FnMut(BuildStatus<'_>),
    ) -> Result<Build, Error> {
        let started = Instant::now();
        let format = if self.color {
            "json-diagnostic-rendered-ansi"
        } else {
            "json"
        };
        let manifest = self.root.join("Cargo.toml");
        let mut command = self.command(&["test", "--no-run", "--color", "never"]);
        command
            .arg("--message-format")
            .arg(format)
            .arg("--manifest-path")
            .arg(&manifest)
            .args(targets.args())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|source| Error::Spawn {
            program: "cargo".into(),
            source,
        })?;
        let lines = read_lines(&mut child);
        let mut build = Build {
            success: false,
            executables: Vec::new(),
            errors: Vec::new(),
            warnings: 0,
            stderr: String::new(),
            elapsed: Duration::ZERO,
        };
        let mut finished = None;
        let mut compiled = 0;
        for line in lines.iter() {
            match line {
                Line::Err(text) => {
                    let t = text.trim_start();
                    if let Some(rest) = t.strip_prefix("Compiling ") {
                        let name = rest.split_whitespace().next().unwrap_or(rest);
                        compiled += 1;
                        status(BuildStatus::Compiling {
                            name,
                            so_far: compiled,
                        });
                    } else if t.starts_with("Blocking waiting for file lock") {
                        status(BuildStatus::WaitingForLock);
                    }
                    build.stderr.push_str(&text);
                    build.stderr.push('\n');
                }
                Line::Out(json) => {
                    let Ok(message) = serde_json::from_str::<Value>(&json) else {
                        continue;
                    };
                    match message["reason"].as_str() {
                        Some("compiler-artifact") => {
                            if let Some(exe) = executable(&message) {
                                build.executables.push(exe);
                            }
                        }
                        Some("compiler-message") => {
                            let level = message["message"]["level"].as_str().unwrap_or("");
                            let text = message["message"]["message"].as_str().unwrap_or("");
                            if level == "warning" {
                                build.warnings += 1;
                            } else if level.starts_with("error")
                                && !text.starts_with("aborting due to")
                            {
                                build.errors.push(Diagnostic {
                                    package: package_name(
                                        message["package_id"].as_str().unwrap_or(""),
                                    ),
                                    rendered: message["message"]["rendered"]
                                        .as_str()
                                        .unwrap_or(text)
                                        .trim_end()
                                        .to_owned(),
                                });
                            }
                        }
                        Some("build-finished") => {
                            finished = message["success"].as_bool();
                            if finished == Some(true) {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        let exited_well = if finished == Some(true) {
            // The build is done, and said so: cargo took another 25 ms to exit on
            // every run here. Its last lines are read, and its exit collected,
            // while the tests start.
            std::thread::spawn(move || {
                lines.iter().for_each(drop);
                let _ = child.wait();
            });
            true
        } else {
            let exit = child.wait().map_err(|source| Error::Spawn {
                program: "cargo".into(),
                source,
            })?;
            exit.success()
        };
        build.success = exited_well && finished != Some(false);
        build.elapsed = started.elapsed();
        Ok(build)
    }
}

fn executable(message: &Value) -> Option<Executable> {
    if message["profile"]["test"].as_bool() != Some(true) {
        return None;
    }
    let path = PathBuf::from(message["executable"].as_str()?);
    let manifest_path = PathBuf::from(message["manifest_path"].as_str()?);
    Some(Executable {
        package: package_name(message["package_id"].as_str().unwrap_or("")),
        target: message["target"]["name"].as_str()?.to_owned(),
        integration: message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "test")),
        path,
        manifest_dir: manifest_path.parent()?.to_owned(),
        src_path: PathBuf::from(message["target"]["src_path"].as_str().unwrap_or("")),
        fresh: message["fresh"].as_bool() == Some(true),
    })
}

/// The package's name in a package id: `path+file:///w/crates/x#name@0.1.0`,
/// `path+file:///w/crates/name#0.1.0`, or the old `name 0.1.0 (path+file://...)`.
pub fn package_name(id: &str) -> String {
    if let Some((url, fragment)) = id.rsplit_once('#') {
        return match fragment.split_once('@') {
            Some((name, _)) => name.to_owned(),
            None => url.rsplit('/').next().unwrap_or(url).to_owned(),
        };
    }
    id.split_whitespace().next().unwrap_or(id).to_owned()
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn package_names_come_out_of_every_id_format() {
        assert_eq!(
            package_name(
                "path+file:///work/main/exercises/stage1-tables#stage1-tables-exercise@0.1.0"
            ),
            "stage1-tables-exercise"
        );
        assert_eq!(
            package_name("path+file:///work/main/crates/runner#0.1.0"),
            "runner"
        );
        assert_eq!(
            package_name("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.1"),
            "serde"
        );
        assert_eq!(package_name("serde 1.0.1 (registry+https://x)"), "serde");
    }
}
