//! The report as a terminal table and as Markdown (JSON is `serde_json` of [`Report`]).

use comfy_table::{ContentArrangement, Table, presets};

use crate::{Report, Verdict};

/// The report as a table `width` columns wide, then the evidence of every check
/// that did not pass (all of it with `all_evidence`).
pub fn table(report: &Report, width: u16, all_evidence: bool) -> String {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(["check", "verdict", "why"]);
    for check in &report.checks {
        table.add_row([
            check.id.as_str().to_owned(),
            check.verdict.as_str().to_owned(),
            check.why.clone(),
        ]);
    }
    let mut out = format!("{}\n{table}\n", report.target);
    for check in &report.checks {
        let shown = all_evidence || matches!(check.verdict, Verdict::Fail | Verdict::Warn);
        if shown && !check.evidence.is_empty() {
            out.push_str(&format!("\n{} ({}):\n", check.id, check.verdict.as_str()));
            for line in &check.evidence {
                out.push_str(&format!("  - {line}\n"));
            }
        }
    }
    out.push_str(&summary(report));
    out
}

/// One line: how many checks of each verdict, whether effects were counted, how long.
pub fn summary(report: &Report) -> String {
    let count = |v| report.checks.iter().filter(|c| c.verdict == v).count();
    format!(
        "\n{} passed, {} warned, {} failed, {} skipped in {:.1} s{}\n",
        count(Verdict::Pass),
        count(Verdict::Warn),
        count(Verdict::Fail),
        count(Verdict::Skipped),
        report.elapsed.as_secs_f64(),
        if report.counted_effects {
            "; effects counted in the database"
        } else {
            "; effects not counted (pass --database-url and --count-sql to count them)"
        }
    )
}

/// The report as a Markdown table, for the book.
pub fn markdown(report: &Report) -> String {
    let mut out = String::from("| check | verdict | why |\n|---|---|---|\n");
    for check in &report.checks {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            check.id,
            check.verdict.as_str(),
            check.why.replace('|', "\\|")
        ));
    }
    out
}
