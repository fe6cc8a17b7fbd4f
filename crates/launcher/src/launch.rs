//! `cargo workbook`'s first step: the workbook's runner, started without asking
//! cargo when its last build is still current.
//!
//! `cargo run -p workbook-runner` resolves the whole workspace (some 470 locked
//! packages) and reads the manifest of every registry package the runner reaches
//! before it starts anything: a third of a second on every command, about half of
//! a warm `cargo workbook stage N`. This launcher is a workspace of its own, with
//! no dependency, which cargo starts in about 20 ms. It starts the runner's binary
//! itself when nothing that binary was built from changed since it was built, by
//! cargo's own record of its sources; otherwise, and whenever anything is in
//! doubt, cargo builds it first (`cargo build -p workbook-runner`, which finds it
//! current or rebuilds it), and then it starts.
//!
//! Only the runner is started this way. Whether the learner's code needs building
//! is still cargo's decision, every time: the runner asks it.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::SystemTime;

use crate::cargo_env::is_set_by_cargo_for_its_child;

/// How cargo builds the runner when its last build is not known to be current.
/// Quiet (no "Finished ..." line before every command), but with cargo's
/// progress bar kept on: the first run builds the runner and its dependencies,
/// about two minutes on two cores, and must not look like a hang. `-q` alone
/// would hide the bar; "always" needs a width (60 fits any terminal). When
/// nothing needs building, cargo draws no bar at all.
const QUIET_WITH_PROGRESS: &[&str] = &[
    "-q",
    "--config",
    "term.progress.when='always'",
    "--config",
    "term.progress.width=60",
];

/// The runner's package and binary, as cargo names them.
const PACKAGE: &str = "workbook-runner";
const RUNNER: &str = "workbook";

/// Beside the binary: the time at which cargo last started a build of the
/// runner that succeeded, as the file's modification time. When cargo finds the
/// runner current, it relinks nothing and the binary keeps its old time; after
/// a lock file or manifest changed in ways that do not touch the runner, every
/// later command would otherwise go through cargo again.
const CHECKED: &str = "workbook.checked";

/// What decides how the runner is built, beside the sources cargo lists: the
/// lock file (registry packages are not listed, they change only with it), the
/// workspace's manifest and cargo's configuration.
const BUILD_SETTINGS: &[&str] = &["Cargo.lock", "Cargo.toml", ".cargo/config.toml"];

/// Starts the runner with `args`, and returns its exit code where it cannot
/// replace this process.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let root = workbook_root();
    let debug = target_dir(&root).join("debug");
    let binary = debug.join(format!("{RUNNER}{}", std::env::consts::EXE_SUFFIX));
    let checked = debug.join(CHECKED);
    if is_current(&root, &binary, &checked) {
        // On success this never returns; a binary that cannot start (removed
        // in between) is cargo's to build again.
        if let Ok(code) = start(command(binary.as_os_str(), &[], &args)) {
            return code;
        }
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let checking = SystemTime::now();
    let build = ["build", "-p", PACKAGE, "--bin", RUNNER];
    match command(&cargo, &build, &[])
        .args(QUIET_WITH_PROGRESS)
        .status()
    {
        Ok(built) if built.success() => {
            // Current as of when cargo started looking: a file saved since is newer.
            let _ = mark_checked(&checked, checking);
            if let Ok(code) = start(command(binary.as_os_str(), &[], &args)) {
                return code;
            }
            // Built elsewhere (a target directory set in cargo's own
            // configuration): cargo knows where, and runs it.
            let run = ["run", "-p", PACKAGE, "--bin", RUNNER];
            let mut run = command(&cargo, &run, &[]);
            run.args(QUIET_WITH_PROGRESS).arg("--").args(&args);
            start(run).unwrap_or_else(|error| cannot_start(&cargo, &error))
        }
        // Cargo said why (the compiler's errors, its own).
        Ok(failed) => exit_code(failed),
        Err(error) => cannot_start(&cargo, &error),
    }
}

/// No words of ours: the operating system's message names the problem.
fn cannot_start(program: &OsStr, error: &std::io::Error) -> ExitCode {
    eprintln!("{}: {error}", program.to_string_lossy());
    ExitCode::FAILURE
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1),
    )
}

/// Records that the runner was current at `when` (see [`CHECKED`]).
fn mark_checked(checked: &Path, when: SystemTime) -> std::io::Result<()> {
    std::fs::File::create(checked)?.set_modified(when)
}

/// The workbook's folder: cargo runs this launcher with its own manifest's
/// folder, `crates/launcher`, in `CARGO_MANIFEST_DIR`.
fn workbook_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .and_then(|dir| Path::new(&dir).ancestors().nth(2).map(Path::to_owned))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Where cargo builds: the variables that move it, else `target/`.
fn target_dir(root: &Path) -> PathBuf {
    ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"]
        .into_iter()
        .find_map(std::env::var_os)
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// `program` with `args`, in the environment of a command typed in a shell:
/// what cargo set for this launcher would otherwise reach the runner's own
/// cargo (build scripts that watch those variables rebuild when they change).
fn command(program: &OsStr, first: &[&str], args: &[OsString]) -> Command {
    let mut command = Command::new(program);
    command.args(first).args(args);
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && is_set_by_cargo_for_its_child(name)
        {
            command.env_remove(name);
        }
    }
    command
}

/// Replaces this process with `command` (its signals, exit code and terminal
/// are then the runner's own, as under `cargo run`); returns only on failure.
#[cfg(unix)]
fn start(mut command: Command) -> std::io::Result<ExitCode> {
    use std::os::unix::process::CommandExt;
    Err(command.exec())
}

/// Runs `command` and passes its exit code on.
#[cfg(not(unix))]
fn start(mut command: Command) -> std::io::Result<ExitCode> {
    Ok(exit_code(command.status()?))
}

/// Whether `binary` was built, or found current by cargo ([`CHECKED`]), after
/// every file it was built from last changed: the sources cargo listed in its
/// dep-info file (`workbook.d` beside it, every source of every workspace
/// package built into it), the manifests of the packages those sources belong
/// to, and the [`BUILD_SETTINGS`]. The rule is cargo's own for path packages (a
/// file newer than the build means a rebuild), made stricter: a file of the same
/// age counts as newer, and any file that cannot be read makes the answer "no",
/// which only costs cargo's check.
fn is_current(root: &Path, binary: &Path, checked: &Path) -> bool {
    let Some(built) = modified(binary) else {
        return false;
    };
    let built = modified(checked).map_or(built, |checked| checked.max(built));
    let Some(sources) = std::fs::read_to_string(binary.with_extension("d"))
        .ok()
        .as_deref()
        .and_then(dep_info_sources)
    else {
        return false;
    };
    let manifests = package_manifests(root, &sources);
    let settings = BUILD_SETTINGS.iter().map(|file| root.join(file));
    !sources.is_empty()
        && sources
            .iter()
            .cloned()
            .chain(manifests)
            .chain(settings)
            .all(|file| modified(&file).is_some_and(|changed| changed < built))
}

fn modified(file: &Path) -> Option<SystemTime> {
    std::fs::metadata(file).and_then(|m| m.modified()).ok()
}

/// The prerequisites of a dep-info file's first rule (`target: a b\ c`, as
/// cargo writes it: one line, spaces in paths escaped with a backslash).
/// `None` when there is no rule.
fn dep_info_sources(dep_info: &str) -> Option<Vec<PathBuf>> {
    let (_, prerequisites) = dep_info.lines().next()?.split_once(": ")?;
    let mut sources = Vec::new();
    let mut path = String::new();
    let mut chars = prerequisites.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => path.extend(chars.next()),
            ' ' if !path.is_empty() => sources.push(PathBuf::from(std::mem::take(&mut path))),
            ' ' => {}
            c => path.push(c),
        }
    }
    if !path.is_empty() {
        sources.push(PathBuf::from(path));
    }
    Some(sources)
}

/// The manifest of each package a source belongs to (the nearest `Cargo.toml`
/// above it, inside the workbook): a changed dependency or feature is written
/// there, not in the sources. Looked up once per folder: the runner's 120
/// sources sit in 26, and this runs before every command.
fn package_manifests(root: &Path, sources: &[PathBuf]) -> BTreeSet<PathBuf> {
    let folders: BTreeSet<&Path> = sources.iter().filter_map(|s| s.parent()).collect();
    folders
        .into_iter()
        .filter_map(|folder| {
            folder
                .ancestors()
                .take_while(|dir| dir.starts_with(root))
                .map(|dir| dir.join("Cargo.toml"))
                .find(|manifest| manifest.is_file())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, SystemTime};

    use super::{BUILD_SETTINGS, dep_info_sources, is_current};

    /// A workbook in a temporary folder, removed when dropped: one package
    /// (`crates/one`) built into the runner's binary, every file a minute old,
    /// the binary half a minute old.
    struct Built {
        root: PathBuf,
    }

    const PACKAGE_FILES: &[&str] = &["crates/one/Cargo.toml", "crates/one/src/lib.rs"];

    impl Built {
        fn new(name: &str) -> Self {
            let root = std::env::temp_dir().join(format!(
                "workbook-launcher-test-{}-{name}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&root);
            let built = Built { root };
            for file in BUILD_SETTINGS.iter().chain(PACKAGE_FILES) {
                built.write(file, "", 60);
            }
            let source = built.root.join("crates/one/src/lib.rs");
            let binary = built.binary();
            let dep_info = format!("{}: {}\n", binary.display(), source.display());
            built.write("target/debug/workbook.d", &dep_info, 30);
            built.write("target/debug/workbook", "", 30);
            built
        }

        fn binary(&self) -> PathBuf {
            self.root.join("target/debug/workbook")
        }

        /// Writes `file`, changed `seconds_ago`.
        fn write(&self, file: &str, text: &str, seconds_ago: u64) {
            let path = self.root.join(file);
            std::fs::create_dir_all(path.parent().expect("a file in a folder"))
                .expect("create the folder");
            std::fs::write(&path, text).expect("write the file");
            self.touch(file, seconds_ago);
        }

        /// Sets `file`'s modification time to `seconds_ago`.
        fn touch(&self, file: &str, seconds_ago: u64) {
            let when = SystemTime::now() - Duration::from_secs(seconds_ago);
            File::options()
                .write(true)
                .open(self.root.join(file))
                .and_then(|f| f.set_modified(when))
                .expect("set the modification time");
        }

        fn is_current(&self) -> bool {
            is_current(
                &self.root,
                &self.binary(),
                &self.root.join("target/debug/workbook.checked"),
            )
        }
    }

    impl Drop for Built {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    #[test]
    fn a_runner_built_after_every_file_it_was_built_from_is_started_directly() {
        let built = Built::new("current");
        assert!(
            built.is_current(),
            "nothing changed since the build, yet the launcher would ask cargo"
        );
    }

    #[test]
    fn a_source_saved_after_the_build_sends_the_runner_to_cargo() {
        let built = Built::new("source");
        built.touch("crates/one/src/lib.rs", 10);
        assert!(
            !built.is_current(),
            "a source changed after the build, yet the old binary would run"
        );
    }

    #[test]
    fn a_source_as_old_as_the_build_sends_the_runner_to_cargo() {
        let built = Built::new("same-age");
        built.touch("crates/one/src/lib.rs", 30);
        assert!(
            !built.is_current(),
            "a source saved in the build's own second may not be in it"
        );
    }

    #[test]
    fn a_changed_manifest_lock_file_or_configuration_sends_the_runner_to_cargo() {
        for file in BUILD_SETTINGS.iter().chain(&["crates/one/Cargo.toml"]) {
            let built = Built::new("settings");
            built.touch(file, 10);
            assert!(
                !built.is_current(),
                "{file} changed after the build, yet the old binary would run"
            );
        }
    }

    #[test]
    fn a_runner_cargo_found_current_after_a_change_is_started_directly() {
        // The lock file changed; cargo then found the runner current and
        // relinked nothing: the binary kept its time, the check recorded its own.
        let built = Built::new("checked");
        built.touch("Cargo.lock", 20);
        built.write("target/debug/workbook.checked", "", 10);
        assert!(
            built.is_current(),
            "cargo found the runner current after the change, yet the launcher would ask again"
        );
    }

    #[test]
    fn a_source_saved_after_cargo_last_found_the_runner_current_sends_it_to_cargo() {
        let built = Built::new("checked-then-saved");
        built.write("target/debug/workbook.checked", "", 20);
        built.touch("crates/one/src/lib.rs", 10);
        assert!(
            !built.is_current(),
            "a source changed after cargo's last check, yet the old binary would run"
        );
    }

    #[test]
    fn a_missing_binary_dep_info_or_source_sends_the_runner_to_cargo() {
        for file in [
            "target/debug/workbook",
            "target/debug/workbook.d",
            "crates/one/src/lib.rs",
        ] {
            let built = Built::new("missing");
            std::fs::remove_file(built.root.join(file)).expect("remove the file");
            assert!(
                !built.is_current(),
                "without {file}, the launcher cannot know the binary is current"
            );
        }
    }

    #[test]
    fn dep_info_paths_keep_their_escaped_spaces() {
        let sources = dep_info_sources("/w/target/debug/workbook: /w/a.rs /w/my\\ dir/b.rs\n");
        assert_eq!(
            sources,
            Some(vec![
                PathBuf::from("/w/a.rs"),
                Path::new("/w/my dir/b.rs").to_owned()
            ]),
            "a path with a space must come out whole"
        );
        assert_eq!(dep_info_sources(""), None, "an empty file has no rule");
    }
}
