//! `workbook probe URL...`: the probe's command line (flags, checks and output
//! are crates/probe's, shared with `idempotency-probe`).

use crate::error::Error;
use crate::ui;

pub use probe::cli::ProbeArgs;

/// Runs the probe and writes its reports; true when it passed (no check failed,
/// and no warning when --fail-on-warn: `idempotency-probe`'s exit code 0).
pub fn run(args: &ProbeArgs) -> Result<bool, Error> {
    if args.allow_remote {
        eprintln!("{}", ui::warn(&probe::cli::remote_warning()));
    }
    probe::cli::run(args, ui::width())
        .map(|exit| exit == probe::cli::Exit::Passed)
        // In the learner's language, as `idempotency-probe` says it (its
        // Display is the English one, for logs and the JSON report).
        .map_err(|e| Error::Probe(said(&e)))
}

/// What stopped the probe, and the timeline of the burst that did, when one did.
fn said(error: &probe::ProbeError) -> String {
    let mut said = probe::words::probe_error(error);
    if let Some(trace) = error.timeline() {
        said.push('\n');
        for line in probe::timeline_lines(trace, ui::width()) {
            said.push_str(&format!("\n  {line}"));
        }
    }
    said
}
