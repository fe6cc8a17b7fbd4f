//! The probe's command line, shared by `idempotency-probe` (src/main.rs) and
//! `workbook probe`: the same flags, defaults (from [`crate::defaults`]), checks
//! (from [`crate::CHECKS`]) and output.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::styling::Style;
use clap::builder::{PossibleValue, StyledStr};

use crate::catalogue::CheckId;
use crate::error::ProbeError;
use crate::options::Options;
use crate::options::defaults;
use crate::outcome::Outcome;
use crate::results::Report;

/// Help text that shows the body's placeholder `{n}` as written. clap turns
/// every `{n}` of a help text into a line break, whatever its source. Set in
/// bold, with the style restated between `{` and `n` (escape sequences that
/// clap strips when it prints without colour), the placeholder escapes it.
/// clap may wrap between the two styled pieces: the placeholder is kept early
/// in short lines (hard line breaks), where no wrap reaches it.
fn with_placeholder(text: &str) -> StyledStr {
    let bold = Style::new().bold();
    let (on, off) = (bold.render(), bold.render_reset());
    let hidden = format!("{on}{{{off}{on}n}}{off}");
    StyledStr::from(text.replace("{n}", &hidden))
}

const BODY_HELP: &str = "The JSON body; {n} becomes a fresh number in each scenario";
const OTHER_BODY_HELP: &str =
    "Another body for the same {n}: what \"same key, another body\" sends";

/// `help`, then its default on a line of its own.
fn with_default(help: &str, default: &str) -> StyledStr {
    with_placeholder(&format!("{help}\n[default: {default}]"))
}

/// The probe's flags, as clap parses them.
#[derive(Debug, Clone, clap::Args)]
pub struct ProbeArgs {
    /// The server, e.g. http://127.0.0.1:8080 (plain HTTP; this machine only
    /// unless --allow-remote). Several URLs: instances of one API over one
    /// database; every burst is spread across them.
    #[arg(required = true, value_name = "URL")]
    pub urls: Vec<String>,
    /// The route that creates, appended to the URL.
    #[arg(long, default_value = defaults::PATH)]
    pub path: String,
    /// The HTTP method of the route that creates.
    #[arg(long, default_value = defaults::METHOD)]
    pub method: String,
    /// The idempotency key's header.
    #[arg(long, default_value = defaults::KEY_HEADER, value_name = "NAME")]
    pub key_header: String,
    #[arg(
        long,
        help = with_placeholder(BODY_HELP),
        long_help = with_default(BODY_HELP, defaults::BODY),
        default_value = defaults::BODY,
        hide_default_value = true,
        value_name = "TEMPLATE"
    )]
    pub body: String,
    #[arg(
        long,
        help = with_placeholder(OTHER_BODY_HELP),
        long_help = with_default(OTHER_BODY_HELP, defaults::OTHER_BODY),
        default_value = defaults::OTHER_BODY,
        hide_default_value = true,
        value_name = "TEMPLATE"
    )]
    pub other_body: String,
    /// JSON pointer to the created resource's id in a 2xx answer.
    #[arg(long, default_value = defaults::ID_POINTER, value_name = "POINTER")]
    pub id_pointer: String,
    /// An extra header for every request, e.g. -H 'Authorization: Bearer t'
    /// (repeatable).
    #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,
    /// Requests in the burst, all with one key.
    #[arg(long, default_value_t = defaults::BURST, value_name = "N")]
    pub burst: usize,
    /// The hang check's bursts, in order.
    #[arg(
        long,
        default_values_t = defaults::HANG_BURSTS,
        value_delimiter = ',',
        value_name = "N,N"
    )]
    pub hang: Vec<usize>,
    /// The bound of every request, in milliseconds.
    #[arg(long, default_value_t = defaults::TIMEOUT_MS, value_name = "MS")]
    pub timeout_ms: u64,
    /// Where to count the effects (PostgreSQL URL); with --count-sql.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// A query returning how many effects exist, e.g. "select count(*) from
    /// payments".
    #[arg(long, value_name = "SQL")]
    pub count_sql: Option<String>,
    /// A check not to run (repeatable).
    #[arg(long, value_name = "CHECK")]
    pub skip: Vec<CheckId>,
    /// Probe a server that is not on this machine (it sends real requests).
    #[arg(long)]
    pub allow_remote: bool,
    /// A report to write: table, markdown, json or junit, to a file after =
    /// (e.g. --report junit=probe.xml) or to standard output (repeatable; the
    /// table goes to standard output unless another report does).
    #[arg(long = "report", value_name = "FORMAT[=FILE]", value_parser = parse_report)]
    pub reports: Vec<ReportTarget>,
    /// A warning fails the run too: exit code 3 when no check failed but one
    /// warned, and warnings are failures in the JUnit report.
    #[arg(long)]
    pub fail_on_warn: bool,
    /// Print the report as JSON (for CI): --report json.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the report as a Markdown table: --report markdown.
    #[arg(long)]
    pub markdown: bool,
    /// Show the evidence of every check, not only of those that failed or
    /// warned.
    #[arg(long, short)]
    pub verbose: bool,
    /// Draw the burst's timeline under its evidence even when it passed (it is
    /// drawn whenever the burst fails or warns, and with --verbose): one lane
    /// per request from when it was sent to when its answer came back (or the
    /// bound), with its status and whether it was marked as a replay; identical
    /// lanes folded. The probe cannot see the server's locks or transactions,
    /// only when each answer came back
    #[arg(long)]
    pub timeline: bool,
}

/// A report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The table for a terminal, with the evidence of what did not pass.
    Table,
    Markdown,
    /// `crate::json`'s, versioned and documented by `report.schema.json`.
    Json,
    /// `crate::junit`'s, one test case per check.
    Junit,
}

impl Format {
    const ALL: [(Format, &'static str); 4] = [
        (Format::Table, "table"),
        (Format::Markdown, "markdown"),
        (Format::Json, "json"),
        (Format::Junit, "junit"),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("table", |(_, name)| name)
    }
}

/// A report and where it goes: a file, or standard output (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    pub format: Format,
    pub file: Option<PathBuf>,
}

/// `FORMAT` or `FORMAT=FILE` (`FILE` `-` is standard output).
fn parse_report(text: &str) -> Result<ReportTarget, String> {
    let (name, file) = match text.split_once('=') {
        Some((name, file)) => (name, Some(file)),
        None => (text, None),
    };
    let format = Format::ALL
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(f, _)| *f)
        .ok_or_else(|| crate::words::no_report_format(name))?;
    let file = match file {
        None | Some("-") => None,
        Some("") => return Err(crate::words::report_names_no_file(text, name)),
        Some(file) => Some(PathBuf::from(file)),
    };
    Ok(ReportTarget { format, file })
}

/// `idempotency-probe`'s command said in this run's language, through the
/// workbook's one mechanism (l10n's `cli`): its about, every argument's help
/// (`cli-arg-ARG` in the probe's catalogue), value names, headings, usage line
/// and clap's own words.
pub fn localise(cmd: clap::Command) -> clap::Command {
    let words = crate::words::catalogue().current();
    with_placeholders(l10n::cli::localise(cmd, words, "cli"), words.lang())
}

/// The arguments of [`ProbeArgs`] in `cmd` given their help and value names in
/// `lang`, from the probe's catalogue: for a program whose own catalogue says
/// the rest (`cargo workbook probe`), before l10n's `localise`, which keeps a
/// help it has no text of its own for; then [`with_placeholders`].
pub fn said_args(cmd: clap::Command, lang: l10n::Lang) -> clap::Command {
    let words = crate::words::catalogue().in_lang(lang);
    cmd.mut_args(|arg| {
        let mut arg = match words.try_say(&format!("cli-arg-{}", arg.get_id())) {
            Some(help) => arg.help(help),
            None => arg,
        };
        if let Some(names) = arg.get_value_names() {
            let names: Vec<String> = names
                .iter()
                .map(|name| {
                    let id = format!("cli-value-{}", slug(name.as_str()));
                    words.try_say(&id).unwrap_or_else(|| name.to_string())
                })
                .collect();
            arg = arg.value_names(names);
        }
        arg
    })
}

/// `FORMAT[=FILE]`: `format-file`, as l10n's `cli` names a value's message.
fn slug(name: &str) -> String {
    let mut id = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_alphanumeric() {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    id.trim_end_matches('-').to_owned()
}

/// The body's placeholder `{n}` kept as written in `cmd`'s help, said in
/// `lang` ([`with_placeholder`]: clap would make it a line break), with its
/// default on a line of its own under `--help`.
pub fn with_placeholders(cmd: clap::Command, lang: l10n::Lang) -> clap::Command {
    let words = crate::words::catalogue().in_lang(lang);
    let placeholder = |arg: clap::Arg, id: &str, default: &str| {
        let help = words.say(id, &[("placeholder", "{n}".into())]);
        let default = l10n::cli::default_note(words.lang(), default);
        arg.help(with_placeholder(&help))
            .long_help(with_placeholder(&format!("{help}\n{default}")))
    };
    cmd.mut_arg("body", |arg| {
        placeholder(arg, "cli-arg-body", defaults::BODY)
    })
    .mut_arg("other_body", |arg| {
        placeholder(arg, "cli-arg-other_body", defaults::OTHER_BODY)
    })
}

/// How a run ends, as its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Every check passed or was skipped; or some warned, without --fail-on-warn.
    Passed = 0,
    /// A check failed.
    Failed = 1,
    /// The probe could not run (bad flags, nothing listening, a route that
    /// refuses its requests, a report it cannot write).
    CouldNotRun = 2,
    /// No check failed, one warned, and --fail-on-warn says warnings fail.
    Warned = 3,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// `--skip`'s values are the table's names, each with its title in `--help`.
impl clap::ValueEnum for CheckId {
    fn value_variants<'a>() -> &'a [Self] {
        CheckId::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()).help(self.title()))
    }
}

impl ProbeArgs {
    /// The options these flags ask for.
    pub fn options(&self) -> Result<Options, ProbeError> {
        let mut options = Options::across(self.urls.clone());
        options.path.clone_from(&self.path);
        options.method.clone_from(&self.method);
        options.key_header.clone_from(&self.key_header);
        options.body.clone_from(&self.body);
        options.other_body.clone_from(&self.other_body);
        options.id_pointer.clone_from(&self.id_pointer);
        options.headers = self
            .headers
            .iter()
            .map(|line| {
                line.split_once(':')
                    .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
                    .filter(|(name, _)| !name.is_empty())
                    .ok_or_else(|| {
                        ProbeError::Options(crate::words::mistake(
                            "probe-mistake-header",
                            &[("line", l10n::Arg::from(format!("{line:?}")))],
                        ))
                    })
            })
            .collect::<Result<_, _>>()?;
        options.burst = self.burst;
        options.hang_bursts.clone_from(&self.hang);
        options.timeout = Duration::from_millis(self.timeout_ms);
        options.database_url.clone_from(&self.database_url);
        options.count_sql.clone_from(&self.count_sql);
        options.allow_remote = self.allow_remote;
        options.skip.clone_from(&self.skip);
        Ok(options)
    }

    /// Every report these flags ask for, in order: `--report`s, then `--json` or
    /// `--markdown`, and the table on standard output when no other report is.
    pub fn report_targets(&self) -> Result<Vec<ReportTarget>, ProbeError> {
        let mut targets = self.reports.clone();
        for (asked, format) in [(self.json, Format::Json), (self.markdown, Format::Markdown)] {
            if asked {
                targets.push(ReportTarget { format, file: None });
            }
        }
        let on_stdout: Vec<&'static str> = targets
            .iter()
            .filter(|t| t.file.is_none())
            .map(|t| t.format.name())
            .collect();
        match on_stdout.as_slice() {
            [] => targets.push(ReportTarget {
                format: Format::Table,
                file: None,
            }),
            [_] => {}
            several => {
                return Err(ProbeError::Options(crate::words::mistake(
                    "probe-mistake-reports-on-stdout",
                    &[
                        ("count", l10n::Arg::from(several.len())),
                        ("formats", l10n::Arg::from(several.join(", "))),
                    ],
                )));
            }
        }
        Ok(targets)
    }

    /// The report in `format`, a table laid out `width` columns wide.
    pub fn render(&self, format: Format, report: &Report, width: u16) -> String {
        match format {
            Format::Table => {
                let shown = crate::report::Shown {
                    all_evidence: self.verbose,
                    timeline: self.timeline,
                    warnings_fail: self.fail_on_warn,
                };
                crate::report::table_with(report, width, &shown)
            }
            Format::Markdown => crate::markdown(report),
            // A report is plain data: it always serialises.
            Format::Json => {
                serde_json::to_string_pretty(&crate::json::report(report)).unwrap_or_default()
                    + "\n"
            }
            Format::Junit => crate::junit::report(report, self.fail_on_warn),
        }
    }

    /// How a run with this report ends.
    pub fn exit(&self, report: &Report) -> Exit {
        match report.outcome() {
            Outcome::Fail => Exit::Failed,
            Outcome::Warn if self.fail_on_warn => Exit::Warned,
            Outcome::Warn | Outcome::Pass => Exit::Passed,
        }
    }
}

/// Runs the probe on a runtime of its own and writes its reports (a table
/// `width` columns wide); how the run ends. When the probe cannot run, the
/// reports that go to files say why (JSON and JUnit), and the error is returned
/// for the caller to print.
pub fn run(args: &ProbeArgs, width: u16) -> Result<Exit, ProbeError> {
    let targets = args.report_targets()?;
    let ran = args.options().and_then(|options| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                ProbeError::Options(crate::words::mistake(
                    "probe-mistake-no-runtime",
                    &[("error", l10n::Arg::from(e.to_string()))],
                ))
            })?;
        runtime.block_on(crate::run(&options))
    });
    let report = match ran {
        Ok(report) => report,
        Err(error) => {
            for target in targets.iter().filter(|t| t.file.is_some()) {
                let text = match target.format {
                    Format::Json => {
                        serde_json::to_string_pretty(&crate::json::error(&error))
                            .unwrap_or_default()
                            + "\n"
                    }
                    Format::Junit => crate::junit::error(&error),
                    Format::Table | Format::Markdown => continue,
                };
                // The error that stopped the run is the one to report.
                let _ = write(target, &text);
            }
            return Err(error);
        }
    };
    for target in &targets {
        write(target, &args.render(target.format, &report, width))?;
    }
    Ok(args.exit(&report))
}

/// Writes one report where it goes.
fn write(target: &ReportTarget, text: &str) -> Result<(), ProbeError> {
    match &target.file {
        // A reader that stops early (`| head`) is not an error worth a panic.
        None => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            Ok(())
        }
        Some(path) => std::fs::write(path, text).map_err(|e| ProbeError::Write {
            format: target.format.name(),
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
    }
}

/// The width to lay the table out in: `COLUMNS`, or 100 columns.
pub fn width_from_env() -> u16 {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .unwrap_or(100)
        .clamp(40, 400)
}

/// The warning `--allow-remote` earns, for the caller to print its way.
pub fn remote_warning() -> String {
    crate::words::remote_warning()
}
