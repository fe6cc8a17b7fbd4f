//! `workbook`: the learner's runner. `just stage N` (or `cargo workbook stage N`)
//! asks for predictions, runs stage N's tests against the learner's exercise,
//! and shows what really happened beside what was predicted.

mod ahead;
mod cargo;
// Shared with the launcher, which starts cargo from a process cargo started too.
#[path = "../../launcher/src/cargo_env.rs"]
mod cargo_env;
mod commands;
mod environment;
mod error;
mod exercise_files;
mod judgement;
mod libtest;
mod lines;
mod manifests;
mod messages;
mod observations;
mod render;
mod review;
mod run;
mod server;
mod stages;
mod state;
mod supervise;
mod timelines;
mod twins;
mod ui;
mod workbook;

// The launcher's code (crates/launcher, outside the workspace so that cargo
// starts it without resolving the workspace): tested, linted and formatted here.
#[cfg(test)]
#[allow(dead_code)] // its entry point is the launcher's `main`
#[path = "../../launcher/src/launch.rs"]
mod launch;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use l10n::{Lang, Localiser, t};

use crate::commands::stage::StageOptions;
use crate::error::Error;
use crate::workbook::{Locations, Workbook};

#[derive(Debug, Parser)]
#[command(
    name = "workbook",
    version,
    about = "The Idempotency Workbook's runner: predict, run a stage's tests, compare.",
    after_help = "Start with `cargo workbook stage 1` (or `just stage 1`, with just installed)."
)]
struct Cli {
    /// The workbook's root (where stages.toml and the workspace's Cargo.toml are).
    #[arg(long, global = true, env = "WORKBOOK_ROOT", value_name = "DIR")]
    root: Option<PathBuf>,
    /// The stages file [default: ROOT/stages.toml].
    #[arg(long, global = true, env = "WORKBOOK_STAGES", value_name = "FILE")]
    stages: Option<PathBuf>,
    /// Where answers, hints and progress are kept [default: ROOT/.workbook].
    #[arg(long, global = true, env = "WORKBOOK_STATE", value_name = "DIR")]
    state: Option<PathBuf>,
    /// The language to speak: en or pt-BR [default: WORKBOOK_LANG, then the
    /// locale (LC_ALL, LC_MESSAGES, LANG), then en].
    #[arg(long, global = true, value_name = "LANG")]
    lang: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Predict, then run stage N's tests against your exercise.
    Stage(StageArgs),
    /// Show stage N's next hint (one more each time).
    Hint { number: u32 },
    /// Rerun stage N on every save of its exercise; keys: h hint, n next stage, r rerun, q quit.
    Watch(StageArgs),
    /// Stages done, predictions right or wrong, hints used.
    Progress,
    /// Show again the timeline of a stage's last run: who waited on whom in the
    /// burst that decided it (or in another test's burst).
    Timeline {
        /// The stage [default: the stage run last].
        number: Option<u32>,
        /// The last burst of this test instead (its name, or the end of it).
        #[arg(long, value_name = "NAME")]
        test: Option<String>,
        /// List the run's bursts, by test.
        #[arg(long)]
        list: bool,
    },
    /// Restore stage N's files as committed and forget its answers and hints.
    Reset {
        number: u32,
        /// Do not ask for a confirmation.
        #[arg(long, short)]
        yes: bool,
    },
    /// Show stage N's model answer (asks first unless the stage is done).
    Solution {
        number: u32,
        #[arg(long, short)]
        yes: bool,
    },
    /// Which PostgreSQL the tests will use and why; what is missing and the fix.
    Doctor,
    /// Remove the PostgreSQL container kept between runs (`idempotency-workbook-pg`).
    DbStop,
    /// The capstone: review routes against the checklist, then let their tests
    /// grade the review.
    Review {
        /// Only this route (A, B, ...).
        #[arg(long, value_name = "NAME")]
        route: Option<String>,
        /// Forget the earlier reviews of these routes and review them again.
        #[arg(long)]
        again: bool,
        /// Ask nothing: run every route and show what its tests find broken (what
        /// CI prints).
        #[arg(long)]
        evidence: bool,
        #[arg(long, default_value_t = 300, value_name = "SECS")]
        timeout: u64,
    },
    /// What CI runs: every stage's solution, exercise, known-wrong variants and
    /// answer keys, then cargo fmt and clippy.
    Verify {
        /// Only these stages' checks (with the metadata, the build and the lints;
        /// without the review's); repeat it for more than one stage.
        #[arg(long, value_name = "N")]
        stage: Vec<u32>,
        /// The bound of each test run, in seconds.
        #[arg(long, default_value_t = 300, value_name = "SECS")]
        timeout: u64,
        /// Only build every package's tests, as verify does first, and check
        /// nothing: CI builds them while plain `cargo test` runs its tests.
        #[arg(long)]
        build_only: bool,
    },
    /// Whether every verdict of verify is certain: runs every solution's tests and
    /// every known-wrong package N times and counts failures and escapes.
    Flaky {
        /// How many times to run each.
        #[arg(default_value_t = 50)]
        runs: u32,
        /// Only this stage.
        #[arg(long, value_name = "N")]
        stage: Option<u32>,
        /// The bound of each test run, in seconds.
        #[arg(long, default_value_t = 300, value_name = "SECS")]
        timeout: u64,
    },
    /// Check any HTTP API's idempotency from the outside: a burst with one key,
    /// replays, changed bodies, bad keys and bodies, lost answers, hangs. Several
    /// URLs: instances of one API, each burst spread across them.
    Probe(Box<commands::probe::ProbeArgs>),
    /// A maintainer's: write a new stage (its crates, test file, pages and entries);
    /// `verify --stage N` and the book's checks then name what is left to write.
    #[command(hide = true)]
    NewStage {
        number: u32,
        /// Its short name: lowercase words joined by dashes.
        slug: String,
        /// Its title [default: the slug in words].
        #[arg(long)]
        title: Option<String>,
    },
    /// A maintainer's: write every exercise's Cargo.toml from its solution's.
    #[command(hide = true)]
    Manifests,
    /// Serve an HTTP stage's POST /payments on 127.0.0.1 (your exercise;
    /// --solution for the model answer) on the harness's PostgreSQL, until Ctrl-C.
    Api {
        /// The HTTP stage whose API to serve.
        #[arg(long, default_value_t = 6, value_name = "N")]
        stage: u32,
        /// Serve the model answer instead of your exercise.
        #[arg(long)]
        solution: bool,
        /// The first instance's port; 0 takes free ports (printed).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// How many instances, on consecutive ports, each a process of its own
        /// over one database.
        #[arg(long, default_value_t = 1, value_name = "K", value_parser = clap::value_parser!(u16).range(1..=16))]
        instances: u16,
    },
}

/// What `stage` and `watch` both take: one flag for one idea.
#[derive(Debug, clap::Args)]
struct StageArgs {
    number: u32,
    /// Do not ask the prediction questions.
    #[arg(long)]
    no_predict: bool,
    /// Stop the tests after this many seconds, and call it a hang.
    #[arg(long, default_value_t = 300, value_name = "SECS")]
    timeout: u64,
}

impl StageArgs {
    fn options(&self) -> StageOptions {
        StageOptions::new(self.no_predict, Duration::from_secs(self.timeout))
    }
}

fn main() -> ExitCode {
    // The language first: `--help` and a mistyped argument are said in it too.
    let args: Vec<OsString> = std::env::args_os().collect();
    let lang = match Lang::from_environment(l10n::cli::lang_flag(&args).as_deref()) {
        Ok((lang, _)) => lang,
        Err(unknown) => {
            // Said in the language the environment asks for, the flag aside.
            let lang = Lang::from_environment(None).map_or(Lang::English, |(lang, _)| lang);
            let l = messages::localiser(lang);
            eprintln!(
                "{} {}",
                ui::bad(&t!(l, "error-label")),
                Error::Lang(unknown).said(&l)
            );
            return ExitCode::from(2);
        }
    };
    // This process's language (the harness's and provisioning's words in it), and
    // every process it starts is told the same (`WORKBOOK_LANG`).
    lang.set_current();
    let l10n = messages::localiser(lang);
    let cli = match parse(&args, &l10n) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // A prompt hides the cursor; Ctrl-C (which the prompt turns into SIGINT) must
    // not leave the terminal without one. The children (cargo, the tests) get the
    // same SIGINT from the terminal and stop; the harness's servers clean up after
    // themselves when their test process goes.
    let _ = ctrlc::set_handler(|| {
        let _ = console::Term::stderr().show_cursor();
        ui::restore_terminal();
        eprintln!();
        std::process::exit(130);
    });
    match run(cli, &l10n) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(Error::Interrupted) => {
            eprintln!();
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("{} {}", ui::bad(&t!(l10n, "error-label")), e.said(&l10n));
            ExitCode::from(2)
        }
    }
}

/// The command said by `l`: `cli-*` in runner.ftl, and `probe`'s arguments from
/// the probe's catalogue, as `idempotency-probe --help` says them.
fn command(l: &Localiser) -> clap::Command {
    let command =
        Cli::command().mut_subcommand("probe", |probe| probe::cli::said_args(probe, l.lang()));
    l10n::cli::localise(command, l, "cli").mut_subcommand("probe", |probe| {
        probe::cli::with_placeholders(probe, l.lang())
    })
}

/// The arguments, parsed by the command said in the learner's language: its
/// help, usage and errors (`cli-*` in runner.ftl, clap's words in the l10n
/// crate's). `Err` is the exit code when there is nothing to run (help shown, an
/// error said).
fn parse(args: &[OsString], l: &Localiser) -> Result<Cli, ExitCode> {
    let mut command = command(l);
    let said = |error: clap::Error| {
        match error.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let _ = error.print();
            }
            _ => eprint!("{}", l10n::cli::error_message(&error, l.lang())),
        }
        ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
    };
    let matches = command.clone().try_get_matches_from(args).map_err(said)?;
    if let Some(help) = l10n::cli::help_asked(&mut command, &matches) {
        print!("{help}");
        return Err(ExitCode::SUCCESS);
    }
    Cli::from_arg_matches(&matches).map_err(said)
}

fn run(cli: Cli, l10n: &Localiser) -> Result<bool, Error> {
    // The probe needs no workbook: it can be run against any server, from anywhere.
    if let Command::Probe(args) = &cli.command {
        return commands::probe::run(args);
    }
    // The commands that run tests start the server first, before reading the
    // workbook: its copy and start are what the first test run waits for.
    if let Command::Stage(_) | Command::Watch(_) | Command::Review { .. } = &cli.command {
        server::start_early();
    }
    let wb = Workbook::open(
        &Locations {
            root: cli.root,
            stages: cli.stages,
            state: cli.state,
        },
        l10n.clone(),
    )?;
    match cli.command {
        Command::Stage(args) => commands::stage::run(&wb, args.number, args.options()),
        Command::Hint { number } => commands::hint(&wb, number, None).map(|()| true),
        Command::Watch(args) => {
            commands::watch::run(&wb, args.number, args.options()).map(|()| true)
        }
        Command::Progress => commands::progress(&wb).map(|()| true),
        Command::Timeline { number, test, list } => {
            commands::timeline::run(&wb, number, test.as_deref(), list)
        }
        Command::Reset { number, yes } => commands::reset(&wb, number, yes).map(|()| true),
        Command::Solution { number, yes } => commands::solution(&wb, number, yes).map(|()| true),
        Command::Doctor => commands::doctor::run(&wb),
        Command::DbStop => commands::doctor::db_stop(l10n),
        Command::Review {
            route,
            again,
            evidence,
            timeout,
        } => commands::review::run(
            &wb,
            &commands::review::ReviewOptions {
                route,
                again,
                evidence_only: evidence,
                timeout: Duration::from_secs(timeout),
            },
        ),
        Command::Verify {
            build_only: true, ..
        } => commands::verify::build_only(&wb),
        Command::Verify { stage, timeout, .. } => {
            commands::verify::run(&wb, &stage, Duration::from_secs(timeout))
        }
        Command::Flaky {
            runs,
            stage,
            timeout,
        } => commands::flaky::run(
            &wb,
            &commands::flaky::FlakyOptions {
                runs,
                stage,
                timeout: Duration::from_secs(timeout),
            },
        ),
        Command::Probe(args) => commands::probe::run(&args),
        Command::NewStage {
            number,
            slug,
            title,
        } => commands::new_stage::run(
            &wb,
            &commands::new_stage::NewStage::new(number, &slug, title.as_deref()),
        ),
        Command::Manifests => commands::manifests::run(&wb),
        Command::Api {
            stage,
            solution,
            port,
            instances,
        } => commands::api::run(
            &wb,
            commands::api::ApiOptions {
                stage,
                solution,
                port,
                instances,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe's own arguments are the probe's (issue 41's reports first): only
    /// its line in this command's list is the runner's.
    fn is_the_probes_own(id: &str) -> bool {
        id.starts_with("cli-probe-") && id != "cli-probe-about"
    }

    #[test]
    fn every_command_and_argument_has_its_help_in_both_languages() {
        for lang in [Lang::English, Lang::BrazilianPortuguese] {
            let missing = l10n::cli::missing(
                &Cli::command(),
                &messages::localiser(lang),
                "cli",
                &["probe"],
            );
            assert!(
                missing.is_empty(),
                "locales/{}/runner.ftl lacks the help of {missing:?}: add them (cli-COMMAND-ARG, \
                 or cli-arg-ARG for an argument several commands share)",
                lang.tag()
            );
        }
    }

    /// One text, two places: the doc comments say the English for readers of this
    /// file, runner.ftl says it on screen. They must not drift apart.
    #[test]
    fn the_english_help_on_screen_is_the_doc_comments_of_this_file() {
        let en = messages::english();
        let normal = |text: &str| {
            text.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .trim_end_matches('.')
                .to_owned()
        };
        let mut differ = Vec::new();
        let mut compare = |id: String, doc: Option<&clap::builder::StyledStr>| {
            if let (Some(doc), Some(said)) = (doc, en.try_say(&id))
                && normal(&doc.to_string()) != normal(&said)
            {
                differ.push(format!("{id}: main.rs says {doc:?}, runner.ftl {said:?}"));
            }
        };
        let cli = Cli::command();
        compare("cli-about".into(), cli.get_about());
        compare("cli-after-help".into(), cli.get_after_help());
        for arg in cli.get_arguments() {
            compare(format!("cli-arg-{}", arg.get_id()), arg.get_help());
        }
        for sub in cli.get_subcommands() {
            let name = sub.get_name();
            compare(format!("cli-{name}-about"), sub.get_about());
            for arg in sub.get_arguments() {
                let id = format!("cli-{name}-{}", arg.get_id());
                if is_the_probes_own(&id) {
                    continue;
                }
                let id = if en.has(&id) {
                    id
                } else {
                    format!("cli-arg-{}", arg.get_id())
                };
                compare(id, arg.get_help());
            }
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }

    #[test]
    fn the_help_is_portuguese_when_asked_in_portuguese() {
        let l = messages::localiser(Lang::BrazilianPortuguese);
        let mut command = l10n::cli::localise(Cli::command(), &l, "cli");
        let help = command.render_help().to_string();
        for said in [
            "Uso: workbook [OPÇÕES] <COMANDO>",
            "Comandos:",
            "Opções:",
            "Mostra a ajuda",
        ] {
            assert!(help.contains(said), "the help lacks {said:?}:\n{help}");
        }
        let error = parse(&["workbook", "stage", "two"].map(OsString::from), &l);
        assert!(error.is_err(), "`stage two` was accepted");
    }

    /// `cargo workbook probe --help`: the probe's arguments said from its own
    /// catalogue, in the language the runner speaks (it sets it before parsing).
    #[test]
    fn the_probes_arguments_are_portuguese_when_asked_in_portuguese() {
        let mut command = command(&messages::localiser(Lang::BrazilianPortuguese));
        command.build();
        let help = command
            .find_subcommand_mut("probe")
            .expect("the probe command")
            .render_long_help()
            .to_string();
        for said in [
            "O servidor, por exemplo http://127.0.0.1:8080",
            "--key-header <NOME>",
            "O corpo JSON; {n} vira um número novo em cada cenário",
            "Valores possíveis:",
            "Opções:",
        ] {
            assert!(help.contains(said), "the help lacks {said:?}:\n{help}");
        }
        for english in ["The server", "[default", "Possible values", "Options:"] {
            assert!(
                !help.contains(english),
                "the probe's help says {english:?}:\n{help}"
            );
        }
    }
}
