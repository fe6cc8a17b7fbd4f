//! `idempotency-probe URL...`: the probe on its own, for a backend's CI. The
//! same flags and output as `cargo workbook probe`. Exit codes ([`cli::Exit`]): 0
//! when no check failed (warnings too, unless --fail-on-warn), 1 when one did, 2
//! when the probe could not run (bad flags too: clap's), 3 when only warnings
//! failed it (--fail-on-warn).

use std::process::ExitCode;

use clap::Parser;
use probe::cli::{self, ProbeArgs};

#[derive(Debug, Parser)]
#[command(
    name = "idempotency-probe",
    version,
    about = "Check any HTTP API's idempotency from the outside: a burst with one key, replays, \
             changed bodies, bad keys and bodies, lost answers, hangs.",
    after_help = "Exit codes: 0 no check failed (warnings too, unless --fail-on-warn); 1 a check \
                  failed; 2 the probe could not run; 3 only warnings, with --fail-on-warn."
)]
struct Cli {
    #[command(flatten)]
    args: ProbeArgs,
}

fn main() -> ExitCode {
    let Cli { args } = Cli::parse();
    if args.allow_remote {
        eprintln!("warning: {}", cli::REMOTE_WARNING);
    }
    match cli::run(&args, cli::width_from_env()) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            eprintln!("error: probe: {e}");
            ExitCode::from(cli::Exit::CouldNotRun.code())
        }
    }
}
