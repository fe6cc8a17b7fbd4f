//! The JUnit XML report: one test case per check, as CI systems read test results.
//!
//! There is no JUnit standard; CI systems read the format Ant's and Maven
//! Surefire's reports made common. Its de-facto schema is Jenkins' `junit-10.xsd`
//! (jenkinsci/xunit-plugin, `src/main/resources/org/jenkinsci/plugins/xunit/types/
//! model/xsd/junit-10.xsd`), which GitLab's unit test reports read the same way
//! (`testsuites` > `testsuite` > `testcase`, with `failure`, `error` or
//! `skipped`). `crates/probe/junit.xsd` is that schema restricted to what the
//! probe writes (every attribute it always sets is required), and the tests
//! validate the probe's reports against it.
//!
//! A failed check is a `failure` (its why as the message, its evidence as the
//! text); a skipped one is `skipped`. JUnit has no warning: a warned check passes,
//! its why and evidence in `system-out`, unless warnings fail the run
//! (`--fail-on-warn`), when it is a `failure` of type `warn`. The profile goes into
//! the suite's `properties` (codes) and `system-out` (words). A run that could not
//! run is one test case with an `error`.

use std::fmt::Write;

use crate::error::ProbeError;
use crate::outcome::Verdict;
use crate::profile::Profile;
use crate::results::{CheckResult, Report};
use crate::words::{self, Said};

/// The report of a run; warnings are failures when `warnings_fail`.
pub fn report(report: &Report, warnings_fail: bool) -> String {
    let [_, warn, fail, skipped] = report.counts();
    let failures = fail + if warnings_fail { warn } else { 0 };
    let tests = report.checks.len();
    let time = seconds(report.elapsed);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{suite}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{time}\">",
        suite = words::junit::SUITE,
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{suite}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{time}\">",
        suite = words::junit::SUITE,
    );
    out.push_str("    <properties>\n");
    for (name, value) in properties(report) {
        let _ = writeln!(
            out,
            "      <property name=\"{}\" value=\"{}\"/>",
            escape(&name),
            escape(&value)
        );
    }
    out.push_str("    </properties>\n");
    for check in &report.checks {
        out.push_str(&testcase(check, warnings_fail));
    }
    let profile: Vec<String> = crate::report::profile_rows(report)
        .iter()
        .map(|[question, answer]| format!("{question}: {answer}"))
        .collect();
    let _ = writeln!(
        out,
        "    <system-out>{}</system-out>",
        text(&format!(
            "{}\n{}\n{}",
            report.target(),
            words::profile_title(),
            profile.join("\n")
        ))
    );
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// The report of a run that could not run: one test case, in error.
pub fn error(error: &ProbeError) -> String {
    let suite = words::junit::SUITE;
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"{suite}\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0\">\n  \
         <testsuite name=\"{suite}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n    \
         <testcase name=\"{name}\" classname=\"{suite}\" time=\"0\">\n      \
         <error type=\"{kind}\" message=\"{message}\"/>\n    \
         </testcase>\n  </testsuite>\n</testsuites>\n",
        name = escape(words::junit::COULD_NOT_RUN),
        kind = error.kind(),
        message = escape(&error.to_string()),
    )
}

/// The target and the profile's codes.
fn properties(report: &Report) -> Vec<(String, String)> {
    let Profile {
        in_flight,
        replay_marker,
        concurrent_other_body,
        key_lifetime,
    } = &report.profile;
    let mut properties = vec![
        ("target".to_owned(), report.target()),
        (
            "counted_effects".to_owned(),
            report.counted_effects.to_string(),
        ),
    ];
    for (name, value) in [
        ("in_flight", serde_json::to_value(in_flight)),
        ("replay_marker", serde_json::to_value(replay_marker)),
        (
            "concurrent_other_body",
            serde_json::to_value(concurrent_other_body),
        ),
        ("key_lifetime", serde_json::to_value(key_lifetime)),
    ] {
        let Ok(serde_json::Value::Object(fields)) = value else {
            continue;
        };
        for (field, value) in fields {
            let value = match value {
                serde_json::Value::String(text) => text,
                serde_json::Value::Null => continue,
                other => other.to_string(),
            };
            properties.push((format!("profile.{name}.{field}"), value));
        }
    }
    properties
}

fn testcase(check: &CheckResult, warnings_fail: bool) -> String {
    let suite = words::junit::SUITE;
    let mut out = format!(
        "    <testcase name=\"{}\" classname=\"{suite}\" time=\"{}\"",
        escape(&format!(
            "{}: {}",
            check.id,
            check.id.title_in_lang(l10n::Lang::English)
        )),
        seconds(check.elapsed)
    );
    let why = check.why_text();
    let evidence = lines(&check.evidence);
    let failure = |kind: &str| {
        format!(
            "      <failure type=\"{kind}\" message=\"{}\">{}</failure>\n",
            escape(&why),
            text(&evidence)
        )
    };
    let inner = match check.verdict {
        Verdict::Fail => failure("fail"),
        Verdict::Warn if warnings_fail => failure("warn"),
        Verdict::Warn => format!(
            "      <system-out>{}</system-out>\n",
            text(&format!("{}\n{evidence}", words::junit::warned(&why)))
        ),
        Verdict::Skipped => format!("      <skipped message=\"{}\"/>\n", escape(&why)),
        Verdict::Pass => format!(
            "      <system-out>{}</system-out>\n",
            text(&format!("{why}\n{evidence}"))
        ),
    };
    out.push_str(">\n");
    out.push_str(&inner);
    out.push_str("    </testcase>\n");
    out
}

/// The evidence, one fact a line.
fn lines(said: &[Said]) -> String {
    said.iter()
        .map(|s| format!("- {s}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Seconds with milliseconds, as Surefire writes them: `1.234`.
fn seconds(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// Text fit for an element: markup escaped, and the characters XML 1.0 forbids
/// (control characters a server's body may hold) replaced by U+FFFD.
fn text(text: &str) -> String {
    escape_with(text, false)
}

/// Text fit for an attribute: [`text`]'s, with quotes and line breaks as
/// character references (a parser would fold a literal line break into a space).
pub fn escape(text: &str) -> String {
    escape_with(text, true)
}

fn escape_with(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\r' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_line_breaks_and_control_characters_are_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&</a>\n\u{1}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;&#10;\u{FFFD}"
        );
        assert_eq!(
            text("<b>\"x\"</b>\n\u{1}"),
            "&lt;b&gt;\"x\"&lt;/b&gt;\n\u{FFFD}"
        );
    }

    #[test]
    fn times_are_seconds_with_milliseconds() {
        assert_eq!(seconds(std::time::Duration::from_millis(1234)), "1.234");
        assert_eq!(seconds(std::time::Duration::ZERO), "0.000");
    }
}
