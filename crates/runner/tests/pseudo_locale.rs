//! The pseudo-locale check: the workbook's commands, run for real on this
//! workbook under `WORKBOOK_LANG=en-XA`, print no line of prose outside the
//! markers `[!!` `!!]` that every catalogue message carries in that locale
//! (l10n's `pseudo`). A line outside them is a text that does not come from a
//! catalogue: a Brazilian learner would read it in English.
//!
//! One test per case, each a command as a learner runs it. To check more of the
//! workbook, add a case: a failing stage (its untouched exercise), a command, a
//! known-wrong variant run through the runner... `cases` below lists them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The workbook this crate belongs to.
fn workbook_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One command of the workbook, run under the pseudo-locale.
struct Case {
    /// The arguments after `cargo workbook`.
    args: &'static [&'static str],
    /// The exit code the command must end with; `None`: any (e.g. `doctor`,
    /// which says what this machine lacks).
    exit: Option<i32>,
}

/// Every bound of the runner's own is within this; a hung case fails saying so.
const BOUND: Duration = Duration::from_secs(900);

fn check(case: &Case) {
    let state = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("pseudo-locale")
        .join(case.args.join("-"));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).expect("a state directory of this case's own");
    let mut child = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .args(case.args)
        .env("WORKBOOK_LANG", "en-XA")
        .env("WORKBOOK_ROOT", workbook_root())
        .env("WORKBOOK_STATE", &state)
        .env_remove("WORKBOOK_STAGES")
        .env_remove("WORKBOOK_OBSERVATIONS")
        .env("WORKBOOK_KEEP_CONTAINER", "0")
        .env("NO_COLOR", "1")
        // A learner's terminal: messages wrap, so a marker may close on a later line.
        .env("COLUMNS", "100")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the runner starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the runner can be waited for") {
            break status;
        }
        if started.elapsed() > BOUND {
            let _ = child.kill();
            panic!(
                "`cargo workbook {}` did not end within {} s",
                case.args.join(" "),
                BOUND.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = child.wait_with_output().expect("the runner's output");
    let printed = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = status;
    if let Some(exit) = case.exit {
        assert_eq!(
            output.status.code(),
            Some(exit),
            "`cargo workbook {}` ended with {:?}, not {exit}; it printed:\n{printed}",
            case.args.join(" "),
            output.status
        );
    }
    // Each stream apart: a marker cut in one (a line cut to fit) says nothing of
    // the other.
    let unmarked: Vec<_> = [&output.stdout, &output.stderr]
        .into_iter()
        .flat_map(|stream| l10n::pseudo::unmarked_prose(&String::from_utf8_lossy(stream)))
        .collect();
    assert!(
        unmarked.is_empty(),
        "`cargo workbook {}` printed prose that no catalogue says (outside [!! !!]):\n{}\n\n\
         The whole output:\n{printed}",
        case.args.join(" "),
        unmarked
            .iter()
            .map(|u| format!("  line {}: {:?} in {:?}", u.line, u.words, u.text))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn the_help_is_said_by_the_catalogues() {
    check(&Case {
        args: &["--help"],
        exit: Some(0),
    });
    check(&Case {
        args: &["stage", "--help"],
        exit: Some(0),
    });
    check(&Case {
        args: &["help", "review"],
        exit: Some(0),
    });
}

#[test]
fn a_mistyped_command_and_a_bad_value_are_said_by_the_catalogues() {
    check(&Case {
        args: &["stgae", "2"],
        exit: Some(2),
    });
    check(&Case {
        args: &["stage", "two"],
        exit: Some(2),
    });
    check(&Case {
        args: &["stage", "99", "--no-predict"],
        exit: Some(2),
    });
}

#[test]
fn doctor_is_said_by_the_catalogues() {
    check(&Case {
        args: &["doctor"],
        exit: None,
    });
}

/// The untouched exercise of stage 2: its tests fail on the exercise's todo!(),
/// the harness starts a server and says which, the verdict names what to do.
#[test]
fn a_failing_stage_2_is_said_by_the_catalogues() {
    check(&Case {
        args: &["stage", "2", "--no-predict"],
        exit: Some(1),
    });
}

/// Stage 1's untouched exercise: its migration is empty, every test fails
/// with the test file's own messages.
#[test]
fn a_failing_stage_1_is_said_by_the_catalogues() {
    check(&Case {
        args: &["stage", "1", "--no-predict"],
        exit: Some(1),
    });
}

/// Every route of the review, run: the evidence column is the first part of
/// each failing test's message.
#[test]
fn review_evidence_is_said_by_the_catalogues() {
    check(&Case {
        args: &["review", "--evidence"],
        exit: None,
    });
}

/// Stage 3's untouched exercise: its tests fail on the exercise's `todo!()`,
/// said through the runner, with the stage's own messages where a test checks
/// before it calls the exercise.
#[test]
fn a_failing_stage_3_is_said_by_the_catalogues() {
    check(&Case {
        args: &["stage", "3", "--no-predict"],
        exit: Some(1),
    });
}

/// Stage 5's untouched exercise deadlocks the small pool: the deadlock's
/// message, the pool's state while the requests waited, the burst's table and
/// the starved request for another key.
#[test]
fn a_deadlocked_stage_5_is_said_by_the_catalogues() {
    check(&Case {
        args: &["stage", "5", "--no-predict"],
        exit: Some(1),
    });
}

/// Stage 12's untouched exercise: its tests fail on the layer's `todo!()`
/// (through a real server and called directly), the two that need no layer pass
/// and record what the outcome table and the predictions show, and the timeline
/// of a burst whose requests got no HTTP answer.
#[test]
fn a_failing_stage_12_is_said_by_the_catalogues() {
    check(&Case {
        args: &["stage", "12", "--no-predict"],
        exit: Some(1),
    });
}
