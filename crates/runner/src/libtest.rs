//! Reading libtest's plain (stable) output: `test NAME ... ok|FAILED|ignored`
//! lines, and the `---- NAME stdout ----` sections that hold the panic messages.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    Ignored,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// In the order libtest reported them.
    pub results: Vec<(String, Status)>,
    /// The captured output of each failed test.
    pub sections: BTreeMap<String, String>,
    /// libtest's closing line, e.g. "test result: FAILED. 0 passed; 13 failed; ...".
    pub summary: Option<String>,
}

impl Report {
    pub fn status(&self, name: &str) -> Option<Status> {
        self.results
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }
}

pub fn parse(stdout: &str) -> Report {
    let mut report = Report::default();
    let mut section: Option<(String, Vec<&str>)> = None;
    for line in stdout.lines() {
        if let Some(name) = section_start(line) {
            if let Some((done, lines)) = section.take() {
                report.sections.insert(done, lines.join("\n"));
            }
            section = Some((name.to_owned(), Vec::new()));
            continue;
        }
        if line == "failures:" || line.starts_with("test result: ") {
            if let Some((done, lines)) = section.take() {
                report.sections.insert(done, lines.join("\n"));
            }
            if line.starts_with("test result: ") {
                report.summary = Some(line.to_owned());
            }
            continue;
        }
        if let Some((_, lines)) = section.as_mut() {
            lines.push(line);
            continue;
        }
        if let Some((name, status)) = result_line(line) {
            report.results.push((name.to_owned(), status));
        }
    }
    if let Some((done, lines)) = section.take() {
        report.sections.insert(done, lines.join("\n"));
    }
    report
}

fn section_start(line: &str) -> Option<&str> {
    line.strip_prefix("---- ")?.strip_suffix(" stdout ----")
}

fn result_line(line: &str) -> Option<(&str, Status)> {
    let rest = line.strip_prefix("test ")?;
    let (name, outcome) = rest.rsplit_once(" ... ")?;
    let status = match outcome {
        "ok" => Status::Passed,
        "FAILED" => Status::Failed,
        o if o.starts_with("ignored") => Status::Ignored,
        _ => return None,
    };
    Some((name, status))
}

/// Names from `--list --format terse`: "name: test" lines.
pub fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect()
}

/// The learner-facing part of a failed test's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Failure {
    /// The first panic's message, without libtest's and the backtrace's noise.
    pub message: String,
    /// Where it panicked, when that is not the shared test file.
    pub location: Option<String>,
    /// What the test printed itself (outside panic messages).
    pub printed: String,
}

pub fn failure(section: &str) -> Failure {
    let mut messages: Vec<(String, Vec<&str>)> = Vec::new();
    let mut printed: Vec<&str> = Vec::new();
    let mut in_panic = false;
    let mut in_backtrace = false;
    for line in section.lines() {
        if let Some(location) = panic_start(line) {
            messages.push((location, Vec::new()));
            in_panic = true;
            in_backtrace = false;
            continue;
        }
        if line.starts_with("note: run with `RUST_BACKTRACE")
            || line.starts_with("note: Some details are omitted")
        {
            in_panic = false;
            continue;
        }
        if line == "stack backtrace:" {
            in_backtrace = true;
            in_panic = false;
            continue;
        }
        if in_backtrace {
            let t = line.trim_start();
            if t.starts_with("at ")
                || t.split_once(':')
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            {
                continue;
            }
            in_backtrace = false;
        }
        if in_panic {
            if let Some((_, lines)) = messages.last_mut() {
                lines.push(line);
            }
        } else {
            printed.push(line);
        }
    }
    let Some((location, lines)) = messages.into_iter().next() else {
        return Failure {
            message: trim_lines(&printed),
            location: None,
            printed: String::new(),
        };
    };
    let shared_test_file = location.starts_with("tests/") || location.contains("/tests/");
    Failure {
        message: trim_lines(&lines),
        location: (!shared_test_file).then_some(location),
        printed: trim_lines(&printed),
    }
}

/// "thread 'name' panicked at src/lib.rs:3:5:" (Rust 1.73 and later), or
/// "thread 'name' (1234) panicked at ..." (with the thread's id, Rust 1.89 and later).
fn panic_start(line: &str) -> Option<String> {
    let rest = line.strip_prefix("thread '")?;
    let (_, location) = rest.rsplit_once(" panicked at ")?;
    Some(normalize(location.strip_suffix(':').unwrap_or(location)))
}

/// `exercises/stage1/../../tests/x.rs` as `tests/x.rs`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            "." => {}
            other => parts.push(other),
        }
    }
    parts.join("/")
}

fn trim_lines(lines: &[&str]) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    match (start, end) {
        (Some(s), Some(e)) => lines[s..=e]
            .iter()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "
running 3 tests
test a_key_can_be_reserved ... FAILED
test payments_has_the_column::case_1_id ... ok
test slow ... ignored, needs a server
test weird name ... with dots ... FAILED

failures:

---- a_key_can_be_reserved stdout ----
printed by the test
+----+
thread 'a_key_can_be_reserved' (31584) panicked at exercises/stage1/../../tests/stage1_tables.rs:30:5:
There is no table `payments` yet. Write `CREATE TABLE payments (...)`
in exercises/x.sql
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

---- weird name ... with dots stdout ----
thread 'tokio-runtime-worker' panicked at exercises/stage2/./src/lib.rs:12:9:
called `Result::unwrap()` on an `Err` value: PoolTimedOut
stack backtrace:
   0: rust_begin_unwind
             at /rustc/abc/library/std/src/panicking.rs:665:5
   1: core::panicking::panic_fmt
thread 'weird name ... with dots' panicked at tests/x.rs:1:1:
second

failures:
    a_key_can_be_reserved
    weird name ... with dots

test result: FAILED. 1 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.51s
";

    #[test]
    fn results_sections_and_summary_are_read() {
        let report = parse(OUTPUT);
        assert_eq!(
            report.results,
            [
                ("a_key_can_be_reserved".to_owned(), Status::Failed),
                (
                    "payments_has_the_column::case_1_id".to_owned(),
                    Status::Passed
                ),
                ("slow".to_owned(), Status::Ignored),
                ("weird name ... with dots".to_owned(), Status::Failed),
            ]
        );
        assert_eq!(report.sections.len(), 2);
        assert!(
            report
                .summary
                .as_deref()
                .is_some_and(|s| s.contains("2 failed"))
        );
    }

    #[test]
    fn the_panic_message_is_kept_and_the_noise_dropped() {
        let report = parse(OUTPUT);
        let first = failure(&report.sections["a_key_can_be_reserved"]);
        assert_eq!(
            first.message,
            "There is no table `payments` yet. Write `CREATE TABLE payments (...)`\nin exercises/x.sql"
        );
        assert_eq!(
            first.location, None,
            "the shared test file is not worth showing"
        );
        assert_eq!(first.printed, "printed by the test\n+----+");

        let second = failure(&report.sections["weird name ... with dots"]);
        assert_eq!(
            second.message,
            "called `Result::unwrap()` on an `Err` value: PoolTimedOut"
        );
        assert_eq!(
            second.location.as_deref(),
            Some("exercises/stage2/src/lib.rs:12:9")
        );
        assert!(!second.printed.contains("rust_begin_unwind"), "{second:?}");
    }

    #[test]
    fn the_list_is_read() {
        let list = "a: test\nb::c: test\nbench_x: benchmark\n";
        assert_eq!(parse_list(list), ["a", "b::c"]);
    }
}
