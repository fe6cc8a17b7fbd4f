//! `idempotency-probe URL...`: the probe on its own, for a backend's CI. The
//! same flags and output as `cargo workbook probe`. Exit codes ([`cli::Exit`]): 0
//! when no check failed (warnings too, unless --fail-on-warn), 1 when one did, 2
//! when the probe could not run (bad flags too: clap's), 3 when only warnings
//! failed it (--fail-on-warn).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser};
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
    // The language first, before clap parses: `--help` and a mistyped argument
    // are said in it too.
    let argv: Vec<OsString> = std::env::args_os().collect();
    match Lang::from_environment(l10n::cli::lang_flag(&argv).as_deref()) {
        Ok((lang, _)) => lang.set_current(),
        Err(unknown) => {
            eprintln!("{}", words::unknown_lang(&unknown.given, unknown.by));
            return ExitCode::from(cli::Exit::CouldNotRun.code());
        }
    }
    let Cli { args, .. } = match parse(&argv) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if args.allow_remote {
        eprintln!("{}", words::warning_line(&words::remote_warning()));
    }
    match cli::run(&args, cli::width_from_env()) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            eprintln!("{}", words::error_line(&words::probe_error(&e)));
            // A burst that got no answer at all: how each request ended says why.
            if let Some(trace) = e.timeline() {
                eprintln!();
                for line in probe::timeline_lines(trace, cli::width_from_env()) {
                    eprintln!("  {line}");
                }
            }
            ExitCode::from(cli::Exit::CouldNotRun.code())
        }
    }
}

/// The arguments, parsed by the command said in the run's language
/// ([`cli::localise`]). `Err` is the exit code when there is nothing to run:
/// the help or the version shown (0), or clap's error said (2: bad usage).
fn parse(argv: &[OsString]) -> Result<Cli, ExitCode> {
    let said = |error: clap::Error| {
        match error.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let _ = error.print();
            }
            _ => eprint!("{}", l10n::cli::error_message(&error, Lang::current())),
        }
        ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
    };
    let matches = cli::localise(Cli::command())
        .try_get_matches_from(argv)
        .map_err(said)?;
    Cli::from_arg_matches(&matches).map_err(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_argument_has_its_help_in_both_languages() {
        for lang in [Lang::English, Lang::BrazilianPortuguese] {
            let missing = l10n::cli::missing(
                &Cli::command(),
                words::catalogue().in_lang(lang),
                "cli",
                &[],
            );
            assert!(
                missing.is_empty(),
                "locales/{}/probe.ftl lacks the help of {missing:?}: add them (cli-arg-ARG, \
                 cli-value-NAME)",
                lang.tag()
            );
        }
    }

    /// One text, two places: the doc comments say the English for readers of the
    /// code, probe.ftl says it on screen. They must not drift apart.
    #[test]
    fn the_english_help_on_screen_is_the_doc_comments() {
        let en = words::catalogue().in_lang(Lang::English);
        let normal = |text: &str| {
            text.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .trim_end_matches('.')
                .to_owned()
        };
        let mut differ = Vec::new();
        let mut compare = |id: String, doc: Option<String>| {
            if let (Some(doc), Some(said)) = (doc, en.try_say(&id)) {
                // The body's placeholder is an argument of the catalogue's text.
                let said = said.replace("{$placeholder}", "{n}");
                if normal(&doc) != normal(&said) {
                    differ.push(format!("{id}: the code says {doc:?}, probe.ftl {said:?}"));
                }
            }
        };
        let cli = Cli::command();
        compare("cli-about".into(), cli.get_about().map(ToString::to_string));
        compare(
            "cli-after-help".into(),
            cli.get_after_help().map(ToString::to_string),
        );
        for arg in cli.get_arguments() {
            compare(
                format!("cli-arg-{}", arg.get_id()),
                arg.get_help().map(ToString::to_string),
            );
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }
}
