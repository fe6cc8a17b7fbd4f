//! The report for people: a terminal table and Markdown (the machines' reports
//! are [`crate::json`] and [`crate::junit`]). The words are [`crate::words`]'s.

use comfy_table::{ContentArrangement, Table, presets};

use crate::outcome::Verdict;
use crate::results::Report;
use crate::words::{self, profile_headings, table_headings};

/// The profile's rows: the question, and what this API does.
pub fn profile_rows(report: &Report) -> [[String; 2]; 4] {
    let profile = &report.profile;
    [
        [
            words::profile::in_flight_question(),
            words::profile::in_flight(&profile.in_flight),
        ],
        [
            words::profile::replay_marker_question(),
            words::profile::replay_marker(&profile.replay_marker),
        ],
        [
            words::profile::concurrent_other_body_question(),
            words::profile::concurrent_other_body(&profile.concurrent_other_body),
        ],
        [
            words::profile::key_lifetime_question(),
            words::profile::key_lifetime(&profile.key_lifetime),
        ],
    ]
}

/// The report as a table `width` columns wide, the evidence of every check that
/// did not pass (all of it with `all_evidence`) with the burst's timeline under
/// its evidence, the profile, and a summary line.
pub fn table(report: &Report, width: u16, all_evidence: bool) -> String {
    table_with(
        report,
        width,
        &Shown {
            all_evidence,
            ..Shown::default()
        },
    )
}

/// What the table shows besides the verdicts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shown {
    /// The evidence of every check, not only of those that failed or warned.
    pub all_evidence: bool,
    /// The burst's evidence and timeline even when it passed.
    pub timeline: bool,
    /// The summary says warnings fail the run.
    pub warnings_fail: bool,
}

/// The widest a timeline is drawn, whatever the terminal: a picture that reads
/// at a glance (the runner's is drawn the same).
const TIMELINE_WIDTH: usize = 100;

/// [`table`], with what `shown` asks for.
pub fn table_with(report: &Report, width: u16, shown: &Shown) -> String {
    let (all_evidence, warnings_fail) = (shown.all_evidence, shown.warnings_fail);
    let mut table = laid_out(width, table_headings().to_vec());
    for check in &report.checks {
        table.add_row([
            check.id.as_str().to_owned(),
            words::verdict(check.verdict),
            check.why_text(),
        ]);
    }
    let mut out = format!("{}\n{table}\n", report.target());
    for check in &report.checks {
        let timeline = check.timeline.as_ref().filter(|_| shown.timeline);
        let evidence_shown = all_evidence
            || timeline.is_some()
            || matches!(check.verdict, Verdict::Fail | Verdict::Warn);
        if evidence_shown && !check.evidence.is_empty() {
            out.push_str(&format!(
                "\n{} ({}):\n",
                check.id,
                words::verdict(check.verdict)
            ));
            for line in &check.evidence {
                out.push_str(&format!("  - {line}\n"));
            }
            if let Some(trace) = &check.timeline {
                out.push('\n');
                for line in timeline_lines(trace, width) {
                    out.push_str(&format!("  {line}\n"));
                }
            }
        }
    }
    let mut profile = laid_out(width, profile_headings().to_vec());
    for row in profile_rows(report) {
        profile.add_row(row);
    }
    out.push_str(&format!("\n{}\n{profile}\n", words::profile_title()));
    out.push_str(&format!("\n{}\n", summary(report, warnings_fail)));
    out
}

/// An empty table `width` columns wide under `headings`.
fn laid_out(width: u16, headings: Vec<String>) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(headings);
    table
}

/// One line: how many checks of each verdict, whether effects were counted, how long.
pub fn summary(report: &Report, warnings_fail: bool) -> String {
    words::summary(
        report.counts(),
        report.elapsed,
        report.counted_effects,
        warnings_fail,
    )
}

/// The report as Markdown tables (the checks, then the profile), for a page.
pub fn markdown(report: &Report) -> String {
    let [check, verdict, why] = table_headings();
    let mut out = format!("| {check} | {verdict} | {why} |\n|---|---|---|\n");
    let cell = |text: &str| text.replace('|', "\\|");
    for c in &report.checks {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            c.id,
            words::verdict(c.verdict),
            cell(&c.why_text())
        ));
    }
    let [question, answer] = profile_headings();
    out.push_str(&format!("\n| {question} | {answer} |\n|---|---|\n"));
    for [question, answer] in profile_rows(report) {
        out.push_str(&format!("| {} | {} |\n", cell(&question), cell(&answer)));
    }
    out
}

/// The burst's timeline from the client's side, lines at most `width` - 2
/// columns wide (they are indented under the check), in the run's language.
pub fn timeline_lines(trace: &timeline::Trace, width: u16) -> Vec<String> {
    let words = timeline::Words::said_in(l10n::Lang::current());
    let options = timeline::terminal::Options {
        width: usize::from(width).min(TIMELINE_WIDTH) - 2,
        colour: false,
        max_lines: 20,
    };
    timeline::terminal::draw(trace, &words, &options)
}
