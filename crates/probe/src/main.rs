//! `idempotency-probe URL...`: the probe on its own, for a backend's CI. The
//! same flags and output as `cargo workbook probe`. Exit codes ([`cli::Exit`]): 0
//! when no check failed (warnings too, unless --fail-on-warn), 1 when one did, 2
//! when the probe could not run (bad flags too: clap's), 3 when only warnings
//! failed it (--fail-on-warn).

use std::process::ExitCode;

use clap::Parser;
use l10n::Lang;
use probe::cli::{self, ProbeArgs};
use probe::words;

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
    /// The language of the report's words: en or pt-BR [default: WORKBOOK_LANG,
    /// then the locale (LC_ALL, LC_MESSAGES, LANG), then en]. The JSON and JUnit
    /// reports' identifiers (check ids, verdict codes, message keys) are the same
    /// in every language.
    #[arg(long, value_name = "LANG")]
    lang: Option<String>,
}

fn main() -> ExitCode {
    let Cli { args, lang } = Cli::parse();
    match Lang::from_environment(lang.as_deref()) {
        Ok((lang, _)) => lang.set_current(),
        Err(unknown) => {
            eprintln!("{}", words::unknown_lang(&unknown.given, unknown.by));
            return ExitCode::from(cli::Exit::CouldNotRun.code());
        }
    }
    if args.allow_remote {
        eprintln!("{}", words::warning_line(&words::remote_warning()));
    }
    match cli::run(&args, cli::width_from_env()) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            eprintln!("{}", words::error_line(&e.to_string()));
            ExitCode::from(cli::Exit::CouldNotRun.code())
        }
    }
}
