//! `workbook probe URL`: the probe's command line (the checks are in crates/probe).

use std::io::Write;
use std::time::Duration;

use probe::{CheckId, Options};

use crate::error::Error;
use crate::ui;

/// The probe's flags, as clap parses them.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// The server, e.g. http://127.0.0.1:8080 (plain HTTP; this machine only unless --allow-remote).
    pub url: String,
    /// The route that creates, appended to the URL.
    #[arg(long, default_value = "/payments")]
    pub path: String,
    #[arg(long, default_value = "POST")]
    pub method: String,
    /// The idempotency key's header.
    #[arg(long, default_value = "Idempotency-Key", value_name = "NAME")]
    pub key_header: String,
    /// The JSON body; {n} becomes a fresh number in each scenario.
    #[arg(
        long,
        default_value = r#"{"orderId": {n}, "amount": 100}"#,
        value_name = "TEMPLATE"
    )]
    pub body: String,
    /// Another body for the same {n}: what "same key, another body" sends.
    #[arg(
        long,
        default_value = r#"{"orderId": {n}, "amount": 999}"#,
        value_name = "TEMPLATE"
    )]
    pub other_body: String,
    /// JSON pointer to the created resource's id in a 2xx answer.
    #[arg(long, default_value = "/id", value_name = "POINTER")]
    pub id_pointer: String,
    /// An extra header for every request, e.g. -H 'Authorization: Bearer t' (repeatable).
    #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,
    /// Requests in the burst, all with one key.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub burst: usize,
    /// The hang check's bursts, in order.
    #[arg(
        long,
        default_value = "20,50",
        value_delimiter = ',',
        value_name = "N,N"
    )]
    pub hang: Vec<usize>,
    /// The bound of every request, in milliseconds.
    #[arg(long, default_value_t = 5000, value_name = "MS")]
    pub timeout_ms: u64,
    /// Where to count the effects (PostgreSQL URL); with --count-sql.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// A query returning how many effects exist, e.g. "select count(*) from payments".
    #[arg(long, value_name = "SQL")]
    pub count_sql: Option<String>,
    /// A check not to run (repeatable): burst, replay, different-body, distinct-keys,
    /// rewritten-body, bad-keys, bad-bodies, lost-answer, hang.
    #[arg(long, value_name = "CHECK")]
    pub skip: Vec<CheckId>,
    /// Probe a server that is not on this machine (it sends real requests).
    #[arg(long)]
    pub allow_remote: bool,
    /// Print the report as JSON (for CI).
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the report as a Markdown table.
    #[arg(long)]
    pub markdown: bool,
    /// Show the evidence of every check, not only of those that failed or warned.
    #[arg(long, short)]
    pub verbose: bool,
}

impl ProbeArgs {
    fn options(&self) -> Result<Options, Error> {
        let mut options = Options::new(&self.url);
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
                    .ok_or_else(|| Error::Probe(format!("-H {line:?} is not 'NAME: VALUE'")))
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
}

/// Runs the probe and prints its report; true when no check failed.
pub fn run(args: &ProbeArgs) -> Result<bool, Error> {
    let options = args.options()?;
    if options.allow_remote {
        eprintln!(
            "{}",
            ui::warn("--allow-remote: the probe sends real requests, which create real resources")
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let report = runtime
        .block_on(probe::run(&options))
        .map_err(|e| Error::Probe(e.to_string()))?;
    let text = if args.json {
        serde_json::to_string_pretty(&report).map_err(|e| Error::Probe(e.to_string()))? + "\n"
    } else if args.markdown {
        probe::markdown(&report)
    } else {
        probe::table(&report, ui::width(), args.verbose)
    };
    // A reader that stops early (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(report.passed())
}
