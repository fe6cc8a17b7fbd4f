//! The book's table of probe results: every check, run against stage 6's model
//! answer and the wrong shapes (crates/probe/tests/server), and with
//! `--with-servers` against the Python, TypeScript, Go and Java servers of servers/ (which
//! need servers/setup.sh), one row each, each on a database of its own. With the
//! servers, the article's two tables too (article/languages.rs), in languages.md
//! beside the file that `--write` and `--check` name.
//!
//!     cargo run -q -p idempotency-probe --example probe_results -- --with-servers   # print it
//!     ... -- --with-servers --write book/src/generated/probe-results.md             # rewrite it
//!     ... -- --with-servers --check book/src/generated/probe-results.md             # exit 1 if stale
//!
//! Only verdicts go in the table (no timings), so the same code gives the same table;
//! `--check` compares the table only. The figures under it (the burst's answers and
//! payments, the time) vary from run to run.
//!
//! One run writes each file in every language of the book: English at the path given,
//! Brazilian Portuguese in the `pt-BR/` folder beside it (the book's glossary,
//! book/glossary.toml, gives the words); `--check` checks both.

// The shapes the book's table does not show are the tests'.
#[allow(dead_code)]
#[path = "../tests/server/mod.rs"]
mod server;

#[path = "article/languages.rs"]
mod languages;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use harness::{PoolSize, TestDb, reference_schema};
use probe::profile::{ConcurrentOtherBody, InFlight, KeyLifetime, ReplayMarker};
use probe::{CheckId, Options, Report, Role, Verdict};
use server::external::{
    ExternalServer, ServerError, article_api, article_schema, missing_setup, servers_dir,
};
use server::{Shape, serve, serve_instances, serve_shape};

/// The bound of every request: deadlocked requests are given up on after this
/// (short, for a short run; their pools would wait 30 s; not 2 s: a JVM just started,
/// on a machine busy with other work, once answered none of a correct burst within 2 s).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// A language of the book: each file is written in all of them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    PtBr,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::PtBr];

    /// The text in this language.
    pub fn t<'a>(self, en: &'a str, pt: &'a str) -> &'a str {
        match self {
            Lang::En => en,
            Lang::PtBr => pt,
        }
    }

    /// A figure with `digits` decimals, with the language's decimal mark.
    pub fn number(self, value: f64, digits: usize) -> String {
        let text = format!("{value:.digits$}");
        match self {
            Lang::En => text,
            Lang::PtBr => text.replace('.', ","),
        }
    }

    /// Where this language's file goes, for the English file at `path`.
    fn path(self, path: &std::path::Path) -> PathBuf {
        match self {
            Lang::En => path.to_path_buf(),
            Lang::PtBr => path
                .with_file_name("pt-BR")
                .join(path.file_name().unwrap_or_default()),
        }
    }
}

/// A row's name, in English and in Portuguese.
type Name = (&'static str, &'static str);

/// A row of the table: what was probed.
enum Subject {
    ModelAnswer,
    Wrong(Shape),
    /// A wrong shape served as this many instances over one database, the probe
    /// spreading its bursts across them.
    Instances(Shape, usize),
    /// A server of servers/, by the name servers/start.sh takes.
    External(&'static str),
}

const ROWS: &[(Name, Subject)] = &[
    (
        (
            "Rust: stage 6's model answer",
            "Rust: a solução de referência da etapa 6",
        ),
        Subject::ModelAnswer,
    ),
    (
        (
            "Rust: check, then write (stage 2)",
            "Rust: conferir e depois gravar (etapa 2)",
        ),
        Subject::Wrong(Shape::CheckThenWrite { held_for: 20 }),
    ),
    (
        (
            "Rust: three commits, no transaction (stage 3, known wrong)",
            "Rust: três commits, sem transação (etapa 3, sabidamente errada)",
        ),
        Subject::Wrong(Shape::NoTransaction),
    ),
    (
        (
            "Rust: the body's hash stored, never compared (stage 4, known wrong)",
            "Rust: o hash do corpo guardado, nunca comparado (etapa 4, sabidamente errada)",
        ),
        Subject::Wrong(Shape::HashIgnored),
    ),
    (
        (
            "Rust: the stored answer read through the pool inside the transaction, pool of 10 (stage 5)",
            "Rust: a resposta guardada lida pelo pool dentro da transação, pool de 10 (etapa 5)",
        ),
        Subject::Wrong(Shape::ReadsThroughThePool { pool: 10 }),
    ),
    (
        (
            "Rust: the key guarded by a lock in memory, one instance",
            "Rust: a chave protegida por um lock em memória, uma instância",
        ),
        Subject::Instances(Shape::InProcessLock, 1),
    ),
    (
        (
            "Rust: the key guarded by a lock in memory, two instances",
            "Rust: a chave protegida por um lock em memória, duas instâncias",
        ),
        Subject::Instances(Shape::InProcessLock, 2),
    ),
];

/// The other languages' servers (servers/README.md), after the Rust rows.
const SERVERS: &[(Name, Subject)] = &[
    (("Python", "Python"), Subject::External("python")),
    (
        ("Python, wrong", "Python, errado"),
        Subject::External("python-wrong"),
    ),
    (
        ("TypeScript", "TypeScript"),
        Subject::External("typescript"),
    ),
    (
        ("TypeScript, wrong", "TypeScript, errado"),
        Subject::External("typescript-wrong"),
    ),
    (("Go", "Go"), Subject::External("go")),
    (("Go, wrong", "Go, errado"), Subject::External("go-wrong")),
    (("Java", "Java"), Subject::External("java")),
    (
        ("Java, wrong", "Java, errado"),
        Subject::External("java-wrong"),
    ),
];

/// The article's two tables (languages.rs), beside the probe's table: `--write` and
/// `--check` of probe-results.md write and check this file of the same folder too.
const LANGUAGES_FILE: &str = "languages.md";

/// Why the tables could not be made, in words naming what failed.
#[derive(Debug, thiserror::Error)]
pub enum TablesError {
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Probe(#[from] probe::ProbeError),
    /// The probe could not run against a server of servers/.
    #[error("{server} (servers/start.sh {server}): {source}")]
    ServerProbe {
        server: &'static str,
        #[source]
        source: probe::ProbeError,
    },
    /// A task of ours panicked or was cancelled.
    #[error("{what} failed: {source}")]
    Task {
        what: String,
        #[source]
        source: tokio::task::JoinError,
    },
    #[error("cannot read {file}: {source}")]
    CannotRead {
        file: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// A code cell of the article's tables (languages.rs's `Backed`) no longer holds.
    #[error(
        "{file} no longer holds `{line}`, which the table's cell \"{cell}\" stands for: \
         update crates/probe/examples/article/languages.rs"
    )]
    CodeChanged {
        file: &'static str,
        line: &'static str,
        cell: &'static str,
    },
    #[error("no probe run of {0}")]
    NoProbeRun(String),
    #[error("no variant burst of {0}")]
    NoVariantBurst(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_servers = args.iter().any(|a| a == "--with-servers");
    let file_after = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|at| args.get(at + 1))
            .map(PathBuf::from)
    };
    if with_servers && let Some(missing) = missing_setup(&servers_dir()) {
        eprintln!("probe_results --with-servers: {missing}");
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("probe_results: no tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let files = match runtime.block_on(files(with_servers)) {
        Ok(files) => files,
        Err(why) => {
            eprintln!("probe_results: {why}");
            return ExitCode::FAILURE;
        }
    };
    // The probe's table at the path given, the languages' tables beside it; each
    // in every language (the pt-BR twin in the pt-BR folder beside it).
    let paths = |path: PathBuf| {
        let beside = path.with_file_name(LANGUAGES_FILE);
        files.iter().zip([path, beside]).flat_map(|(file, path)| {
            Lang::ALL
                .iter()
                .zip(file)
                .map(move |(lang, text)| (text, lang.path(&path)))
        })
    };
    if let Some(path) = file_after("--check") {
        let mut stale = false;
        for (fresh, path) in paths(path) {
            stale |= !is_current(&path, fresh);
        }
        return if stale {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    if let Some(path) = file_after("--write") {
        for (fresh, path) in paths(path) {
            if let Some(folder) = path.parent()
                && let Err(e) = std::fs::create_dir_all(folder)
            {
                eprintln!("cannot create {}: {e}", folder.display());
                return ExitCode::FAILURE;
            }
            if let Err(e) = std::fs::write(&path, fresh) {
                eprintln!("cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            println!("wrote {}", path.display());
        }
        return ExitCode::SUCCESS;
    }
    for file in files.iter().flatten() {
        print!("{file}");
    }
    ExitCode::SUCCESS
}

/// Whether the committed file at `path` has the same table rows as `fresh`; if not,
/// says so with the rows that differ.
fn is_current(path: &std::path::Path, fresh: &str) -> bool {
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let (committed, fresh) = (table_rows(&committed), table_rows(fresh));
    if committed == fresh {
        println!("{} is current ({} table rows)", path.display(), fresh.len());
        return true;
    }
    eprintln!(
        "{} is stale; `just probe-results` rewrites it.",
        path.display()
    );
    let blank = [""].into_iter().cycle();
    for (old, new) in committed
        .iter()
        .copied()
        .chain(blank.clone())
        .zip(fresh.iter().copied().chain(blank))
        .take(committed.len().max(fresh.len()))
    {
        if old != new {
            eprintln!("  committed: {old}\n  this run:  {new}");
        }
    }
    false
}

/// The probe's table; with the servers, the article's tables too (languages.rs),
/// from the same probe runs and the variant's long bursts. Each file in every
/// language ([`Lang::ALL`]'s order).
async fn files(with_servers: bool) -> Result<Vec<[String; 2]>, TablesError> {
    let mut reports = Vec::new();
    let probed = probe_all(with_servers, &mut reports).await?;
    let probe_table = Lang::ALL.map(|lang| table(lang, &probed));
    if !with_servers {
        return Ok(vec![probe_table]);
    }
    // The variants' bursts wait up to 40 s each: after the probes (which they would
    // slow down), beside one another. Their servers start one after another first: a
    // JVM starting takes both cores for a second, and a burst beside it could arrive
    // spread out enough to miss the deadlock.
    let mut variants = Vec::new();
    for language in languages::LANGUAGES {
        if let Some((name, _)) = &language.second_connection {
            variants.push((*name, languages::Variant::start(name).await?));
        }
    }
    let running: Vec<_> = variants
        .into_iter()
        .map(|(name, variant)| (name, tokio::spawn(variant.burst())))
        .collect();
    let mut bursts = Vec::new();
    for (name, burst) in running {
        let burst = burst.await.map_err(|source| TablesError::Task {
            what: format!("the variant burst of {name}"),
            source,
        })??;
        bursts.push((name, burst));
    }
    let [en, pt] = Lang::ALL.map(|lang| languages::tables(lang, &reports, &bursts));
    Ok(vec![probe_table, [en?, pt?]])
}

/// The lines `--check` compares: the table's, which hold only verdicts. The
/// figures under it vary from run to run.
fn table_rows(text: &str) -> Vec<&str> {
    text.lines().filter(|line| line.starts_with('|')).collect()
}

/// Every row probed, in the table's order; the reports of the servers of servers/
/// also go into `reports`.
async fn probe_all(
    with_servers: bool,
    reports: &mut Vec<(&'static str, Report)>,
) -> Result<Vec<(Name, Report)>, TablesError> {
    let mut probed = Vec::new();
    let rows = ROWS.iter().chain(if with_servers { SERVERS } else { &[] });
    for (name, subject) in rows {
        let report = probe(subject).await?;
        if let Subject::External(server) = subject {
            reports.push((server, report.clone()));
        }
        probed.push((*name, report));
    }
    Ok(probed)
}

/// The probe's table in `lang`, with the figures that vary under it.
fn table(lang: Lang, probed: &[(Name, Report)]) -> String {
    let mut out = String::from(
        "<!-- Generated by `just probe-results` (crates/probe/examples/probe_results.rs)\n     \
         from a run of the probe against each server. Do not edit; `just book-check` checks\n     \
         that a fresh run gives the same table (the figures under it vary, and are not compared). -->\n\n",
    );
    out.push_str(lang.t("| server |", "| servidor |"));
    for id in CheckId::ALL {
        out.push_str(&format!(" {id} |"));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(CheckId::ALL.len()));
    out.push('\n');
    let mut figures = Vec::new();
    for ((en, pt), report) in probed {
        let name = lang.t(en, pt);
        out.push_str(&format!("| {name} |"));
        for &id in CheckId::ALL {
            let cell = match report.check(id).map(|c| c.verdict) {
                Some(Verdict::Fail) => lang.t("**fail**", "**falha**"),
                Some(Verdict::Warn) => lang.t("warn", "alerta"),
                Some(Verdict::Pass) => lang.t("pass", "passa"),
                Some(Verdict::Skipped) | None => lang.t("skipped", "pulada"),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
        figures.push(format!("- {name}: {}", burst_figures(lang, report)));
    }
    let bound = REQUEST_TIMEOUT.as_secs();
    out.push_str(&match lang {
        Lang::En => format!(
            "\nFigures that vary from run to run, from the run that wrote this page: the burst's \
             first answers (a 409 is retried afterwards), the payments it made, and how long the \
             whole probe took (each request bounded to {bound} s).\n\n"
        ),
        Lang::PtBr => format!(
            "\nNúmeros que variam de uma execução para outra, da execução que escreveu esta \
             página: as primeiras respostas da rajada (um 409 é tentado de novo depois), os \
             pagamentos que ela fez e quanto tempo o probe inteiro levou (cada pedido limitado a \
             {bound} s).\n\n"
        ),
    });
    out.push_str(&figures.join("\n"));
    out.push('\n');
    let profiled: Vec<_> = probed
        .iter()
        .filter(|((en, _), _)| PROFILED.contains(en))
        .collect();
    if !profiled.is_empty() {
        out.push_str(&profile_table(lang, &profiled));
    }
    out
}

/// The rows of the profile's table: the correct servers of servers/, whose every
/// check passes (a wrong server's answers show its bug, not a choice).
const PROFILED: [&str; 4] = ["Python", "TypeScript", "Go", "Java"];

/// What each API chose where the draft leaves it open (the probe's profile), in `lang`.
fn profile_table(lang: Lang, probed: &[&(Name, Report)]) -> String {
    let mut out = format!(
        "\n{}\n\n",
        lang.t(
            "What each of them chose where the IETF draft leaves it open (the probe's profile: facts, not verdicts):",
            "O que cada um escolheu onde o rascunho do IETF deixa em aberto (o perfil do probe: fatos, não veredictos):",
        )
    );
    out.push_str(lang.t(
        "| server | a duplicate in flight | a replayed answer | another body in flight | how long a key lives |\n",
        "| servidor | uma duplicata em andamento | uma resposta repetida | outro corpo em andamento | quanto tempo a chave vale |\n",
    ));
    out.push_str("|---|---|---|---|---|\n");
    let not_observed = lang.t("not observed", "não observado");
    for ((en, pt), report) in probed {
        let profile = &report.profile;
        let in_flight = match &profile.in_flight {
            InFlight::Waits => lang
                .t(
                    "waits, then gets the first's answer",
                    "espera e recebe a resposta da primeira",
                )
                .to_owned(),
            InFlight::Conflict {
                retry_after: Some(after),
            } => format!("409, `Retry-After: {after}`"),
            InFlight::Conflict { retry_after: None } => lang
                .t("409 without `Retry-After`", "409 sem `Retry-After`")
                .to_owned(),
            InFlight::NotObserved => not_observed.to_owned(),
        };
        let replay = match &profile.replay_marker {
            ReplayMarker::Marked { header, value } => {
                format!("{} `{header}: {value}`", lang.t("marked by", "marcada por"))
            }
            ReplayMarker::NotMarked => lang.t("not marked", "não marcada").to_owned(),
            ReplayMarker::NotObserved => not_observed.to_owned(),
        };
        let other_body = match &profile.concurrent_other_body {
            ConcurrentOtherBody::Unprocessable => "422".to_owned(),
            ConcurrentOtherBody::Conflict { then } => {
                format!("409, {} {then}", lang.t("then", "depois"))
            }
            ConcurrentOtherBody::OtherRefusal { status } => status.to_string(),
            ConcurrentOtherBody::NotObserved => not_observed.to_owned(),
        };
        let lifetime = match &profile.key_lifetime {
            KeyLifetime::Advertised { header, value } => format!("`{header}: {value}`"),
            KeyLifetime::NotAdvertised => lang
                .t("not said in a header", "não dito num cabeçalho")
                .to_owned(),
        };
        out.push_str(&format!(
            "| {} | {in_flight} | {replay} | {other_body} | {lifetime} |\n",
            lang.t(en, pt)
        ));
    }
    out
}

/// The burst's answers and payments, and the run's time: "201 ×20, 1 payment; the
/// probe took 0.6 s.".
fn burst_figures(lang: Lang, report: &Report) -> String {
    let burst = report.check(CheckId::Burst);
    // Its first answers (the 409s it retried come after them, as in-flight-retry).
    let first: Vec<String> = {
        let mut tally = std::collections::BTreeMap::new();
        for seen in burst
            .map(|c| c.answers.as_slice())
            .unwrap_or_default()
            .iter()
            .filter(|s| s.role == Role::Burst)
        {
            let outcome = match seen.status() {
                Some(status) => status.to_string(),
                None => lang.t("unanswered", "sem resposta").to_owned(),
            };
            *tally.entry(outcome).or_insert(0) += 1;
        }
        tally.iter().map(|(o, n)| format!("{o} ×{n}")).collect()
    };
    let answers = if first.is_empty() {
        lang.t("not run", "não executada").to_owned()
    } else {
        first.join(", ")
    };
    let payments = match burst.and_then(|c| c.effects).map(|e| e.created) {
        Some(1) => lang.t("1 payment", "1 pagamento").to_owned(),
        Some(n) => format!("{n} {}", lang.t("payments", "pagamentos")),
        None => lang
            .t("payments not counted", "pagamentos não contados")
            .to_owned(),
    };
    let took = lang.number(report.elapsed.as_secs_f64(), 1);
    match lang {
        Lang::En => format!("{answers}, {payments}; the probe took {took} s."),
        Lang::PtBr => format!("{answers}, {payments}; o probe levou {took} s."),
    }
}

/// Serves the subject on a database of its own and probes it with its effects counted.
async fn probe(subject: &Subject) -> Result<Report, TablesError> {
    let schema = match subject {
        Subject::External(_) => article_schema(),
        _ => reference_schema(),
    };
    let db = TestDb::create(schema).await;
    let mut external = None;
    let mut options = match subject {
        Subject::ModelAnswer => {
            let addr = serve(stage6::router(db.pool(PoolSize::of(10)))).await;
            Options::new(format!("http://{addr}"))
                .counting(db.url(), "select count(*) from payments")
        }
        Subject::Wrong(shape) => {
            let addr = serve_shape(&db, *shape).await;
            Options::new(format!("http://{addr}"))
                .counting(db.url(), "select count(*) from payments")
        }
        Subject::Instances(shape, instances) => {
            let addrs = serve_instances(&db, *shape, *instances).await;
            Options::across(addrs.iter().map(|a| format!("http://{a}")).collect())
                .counting(db.url(), "select count(*) from payments")
        }
        Subject::External(name) => {
            let server = ExternalServer::start(&servers_dir(), name, &db.url())?;
            let url = format!("http://127.0.0.1:{}", server.port);
            external = Some(server);
            article_api(url, db.url())
        }
    };
    options.timeout = REQUEST_TIMEOUT;
    let report = probe::run(&options).await.map_err(|source| match subject {
        // The probe names a URL; the port is gone with the server: say which it was.
        Subject::External(server) => TablesError::ServerProbe { server, source },
        _ => TablesError::from(source),
    });
    // Stopped before its database is dropped.
    drop(external);
    report
}
