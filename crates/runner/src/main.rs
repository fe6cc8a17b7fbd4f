//! `workbook`: the learner's runner. `just stage N` (or `cargo workbook stage N`)
//! asks for predictions, runs stage N's tests against the learner's exercise,
//! and shows what really happened beside what was predicted.

mod cargo;
mod commands;
mod environment;
mod error;
mod exercise_files;
mod judgement;
mod l10n;
mod libtest;
mod lines;
mod manifests;
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

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

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
    let cli = Cli::parse();
    let l10n = match l10n::Lang::from_environment(cli.lang.as_deref()) {
        Ok((lang, _)) => l10n::Localiser::new(lang),
        Err(unknown) => {
            eprintln!("{} {unknown}", ui::bad("error:"));
            return ExitCode::from(2);
        }
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

fn run(cli: Cli, l10n: &l10n::Localiser) -> Result<bool, Error> {
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
        Command::Verify { stage, timeout } => {
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
