//! The runner's command line, run against small fixture workbooks
//! (`tests/fixtures/`): one stage of each kind (passes, fails, hangs, does not
//! compile), and a sound workbook for `verify`. The fixtures are workspaces of
//! their own, without dependencies; they build into `target/tmp/runner-fixtures`
//! (a copy, into a directory of its own there: see `target_dir_of`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// An empty directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("runner-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch directory is created");
    dir
}

/// A copy of a fixture, for tests that change files.
fn copy_of(name: &str, test: &str) -> PathBuf {
    let to = scratch(test).join(name);
    copy_dir(&fixture(name), &to);
    to
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("the copy's directory is created");
    for entry in std::fs::read_dir(from).expect("the fixture is readable") {
        let entry = entry.expect("the fixture is readable");
        let path = entry.path();
        if entry.file_name() == "target" {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("the file is copied");
        }
    }
}

fn workbook(root: &Path, state: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_workbook"));
    with_env(&mut command, root, state);
    command
}

/// Where the workbook at `root` builds. The fixtures themselves share one
/// directory; each copy has its own: a copy's crates have the same paths inside
/// its workspace as the fixture's, so cargo names their executables the same, and
/// a copy rebuilt (its files are newer) would replace an executable another test
/// is running ("could not run .../deps/pass-...: No such file or directory", seen
/// in CI while watch tests ran beside each other).
fn target_dir_of(root: &Path) -> PathBuf {
    let fixtures = Path::new(env!("CARGO_TARGET_TMPDIR")).join("runner-fixtures");
    match root.strip_prefix(env!("CARGO_TARGET_TMPDIR")) {
        Ok(copy) => fixtures.join("copies").join(copy),
        Err(_) => fixtures,
    }
}

/// The fixture's root and a state directory of the test's own; nothing from
/// the environment the tests run in.
fn with_env(command: &mut Command, root: &Path, state: &Path) {
    command
        .env("WORKBOOK_ROOT", root)
        .env("WORKBOOK_STATE", state)
        .env("CARGO_TARGET_DIR", target_dir_of(root))
        .env_remove("WORKBOOK_STAGES")
        .env_remove("WORKBOOK_OBSERVATIONS")
        .env_remove("WORKBOOK_STARTED_BY")
        .env_remove("CI")
        // English, whatever the machine's locale (a test of another language
        // says so with --lang or its own environment).
        .env("WORKBOOK_LANG", "en")
        // Like any `cargo test`, the runner's own tests leave no container running.
        .env("WORKBOOK_KEEP_CONTAINER", "0")
        .env("NO_COLOR", "1")
        // Wide enough that no table wraps a message the tests look for.
        .env("COLUMNS", "300")
        .stdin(Stdio::null());
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Ran {
    fn says(&self, text: &str) -> bool {
        self.stdout.contains(text)
    }
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?} after {:.1} s\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            self.took.as_secs_f64(),
            self.stdout,
            self.stderr
        )
    }
}

fn run(command: &mut Command) -> Ran {
    let started = Instant::now();
    let out = command.output().expect("the runner starts");
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: started.elapsed(),
    }
}

fn stage(root: &Path, state: &Path, args: &[&str]) -> Ran {
    run(workbook(root, state).arg("stage").args(args))
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("the state file exists");
    serde_json::from_str(&text).expect("the state file is JSON")
}

#[test]
fn a_passing_stage_is_marked_done_and_names_the_next_stage() {
    let state = scratch("passing");
    let ran = stage(&fixture("workbook"), &state, &["1"]);
    assert_eq!(ran.code, Some(0), "{ran}");
    assert!(ran.says("Stage 1 of 4 · A stage that passes"), "{ran}");
    assert!(ran.says("✔ All 2 tests pass"), "{ran}");
    assert!(
        ran.says("How many payments does one request make?"),
        "the recorded scenario is shown, named by the question it answers: {ran}"
    );
    assert!(ran.says("payments created: 1"), "{ran}");
    assert!(ran.says("Stage 1 is done."), "{ran}");
    assert!(ran.says("Next: stage 2 · A stage that fails"), "{ran}");
    let progress = read_json(&state.join("progress.json"));
    assert_eq!(progress["stages"]["1"]["done"], true, "{progress}");
    assert!(
        state.join("stage-1/observations.jsonl").is_file(),
        "the run's observations are kept"
    );
}

#[test]
fn a_failing_stage_shows_the_messages_the_figures_and_the_deadlock_hint() {
    let state = scratch("failing");
    // An answer given earlier (as `stage` saves it), judged against this run.
    std::fs::create_dir_all(state.join("stage-2")).expect("the state directory is created");
    std::fs::write(
        state.join("stage-2/answers.json"),
        r#"{"answers":[{"id":"burst-payments","question":"q","answer":"1","why":"the key","answered_at":0}]}"#,
    )
    .expect("the answers are written");
    let ran = stage(&fixture("workbook"), &state, &["2"]);
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(ran.says("✘ 2 of 3 tests fail"), "{ran}");
    assert!(
        ran.says("made 20 payments: the key must be checked"),
        "the panic message is shown: {ran}"
    );
    assert!(!ran.says("panicked at"), "libtest's noise is not: {ran}");
    assert!(!ran.says("RUST_BACKTRACE"), "{ran}");
    assert!(ran.says("deadlock?"), "{ran}");
    assert!(
        ran.says("15 calls waited for a pool connection"),
        "the hint names what the harness reported: {ran}"
    );
    assert!(ran.says("`cargo workbook hint 2`"), "{ran}");
    assert!(!ran.says("`just "), "just did not start it: {ran}");
    assert!(ran.says("payments created: 20"), "{ran}");
    assert!(
        ran.says("✘ wrong"),
        "the saved prediction (1) is judged against 20: {ran}"
    );
    assert!(
        ran.says("(not asked)"),
        "the other prediction had no answer: {ran}"
    );
    assert!(ran.says("because: the key"), "{ran}");
    let progress = read_json(&state.join("progress.json"));
    assert_eq!(progress["stages"]["2"]["done"], false, "{progress}");
    assert_eq!(
        progress["stages"]["2"]["predictions"]["burst-payments"]["right"], false,
        "{progress}"
    );
}

/// Processes whose environment holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let needle = format!("WORKBOOK_TEST_MARKER={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .map(|env| env.split(|b| *b == 0).any(|var| var == needle.as_bytes()))
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_hanging_stage_is_stopped_at_the_timeout_and_called_a_hang() {
    let state = scratch("hanging");
    let marker = format!("hang-{}", std::process::id());
    let ran = run(workbook(&fixture("workbook"), &state)
        .env("WORKBOOK_TEST_MARKER", &marker)
        .args(["stage", "3", "--timeout", "3"]));
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(
        ran.says("did not finish within 3 s, so they were stopped: that is a hang"),
        "{ran}"
    );
    assert!(ran.says("Still running: waits_for_the_lock"), "{ran}");
    assert!(
        ran.says("✔ 1 test passes"),
        "the quick test still counts: {ran}"
    );
    assert!(
        ran.took < Duration::from_secs(60),
        "the bound holds (build included): {ran}"
    );
    let left = processes_with(&marker);
    assert!(
        left.is_empty(),
        "the hanging test process is gone: {left:?}"
    );
}

#[test]
fn a_stage_that_does_not_compile_shows_the_compiler_error_briefly() {
    let state = scratch("broken");
    let ran = stage(&fixture("workbook"), &state, &["4"]);
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(
        ran.says("fx-broken-exercise does not compile yet (1 error)"),
        "{ran}"
    );
    assert!(ran.says("error[E0308]: mismatched types"), "{ran}");
    assert!(ran.says("stages/broken-exercise/src/lib.rs:2:5"), "{ran}");
    assert!(
        !ran.says("Tests"),
        "no test table for code that does not build: {ran}"
    );
}

#[test]
fn stage_never_waits_for_input_without_a_terminal() {
    let state = scratch("no-terminal");
    let mut child = workbook(&fixture("workbook"), &state)
        .args(["stage", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the runner starts");
    // Keep stdin open and silent: a prompt would wait forever.
    let stdin = child.stdin.take();
    let out = wait_bounded(child, Duration::from_secs(120));
    drop(stdin);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("Predictions not asked: no terminal to answer them"),
        "{stdout}"
    );
    assert!(
        !state.join("stage-1/answers.json").exists(),
        "no prediction was asked, so no answers should be saved"
    );
}

/// What a child prints, collected as it comes, so a test can wait for a prompt
/// before it answers (a bounded wait, not a guess of how long the prompt takes).
struct Screen {
    text: std::sync::Arc<(std::sync::Mutex<String>, std::sync::Condvar)>,
}

impl Screen {
    fn follow(mut out: impl std::io::Read + Send + 'static) -> Screen {
        let text = std::sync::Arc::new((
            std::sync::Mutex::new(String::new()),
            std::sync::Condvar::new(),
        ));
        let shared = text.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = out.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let (lock, changed) = &*shared;
                lock.lock()
                    .expect("the screen lock")
                    .push_str(&String::from_utf8_lossy(&chunk[..n]));
                changed.notify_all();
            }
        });
        Screen { text }
    }

    /// Waits (at most 120 s) until `needle` has been printed; returns all so far.
    fn wait_for(&self, needle: &str) -> String {
        self.wait_until(&format!("{needle:?}"), |text| text.contains(needle))
    }

    /// Waits (at most 120 s) until what has been printed satisfies `done`; returns it.
    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let (lock, changed) = &*self.text;
        let (text, timeout) = changed
            .wait_timeout_while(
                lock.lock().expect("the screen lock"),
                Duration::from_secs(120),
                |t| !done(t),
            )
            .expect("the screen lock");
        assert!(
            !timeout.timed_out(),
            "{what} never appeared within 120 s:\n{text}"
        );
        text.clone()
    }
}

fn wait_bounded(mut child: Child, bound: Duration) -> std::process::Output {
    let deadline = Instant::now() + bound;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                panic!("the runner did not finish within {bound:?}: it waits for input");
            }
        }
    }
    child.wait_with_output().expect("the output is read")
}

/// `just stage 1` of the fixture on a pseudo-terminal (util-linux `script`), fed
/// from our stdin. `None`, said on stderr, where `script` is not util-linux's.
fn stage_1_on_a_terminal(state: &Path, env: &[(&str, &str)]) -> Option<Child> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("not run: util-linux `script` (a pseudo-terminal) is not installed");
        return None;
    }
    let mut script = Command::new("script");
    with_env(&mut script, &fixture("workbook"), state);
    script.envs(env.iter().copied());
    let child = script
        .args([
            "-qec",
            &format!("{} stage 1", env!("CARGO_BIN_EXE_workbook")),
        ])
        .arg("/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script starts");
    Some(child)
}

#[test]
fn predictions_are_asked_on_a_terminal_and_saved() {
    let state = scratch("terminal");
    let Some(mut child_process) = stage_1_on_a_terminal(&state, &[]) else {
        return;
    };
    let mut stdin = child_process.stdin.take().expect("stdin is piped");
    let screen = Screen::follow(child_process.stdout.take().expect("stdout is piped"));
    // Each key goes once the prompt it answers is on the screen: down to the second
    // choice ("1") and Enter, then the "why" and Enter.
    screen.wait_for("Your prediction");
    stdin.write_all(b"\x1b[B\r").expect("the choice is sent");
    screen.wait_for("Why?");
    stdin.write_all(b"one request\r").expect("the why is sent");
    let stdout = screen.wait_for("tests pass");
    wait_bounded(child_process, Duration::from_secs(120));
    drop(stdin);
    let answers = read_json(&state.join("stage-1/answers.json"));
    assert_eq!(answers["answers"][0]["answer"], "1", "{stdout}");
    assert_eq!(answers["answers"][0]["why"], "one request", "{stdout}");
    assert!(stdout.contains("✔ right"), "{stdout}");
}

#[test]
fn ci_never_asks_even_on_a_terminal() {
    let state = scratch("ci-terminal");
    let Some(child) = stage_1_on_a_terminal(&state, &[("CI", "true")]) else {
        return;
    };
    let out = wait_bounded(child, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Predictions not asked: CI is set"),
        "{stdout}"
    );
    assert!(
        !state.join("stage-1/answers.json").exists(),
        "no prediction was asked, so no answers should be saved"
    );
}

#[test]
fn hints_come_one_at_a_time_and_the_position_is_remembered() {
    let state = scratch("hints");
    let root = fixture("workbook");
    let first = run(workbook(&root, &state).args(["hint", "2"]));
    assert!(first.says("Hint 1 of 2 for stage 2"), "{first}");
    assert!(first.says("Pay once per key."), "{first}");
    let second = run(workbook(&root, &state).args(["hint", "2"]));
    assert!(second.says("Hint 2 of 2"), "{second}");
    assert!(second.says("Give the connection back."), "{second}");
    assert!(second.says("That was the last hint"), "{second}");
    let third = run(workbook(&root, &state).args(["hint", "2"]));
    assert!(
        third.says("That was every hint of stage 2 (2 in all)"),
        "{third}"
    );
    assert!(third.says("1. Pay once per key."), "{third}");
    assert!(
        second.says("`cargo workbook solution 2` shows the model answer"),
        "{second}"
    );
    let other = run(workbook(&root, &state).args(["hint", "1"]));
    assert!(
        other.says("Hint 1 of 2 for stage 1"),
        "each stage counts apart: {other}"
    );
    let through_just = run(workbook(&root, &state)
        .env("WORKBOOK_STARTED_BY", "just")
        .args(["hint", "1"]));
    assert!(
        through_just.says("`just solution 1` shows the model answer"),
        "just started it, so its commands are just's: {through_just}"
    );
}

#[test]
fn progress_shows_stages_done_predictions_and_hints() {
    let state = scratch("progress");
    let root = fixture("workbook");
    std::fs::create_dir_all(state.join("stage-1")).expect("the state directory is created");
    std::fs::write(
        state.join("stage-1/answers.json"),
        r#"{"answers":[{"id":"payments","question":"q","answer":"1","answered_at":0}]}"#,
    )
    .expect("the answers are written");
    assert_eq!(
        stage(&root, &state, &["1"]).code,
        Some(0),
        "stage 1 of the fixture passes its tests and should exit 0"
    );
    run(workbook(&root, &state).args(["hint", "3"]));
    let ran = run(workbook(&root, &state).arg("progress"));
    assert_eq!(ran.code, Some(0), "{ran}");
    assert!(ran.says("✔ done"), "{ran}");
    assert!(ran.says("1 of 1 right"), "{ran}");
    assert!(ran.says("1 of 1"), "stage 3's hint: {ran}");
    assert!(ran.says("not started"), "{ran}");
    assert!(ran.says("Next: stage 2 · A stage that fails"), "{ran}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn reset_asks_first_then_restores_the_files_and_forgets_the_stage() {
    let root = copy_of("workbook", "reset");
    let state = root.join(".workbook");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "fixture"]);
    let lib = root.join("stages/fail-exercise/src/lib.rs");
    let original = std::fs::read_to_string(&lib).expect("the exercise is readable");
    std::fs::write(&lib, "// the learner's attempt\n").expect("the exercise is edited");
    run(workbook(&root, &state).args(["hint", "2"]));
    assert!(
        state.join("stage-2/hints.json").is_file(),
        "`hint 2` should record the hint shown in stage-2/hints.json"
    );

    // Piped input is no terminal: no confirmation can be given, nothing changes.
    let mut child = workbook(&root, &state)
        .args(["reset", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the runner starts");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"y\n");
    }
    let out = wait_bounded(child, Duration::from_secs(30));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("needs a confirmation"), "{stderr}");
    assert!(stderr.contains("--yes"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&lib).expect("readable"),
        "// the learner's attempt\n",
        "without a confirmation the learner's attempt should be left as it is"
    );

    let ran = run(workbook(&root, &state).args(["reset", "2", "--yes"]));
    assert_eq!(ran.code, Some(0), "{ran}");
    assert!(ran.says("restored"), "{ran}");
    assert_eq!(
        std::fs::read_to_string(&lib).expect("readable"),
        original,
        "`reset 2 --yes` should restore the exercise as committed"
    );
    assert!(
        !state.join("stage-2").exists(),
        "the stage's leftovers are gone"
    );
}

#[test]
fn the_solution_is_shown_once_the_stage_passes_or_with_yes() {
    let state = scratch("solution");
    let root = fixture("workbook");
    let refused = run(workbook(&root, &state).args(["solution", "2"]));
    assert_eq!(refused.code, Some(2), "{refused}");
    assert!(refused.stderr.contains("needs a confirmation"), "{refused}");
    assert!(!refused.says("requests.min(1)"), "{refused}");

    let forced = run(workbook(&root, &state).args(["solution", "2", "--yes"]));
    assert_eq!(forced.code, Some(0), "{forced}");
    assert!(
        forced.says("── stages/fail-solution/src/lib.rs ──"),
        "{forced}"
    );
    assert!(forced.says("requests.min(1)"), "{forced}");

    assert_eq!(
        stage(&root, &state, &["1"]).code,
        Some(0),
        "stage 1 of the fixture passes its tests and should exit 0"
    );
    let earned = run(workbook(&root, &state).args(["solution", "1"]));
    assert_eq!(earned.code, Some(0), "{earned}");
    assert!(
        earned.says("── stages/pass-solution/src/lib.rs ──"),
        "{earned}"
    );
}

/// `workbook watch 1` in `root`, its stdin to type on and its screen followed.
fn watch_stage_1(root: &Path, state: &Path) -> (Child, std::process::ChildStdin, Screen) {
    watch_stage_1_with(root, state, &[])
}

/// `workbook watch 1 FLAGS...`, as [`watch_stage_1`].
fn watch_stage_1_with(
    root: &Path,
    state: &Path,
    flags: &[&str],
) -> (Child, std::process::ChildStdin, Screen) {
    let mut child = workbook(root, state)
        .args(["watch", "1"])
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the runner starts");
    let stdin = child.stdin.take().expect("stdin is piped");
    let screen = Screen::follow(child.stdout.take().expect("stdout is piped"));
    (child, stdin, screen)
}

#[test]
fn watch_reruns_on_enter_and_on_save_and_stops_on_q() {
    let root = copy_of("workbook", "watch");
    let state = root.join(".workbook");
    let (child, mut stdin, screen) = watch_stage_1(&root, &state);
    let runs = |n: usize| move |text: &str| text.matches("Watching").count() >= n;
    screen.wait_until("the first run", runs(1));
    stdin.write_all(b"\n").expect("Enter is sent");
    screen.wait_until("a second run, after Enter", runs(2));
    let lib = root.join("stages/pass-exercise/src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).expect("readable");
    text.push_str("// saved again\n");
    std::fs::write(&lib, text).expect("the exercise is saved");
    let all = screen.wait_until("a third run, after the save", runs(3));
    stdin.write_all(b"q\n").expect("q is sent");
    let out = wait_bounded(child, Duration::from_secs(10));
    assert!(out.status.success(), "q stops watch: {:?}", out.status);
    assert_eq!(all.matches("✔ All 2 tests pass").count(), 3, "{all}");
}

#[test]
fn watch_gives_a_hint_on_h_and_goes_on_to_the_next_stage_on_n() {
    let root = copy_of("workbook", "watch-keys");
    let state = root.join(".workbook");
    let (child, mut stdin, screen) = watch_stage_1(&root, &state);
    let shown = screen.wait_for("n: on to stage 2");
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("Progress █░░░ 1 of 4 stages done")),
        "the progress bar: {shown}"
    );
    stdin.write_all(b"h\n").expect("h is sent");
    screen.wait_for("Hint 1 of 2 for stage 1");
    stdin.write_all(b"n\n").expect("n is sent");
    screen.wait_for("Stage 2 of 4");
    let all = screen.wait_for("n: the next stage, once this one passes");
    stdin.write_all(b"q\n").expect("q is sent");
    let out = wait_bounded(child, Duration::from_secs(10));
    assert!(
        out.status.success(),
        "q should end watch with success: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        all.matches("Stage 1 of 4").count(),
        1,
        "h shows a hint without a rerun: {all}"
    );
    let progress = read_json(&state.join("progress.json"));
    assert_eq!(
        progress["stages"]["1"]["runs"], 1,
        "one run, counted once: {progress}"
    );
    assert_eq!(progress["stages"]["2"]["runs"], 1, "{progress}");
}

#[test]
fn watch_takes_the_flags_stage_takes() {
    let root = copy_of("workbook", "watch-flags");
    let state = root.join(".workbook");
    let (child, mut stdin, screen) =
        watch_stage_1_with(&root, &state, &["--no-predict", "--timeout", "60"]);
    let shown = screen.wait_for("Watching");
    stdin.write_all(b"q\n").expect("q is sent");
    let out = wait_bounded(child, Duration::from_secs(10));
    assert!(
        out.status.success(),
        "watch refused the flags stage takes: {:?}",
        out.status
    );
    assert!(
        shown.contains("(Predictions not asked: --no-predict.)"),
        "watch --no-predict should say why it does not ask, as stage --no-predict does: {shown}"
    );
}

#[test]
fn verify_passes_on_a_sound_workbook() {
    let state = scratch("verify-sound");
    let ran = run(workbook(&fixture("verified"), &state).arg("verify"));
    assert_eq!(ran.code, Some(0), "{ran}");
    assert!(ran.says("verify: 14 passed, 0 failed"), "{ran}");
    assert!(
        ran.says("stage 1 · the exercise holds only its edit files and given code"),
        "{ran}"
    );
    assert!(
        ran.says("stages.pt-BR.toml translates every text of stages.toml"),
        "{ran}"
    );
    assert!(
        ran.says("prediction trap matches what happens: fx-race-solution recorded payments=20"),
        "verify_observe is read in the observed_by run: {ran}"
    );
    assert!(
        ran.says(
            "prediction naive-payments matches what happens: fx-race-solution recorded payments=20"
        ),
        "the observed_by package's whole run gives the figure: {ran}"
    );
}

#[test]
fn flaky_counts_a_known_wrong_run_without_a_server_as_bad_not_as_caught() {
    let state = scratch("flaky-no-server");
    let root = fixture("verified");
    let sound = run(workbook(&root, &state).args(["flaky", "2"]));
    assert_eq!(sound.code, Some(0), "{sound}");
    assert!(sound.says("0 failures or escapes"), "{sound}");
    // The catching test fails, but only because no PostgreSQL could be had: that
    // run proves nothing about the known-wrong package.
    let no_server = run(workbook(&root, &state)
        .args(["flaky", "2"])
        .env("FX_NO_SERVER", "1"));
    assert_eq!(no_server.code, Some(1), "{no_server}");
    assert!(
        no_server
            .says("fx-race-wrong-pool is caught by the_pool_serves_every_request: 2 of 2 runs"),
        "both runs without a server are counted against the pair: {no_server}"
    );
    assert!(
        no_server.says("no PostgreSQL server could be had"),
        "the first bad run says why: {no_server}"
    );
}

#[test]
fn flaky_keeps_the_whole_output_of_each_bad_run_in_a_file_and_names_it() {
    let state = scratch("flaky-kept-output");
    let root = fixture("verified");
    let sound = run(workbook(&root, &state).args(["flaky", "2"]));
    assert_eq!(sound.code, Some(0), "{sound}");
    assert!(
        !state.join("flaky").exists(),
        "runs that all went as they must leave no file: {sound}"
    );
    let bad = run(workbook(&root, &state)
        .args(["flaky", "2"])
        .env("FX_NO_SERVER", "1"));
    assert_eq!(bad.code, Some(1), "{bad}");
    let kept: Vec<PathBuf> = bad
        .stdout
        .lines()
        .filter(|l| l.contains("fx-race-wrong-pool, run "))
        .filter_map(|l| l.split_once("its whole output: "))
        .map(|(_, path)| PathBuf::from(path.trim()))
        .collect();
    assert_eq!(
        kept.len(),
        2,
        "one file named for each bad run of the known-wrong package: {bad}"
    );
    assert_ne!(kept[0], kept[1], "each run has a file of its own: {bad}");
    for path in &kept {
        assert!(
            path.starts_with(state.join("flaky")),
            "{} is under the state directory's flaky/",
            path.display()
        );
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
        for said in [
            "bad for \"fx-race-wrong-pool is caught by the_pool_serves_every_request\"",
            "command: cargo test -p fx-race-wrong-pool --test race",
            // The failing test's own output, as libtest printed it.
            "---- the_pool_serves_every_request stdout ----",
            "No PostgreSQL server for the tests.",
            "test result: FAILED",
            // What the tests recorded.
            r#"{"condition":"no-server"}"#,
        ] {
            assert!(
                text.contains(said),
                "{} holds {said:?}:\n{text}",
                path.display()
            );
        }
    }
}

#[test]
fn a_stage_speaks_brazilian_portuguese_with_lang_pt_br() {
    let state = scratch("failing-pt-br");
    // The answer is saved as the choice's identity (its stages.toml label), and
    // shown in the learner's language.
    std::fs::create_dir_all(state.join("stage-2")).expect("the state directory is created");
    std::fs::write(
        state.join("stage-2/answers.json"),
        r#"{"answers":[{"id":"burst-payments","question":"q","answer":"between 2 and 19","why":"a chave","answered_at":0}]}"#,
    )
    .expect("the answers are written");
    let ran = run(workbook(&fixture("workbook"), &state).args(["--lang", "pt-BR", "stage", "2"]));
    assert_eq!(ran.code, Some(1), "{ran}");
    for said in [
        "Etapa 2 de 4 · Uma etapa que falha",
        "O exercício paga uma vez por pedido",
        "Você edita: stages/fail-exercise/src/lib.rs",
        "20 pedidos com uma chave: quantos pagamentos?",
        "entre 2 e 19",
        "porque: a chave",
        "✘ errou",
        "(não perguntada)",
        "✘ 2 de 3 testes falham, 1 passa (",
        "travamento?",
        "15 chamadas esperaram por uma conexão do pool",
        "Empacou? `cargo workbook hint 2`.",
    ] {
        assert!(ran.says(said), "says {said:?}: {ran}");
    }
    assert!(
        !ran.says("between 2 and 19"),
        "the choice's identity is not shown: {ran}"
    );
    let progress = read_json(&state.join("progress.json"));
    assert_eq!(
        progress["stages"]["2"]["predictions"]["burst-payments"]["right"], false,
        "judged by identity, in any language: {progress}"
    );
}

#[test]
fn the_language_is_the_flag_then_workbook_lang_then_the_locale() {
    let state = scratch("hint-languages");
    let root = fixture("workbook");
    let hint = |env: &[(&str, &str)], args: &[&str]| {
        let mut command = workbook(&root, &state);
        command
            .env_remove("WORKBOOK_LANG")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .envs(env.iter().copied())
            .args(args)
            .args(["hint", "1"]);
        run(&mut command)
    };
    let ran = hint(&[("LANG", "pt_BR.UTF-8")], &[]);
    assert!(
        ran.says("Dica 1 de 2 da etapa 1 · Uma etapa que passa"),
        "{ran}"
    );
    assert!(ran.says("Não há nada a fazer."), "{ran}");
    let ran = hint(&[("LANG", "pt_BR.UTF-8"), ("WORKBOOK_LANG", "en")], &[]);
    assert!(
        ran.says("Hint 2 of 2 for stage 1 · A stage that passes"),
        "{ran}"
    );
    let ran = hint(&[("WORKBOOK_LANG", "en")], &["--lang", "pt-BR"]);
    assert!(ran.says("Essas foram todas as dicas da etapa 1"), "{ran}");
    let ran = hint(&[("WORKBOOK_LANG", "fr")], &[]);
    assert_eq!(ran.code, Some(2), "{ran}");
    assert!(
        ran.stderr.contains(
            "\"fr\" is not a language of the workbook (given by WORKBOOK_LANG): use en or pt-BR"
        ),
        "{ran}"
    );
    // A stage the twin lacks is shown in English rather than not at all.
    let ran = run(workbook(&root, &state).args(["--lang", "pt-BR", "hint", "3"]));
    assert!(
        ran.says("Dica 1 de 1 da etapa 3 · A stage that hangs"),
        "{ran}"
    );
}

#[test]
fn verify_fails_and_says_why_when_its_checks_are_broken_on_purpose() {
    let state = scratch("verify-broken");
    let root = fixture("verified");
    let ran = run(workbook(&root, &state)
        .arg("--stages")
        .arg(root.join("stages-broken.toml"))
        .arg("verify"));
    assert_eq!(ran.code, Some(1), "{ran}");
    for why in [
        "has no hints",
        "its answer \"maybe\" is not one of its choices",
        "the key says \"20\", but fx-race-solution recorded payments=1 in fx.burst, which is \"1\"",
        "fx-race-solution recorded no `fx.nowhere`",
        "`a_single_request_is_paid` passes, so it does not catch it",
        "there is no test `no_such_test`",
        "passes every test, so it teaches nothing",
    ] {
        assert!(ran.says(why), "verify names {why:?}: {ran}");
    }
    assert!(
        ran.says(" failed\n") || ran.stdout.trim_end().ends_with("failed"),
        "{ran}"
    );
}

#[test]
fn verify_names_a_file_of_an_exercise_that_is_neither_edited_nor_the_solutions() {
    let root = copy_of("verified", "verify-stray");
    let state = root.join(".workbook");
    let stray = root.join("stages/race-exercise/src/given.rs");
    std::fs::write(&stray, "// given code, copied by hand\n").expect("the stray file is written");
    let ran = run(workbook(&root, &state).arg("verify"));
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(
        ran.says(
            "stage 1 · the exercise holds only its edit files and given code: \
             stages/race-exercise/src/given.rs has no twin in the solution \
             (stages/race-solution/src/given.rs)"
        ),
        "verify names the file and its missing twin: {ran}"
    );
    assert!(
        ran.says("compile it into the exercise with `#[path"),
        "verify names the fix: {ran}"
    );
}

#[test]
fn verify_names_code_pasted_into_a_crate_root_the_learner_does_not_edit() {
    let root = copy_of("verified", "verify-pasted");
    let state = root.join(".workbook");
    // The learner's work moves to src/race.rs; src/lib.rs becomes wiring, plus a paste.
    let exercise = root.join("stages/race-exercise/src");
    std::fs::rename(exercise.join("lib.rs"), exercise.join("race.rs"))
        .expect("the learner's file is moved");
    std::fs::write(
        exercise.join("lib.rs"),
        "//! The race stage.\n\nmod race;\npub use race::*;\n\n/// Pasted by hand.\n\
         pub fn pasted() -> u32 {\n    1\n}\n",
    )
    .expect("the crate root is written");
    let stages = root.join("stages.toml");
    let text = std::fs::read_to_string(&stages).expect("stages.toml is read");
    let text = text.replace(
        r#"edit = ["stages/race-exercise/src/lib.rs"]"#,
        r#"edit = ["stages/race-exercise/src/race.rs"]"#,
    );
    std::fs::write(&stages, text).expect("stages.toml is written");
    let ran = run(workbook(&root, &state).arg("verify"));
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(
        ran.says(
            "stage 1 · the exercise holds only its edit files and given code: \
             stages/race-exercise/src/lib.rs:7: a function `pasted` in the crate root, which \
             stage 1's `edit` does not list"
        ),
        "verify names the file, the line and the item: {ran}"
    );
    assert!(
        ran.says("move it into an edit file (stages/race-exercise/src/race.rs)"),
        "verify names where it goes: {ran}"
    );
}

#[test]
fn verify_names_an_exercise_manifest_that_is_no_longer_its_solutions_and_manifests_rewrites_it() {
    let root = copy_of("verified", "verify-manifest");
    let state = root.join(".workbook");
    let solution = root.join("stages/race-solution/Cargo.toml");
    let text = std::fs::read_to_string(&solution).expect("the solution's manifest is read");
    std::fs::write(&solution, format!("{text}\n[features]\nslow = []\n"))
        .expect("the solution's manifest is changed");
    let ran = run(workbook(&root, &state).arg("verify"));
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(
        ran.says(
            "stage 1 · the exercise's manifest is its solution's, derived: \
             stages/race-exercise/Cargo.toml is not what `cargo workbook manifests` writes \
             from stages/race-solution/Cargo.toml: run it"
        ),
        "verify names the stale manifest, its source and the command: {ran}"
    );
    let ran = run(workbook(&root, &state).arg("manifests"));
    assert_eq!(ran.code, Some(0), "{ran}");
    let exercise = std::fs::read_to_string(root.join("stages/race-exercise/Cargo.toml"))
        .expect("the exercise's manifest is read");
    assert!(
        exercise.contains("name = \"fx-race-exercise\"")
            && exercise.contains("[features]\nslow = []"),
        "manifests writes the exercise's manifest from the solution's: {exercise}"
    );
}

#[test]
fn the_maintainers_commands_are_hidden_and_new_stage_refuses_a_number_out_of_order() {
    let root = copy_of("verified", "maintainers-commands");
    let state = root.join(".workbook");
    let help = run(workbook(&root, &state).arg("--help"));
    assert_eq!(help.code, Some(0), "{help}");
    assert!(
        !help.says("new-stage") && !help.says("manifests") && help.says("verify"),
        "the learner's help lists the learner's commands only: {help}"
    );
    let ran = run(workbook(&root, &state).args(["new-stage", "5", "demo"]));
    assert_eq!(ran.code, Some(2), "{ran}");
    assert!(
        ran.stderr.contains("stages.toml has 1: the new stage is 2"),
        "new-stage names the number it takes: {ran}"
    );
    let ran = run(workbook(&root, &state).args(["new-stage", "2", "Not_A_Slug"]));
    assert_eq!(ran.code, Some(2), "{ran}");
    assert!(
        ran.stderr
            .contains("is not lowercase words joined by dashes"),
        "{ran}"
    );
    assert!(
        !root.join("solutions").exists() && !root.join("exercises").exists(),
        "a refused new-stage writes nothing"
    );
}

#[test]
fn verify_calls_a_hang_a_hang_and_a_compile_error_a_compile_error() {
    let state = scratch("verify-kinds");
    let ran = run(workbook(&fixture("workbook"), &state).args(["verify", "--timeout", "3"]));
    assert_eq!(ran.code, Some(1), "{ran}");
    assert!(ran.says("hangs: still running after 3 s"), "{ran}");
    assert!(ran.says("does not compile (fx-broken-exercise)"), "{ran}");
    assert!(
        ran.says(
            "untouched exercise fx-fail-exercise fails for the intended reason: 2 of 3 tests fail"
        ),
        "{ran}"
    );
    assert!(
        ran.says("passes every test"),
        "stage 1's exercise already passes: {ran}"
    );
}

#[test]
fn doctor_says_which_server_and_starts_it() {
    let state = scratch("doctor");
    let ran = run(workbook(&fixture("workbook"), &state).arg("doctor"));
    assert_eq!(ran.code, Some(0), "{ran}");
    assert!(ran.says("→ The tests will use"), "{ran}");
    assert!(ran.says("2. Container engine"), "{ran}");
    assert!(
        ran.says("3. Local binaries") || ran.says("3. local binaries"),
        "{ran}"
    );
    assert!(ran.says("max_connections = "), "{ran}");
}

#[test]
fn runs_at_once_each_count_in_progress() {
    let state = scratch("at-once");
    let root = fixture("workbook");
    // Built once first, so that the three runs overlap in their tests, not in cargo.
    assert_eq!(
        stage(&root, &state, &["1"]).code,
        Some(0),
        "stage 1 of the fixture passes its tests and should exit 0 (the build before the runs at once)"
    );
    let children: Vec<Child> = (0..3)
        .map(|_| {
            workbook(&root, &state)
                .args(["stage", "1"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the runner starts")
        })
        .collect();
    for child in children {
        let out = wait_bounded(child, Duration::from_secs(120));
        assert!(out.status.success(), "{out:?}");
    }
    let progress = read_json(&state.join("progress.json"));
    assert_eq!(
        progress["stages"]["1"]["runs"], 4,
        "1 run, then 3 at once: {progress}"
    );
    let runs = std::fs::read_dir(state.join("runs"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(runs, 0, "no run leaves its observations file behind");
}

#[test]
fn unreadable_state_is_named_with_the_way_out_before_the_tests_run() {
    let state = scratch("unreadable");
    std::fs::create_dir_all(&state).expect("the state directory is created");
    std::fs::write(state.join("progress.json"), b"\xff\xfe not UTF-8").expect("written");
    let ran = stage(&fixture("workbook"), &state, &["1"]);
    assert_eq!(ran.code, Some(2), "{ran}");
    assert!(
        ran.stderr
            .contains("progress.json cannot be read (not UTF-8"),
        "{ran}"
    );
    assert!(ran.stderr.contains("delete it to start afresh"), "{ran}");
    assert!(!ran.says("Tests"), "nothing ran: {ran}");
}

#[test]
fn an_unknown_stage_is_a_clear_error() {
    let state = scratch("unknown");
    let ran = stage(&fixture("workbook"), &state, &["9"]);
    assert_eq!(ran.code, Some(2), "{ran}");
    assert!(ran.stderr.contains("there is no stage 9"), "{ran}");
    assert!(ran.stderr.contains("has stages 1 to 4"), "{ran}");
}

#[test]
fn probe_needs_no_workbook_and_says_in_one_line_that_nothing_listens() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    // Run from a directory that is no workbook: the probe works on any server.
    let nowhere = scratch("probe-nowhere");
    let ran =
        run(workbook(&nowhere, &nowhere).args(["probe", &format!("http://127.0.0.1:{port}")]));
    assert_eq!(ran.code, Some(2), "{ran}");
    assert_eq!(ran.stderr.lines().count(), 1, "{ran}");
    assert!(
        ran.stderr.starts_with(&format!(
            "error: probe: nothing answers at 127.0.0.1:{port}"
        )),
        "{ran}"
    );
}
