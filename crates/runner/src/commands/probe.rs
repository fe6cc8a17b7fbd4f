//! `workbook probe URL...`: the probe's command line (flags, checks and output
//! are crates/probe's, shared with `idempotency-probe`).

use crate::error::Error;
use crate::ui;

pub use probe::cli::ProbeArgs;

/// Runs the probe and prints its report; true when no check failed.
pub fn run(args: &ProbeArgs) -> Result<bool, Error> {
    if args.allow_remote {
        eprintln!("{}", ui::warn(probe::cli::REMOTE_WARNING));
    }
    probe::cli::run(args, ui::width()).map_err(|e| Error::Probe(e.to_string()))
}
