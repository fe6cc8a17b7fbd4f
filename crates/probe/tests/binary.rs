//! `idempotency-probe`, the binary a backend's CI installs alone, run as CI runs
//! it: its exit codes (0 passed, 1 a check failed, 2 could not run, 3 only
//! warnings with --fail-on-warn), and its reports (JSON, against its schema, and
//! JUnit XML, to files while the table goes to standard output), against the same
//! servers as the library's tests.

mod reports;
// The shapes this file does not probe are the other tests'.
#[allow(dead_code)]
mod server;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use harness::{PoolSize, TestDb, reference_schema};
use serde_json::Value;
use server::{Shape, serve, serve_instances, serve_shape};

/// A report file in the temporary directory, removed when dropped.
struct ReportFile(PathBuf);

impl ReportFile {
    fn new(test: &str, extension: &str) -> Self {
        Self(std::env::temp_dir().join(format!(
            "idempotency-probe-{}-{test}.{extension}",
            std::process::id()
        )))
    }

    /// `--report FORMAT=this file`.
    fn flag(&self, format: &str) -> [String; 2] {
        [
            "--report".to_owned(),
            format!("{format}={}", self.0.display()),
        ]
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.0)
            .unwrap_or_else(|e| panic!("no report at {}: {e}", self.0.display()))
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.text())
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", self.0.display()))
    }
}

impl Drop for ReportFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs the binary with `args` off the runtime's threads (the servers it probes
/// run on them), bounded so that a probe that hangs fails the test.
async fn run_binary(args: Vec<String>) -> Output {
    let running = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_idempotency-probe"))
            .args(&args)
            .env("COLUMNS", "100")
            .output()
            .expect("the binary starts")
    });
    match tokio::time::timeout(Duration::from_secs(90), running).await {
        Ok(output) => output.expect("the binary's thread ends"),
        Err(_) => panic!("idempotency-probe did not finish within 90 s"),
    }
}

/// The JSON report's verdict for each check, in order: `burst=pass`, ...
fn verdicts(output: &Output) -> Vec<String> {
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "--json printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    verdicts_of(&report)
}

fn verdicts_of(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .map(|c| {
            format!(
                "{}={}",
                c["id"].as_str().unwrap_or("?"),
                c["verdict"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// `urls` counted in `db`, and `more`.
fn counted(urls: Vec<String>, db: &TestDb, more: &[&str]) -> Vec<String> {
    let mut args = urls;
    args.extend([
        "--database-url".to_owned(),
        db.url(),
        "--count-sql".to_owned(),
        "select count(*) from payments".to_owned(),
    ]);
    args.extend(more.iter().map(|s| (*s).to_owned()));
    args
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_model_answer_on_two_instances_exits_0_with_every_check_passed_in_every_report() {
    let db = TestDb::create(reference_schema()).await;
    let mut urls = Vec::new();
    for _ in 0..2 {
        let addr = serve(stage6::router(db.pool(PoolSize::of(10)))).await;
        urls.push(format!("http://{addr}"));
    }
    let (json, junit) = (
        ReportFile::new("model-answer", "json"),
        ReportFile::new("model-answer", "xml"),
    );
    let mut args = counted(urls, &db, &[]);
    args.extend(json.flag("json"));
    args.extend(junit.flag("junit"));
    let output = run_binary(args).await;
    let report = json.json();
    reports::assert_valid_json(&report);
    let verdicts = verdicts_of(&report);
    assert_eq!(output.status.code(), Some(0), "{verdicts:?}");
    assert!(
        verdicts.iter().all(|v| v.ends_with("=pass")),
        "{verdicts:?}"
    );
    assert_eq!(
        verdicts.len(),
        probe::CHECKS.len(),
        "every check should have its verdict in the JSON report: {verdicts:?}"
    );
    assert_eq!(
        report["outcome"], "pass",
        "the model answer should pass as a whole: {verdicts:?}"
    );
    let (counts, cases) = reports::junit(&junit.text());
    assert_eq!(counts, [probe::CHECKS.len(), 0, 0, 0], "{cases:?}");
    assert!(cases.iter().all(|c| c.result.is_none()), "{cases:?}");
    // The reports went to their files: standard output has the table.
    assert!(
        stdout(&output).contains("passed, 0 warned, 0 failed"),
        "{}",
        stdout(&output)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_key_locked_in_memory_on_two_instances_exits_1_with_the_burst_failed() {
    let db = TestDb::create(reference_schema()).await;
    let addrs = serve_instances(&db, Shape::InProcessLock, 2).await;
    let urls = addrs.iter().map(|a| format!("http://{a}")).collect();
    let junit = ReportFile::new("in-memory-lock", "xml");
    let mut args = counted(urls, &db, &["--json"]);
    args.extend(junit.flag("junit"));
    let output = run_binary(args).await;
    let verdicts = verdicts(&output);
    assert_eq!(output.status.code(), Some(1), "{verdicts:?}");
    let failed: Vec<&String> = verdicts.iter().filter(|v| v.ends_with("=fail")).collect();
    assert_eq!(failed, ["burst=fail"], "{verdicts:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    reports::assert_valid_json(&report);
    assert_eq!(
        report["outcome"], "fail",
        "one failed check should make the run fail: {verdicts:?}"
    );
    let (counts, cases) = reports::junit(&junit.text());
    assert_eq!(counts, [probe::CHECKS.len(), 1, 0, 0], "{cases:?}");
    let failures: Vec<&reports::Case> = cases.iter().filter(|c| c.result.is_some()).collect();
    assert_eq!(failures.len(), 1, "{cases:?}");
    assert!(failures[0].name.starts_with("burst: "), "{cases:?}");
    assert_eq!(
        failures[0].result,
        Some(("failure".to_owned(), Some("fail".to_owned()))),
        "the burst's JUnit case should be a failure of kind fail: {cases:?}"
    );
}

/// The no-body-limit shape warns on bad-bodies and fails nothing; the other
/// checks are skipped (they pass, and would only make the run longer).
async fn warned_only(fail_on_warn: bool, test: &str) -> (Output, Value, String) {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::NoBodyLimit).await;
    let (json, junit) = (ReportFile::new(test, "json"), ReportFile::new(test, "xml"));
    let mut args = counted(vec![format!("http://{addr}")], &db, &[]);
    for check in probe::CHECKS
        .iter()
        .filter(|c| c.id != probe::CheckId::BadBodies)
    {
        args.extend(["--skip".to_owned(), check.name.to_owned()]);
    }
    if fail_on_warn {
        args.push("--fail-on-warn".to_owned());
    }
    args.extend(json.flag("json"));
    args.extend(junit.flag("junit"));
    let output = run_binary(args).await;
    let report = json.json();
    reports::assert_valid_json(&report);
    (output, report, junit.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_warning_exits_0_and_passes_in_junit_unless_warnings_fail() {
    let (output, report, junit) = warned_only(false, "warned").await;
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        report["outcome"],
        "warn",
        "a warning alone should make the outcome warn: {}",
        stdout(&output)
    );
    let (counts, cases) = reports::junit(&junit);
    let skipped = probe::CHECKS.len() - 1;
    assert_eq!(counts, [probe::CHECKS.len(), 0, 0, skipped], "{cases:?}");
    let bad_bodies = cases
        .iter()
        .find(|c| c.name.starts_with("bad-bodies: "))
        .expect("a test case for bad-bodies");
    assert_eq!(bad_bodies.result, None, "a warning passes: {junit}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_warning_exits_3_and_fails_in_junit_with_fail_on_warn() {
    let (output, report, junit) = warned_only(true, "warned-fails").await;
    assert_eq!(output.status.code(), Some(3), "{}", stdout(&output));
    assert_eq!(
        report["outcome"],
        "warn",
        "a warning alone should make the outcome warn, --fail-on-warn or not: {}",
        stdout(&output)
    );
    assert!(
        stdout(&output).contains("--fail-on-warn: the warnings fail the run"),
        "{}",
        stdout(&output)
    );
    let (counts, cases) = reports::junit(&junit);
    assert_eq!(counts[1], 1, "one failure: {cases:?}");
    let bad_bodies = cases
        .iter()
        .find(|c| c.name.starts_with("bad-bodies: "))
        .expect("a test case for bad-bodies");
    assert_eq!(
        bad_bodies.result,
        Some(("failure".to_owned(), Some("warn".to_owned()))),
        "{junit}"
    );
}

#[tokio::test]
async fn bad_flags_exit_2_with_the_fix() {
    let output = run_binary(vec![
        "http://127.0.0.1:9".to_owned(),
        "--report".to_owned(),
        "yaml".to_owned(),
    ])
    .await;
    assert_eq!(
        output.status.code(),
        Some(2),
        "an unknown --report should exit 2 (bad usage): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("table, markdown, json or junit"),
        "{stderr}"
    );
    let output = run_binary(vec![
        "http://127.0.0.1:9".to_owned(),
        "--json".to_owned(),
        "--report".to_owned(),
        "junit".to_owned(),
    ])
    .await;
    assert_eq!(
        output.status.code(),
        Some(2),
        "two reports to standard output should exit 2 (bad usage): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("2 reports to standard output (junit, json)"),
        "{stderr}"
    );
}

#[tokio::test]
async fn what_stops_the_probe_is_said_in_the_learners_language() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let output = run_binary(vec![
        format!("http://127.0.0.1:{port}"),
        "--lang".into(),
        "pt-BR".into(),
    ])
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(2)
            && stderr.starts_with(&format!("erro: probe: nada responde em 127.0.0.1:{port}")),
        "with --lang pt-BR, a probe that cannot reach its server should exit 2 saying so in \
         Portuguese; it ended with {:?} and printed: {stderr}",
        output.status
    );
    // A mistake in the URL, found before anything is sent.
    let output = run_binary(vec![
        "https://127.0.0.1:8080".into(),
        "--lang".into(),
        "pt-BR".into(),
    ])
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(2) && stderr.contains("o probe só fala HTTP simples"),
        "with --lang pt-BR, an https URL should be refused in Portuguese, exiting 2; it ended \
         with {:?} and printed: {stderr}",
        output.status
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn nothing_listening_exits_2_with_one_line_and_error_reports_in_the_files() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let (json, junit) = (
        ReportFile::new("unreachable", "json"),
        ReportFile::new("unreachable", "xml"),
    );
    let mut args = vec![format!("http://127.0.0.1:{port}")];
    args.extend(json.flag("json"));
    args.extend(junit.flag("junit"));
    let output = run_binary(args).await;
    assert_eq!(
        output.status.code(),
        Some(2),
        "nothing listening should exit 2 (the probe could not run): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: probe: nothing answers at 127.0.0.1:{port}"
        )),
        "{stderr}"
    );
    // The files CI keeps say why too.
    let report = json.json();
    reports::assert_valid_json(&report);
    assert_eq!(
        report["outcome"], "error",
        "the JSON report should say the run ended in an error: {report}"
    );
    assert_eq!(
        report["error"]["kind"], "unreachable",
        "the JSON report should say why: nothing answered: {report}"
    );
    let (counts, cases) = reports::junit(&junit.text());
    assert_eq!(counts, [1, 0, 1, 0], "{cases:?}");
    assert_eq!(
        cases[0].result,
        Some(("error".to_owned(), Some("unreachable".to_owned()))),
        "the JUnit case should be an error of kind unreachable: {cases:?}"
    );
}

#[tokio::test]
async fn help_shows_the_body_placeholder_and_every_check_from_the_table() {
    let output = run_binary(vec!["--help".to_owned()]).await;
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(
        help.contains("The JSON body; {n} becomes a fresh number in each scenario"),
        "{help}"
    );
    assert!(
        help.contains(r#"[default: {"orderId": {n}, "amount": 100}]"#),
        "{help}"
    );
    for check in probe::CHECKS {
        assert!(
            help.contains(&format!("- {}:", check.name)),
            "--skip lists {}: {help}",
            check.name
        );
    }
    let longest = help.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest <= 100, "a line of {longest} columns in 100: {help}");
}

/// `idempotency-probe --help` with `--lang pt-BR` (the language is chosen before
/// clap parses): the about, every argument's help, the headings, the usage line,
/// the checks `--skip` takes and clap's own words are Portuguese, the body's
/// placeholder as written; and a mistyped flag is an error in Portuguese that
/// exits 2.
#[tokio::test]
async fn help_and_a_mistyped_flag_are_said_in_portuguese_with_lang_pt_br() {
    let output = run_binary(vec![
        "--lang".to_owned(),
        "pt-BR".to_owned(),
        "--help".to_owned(),
    ])
    .await;
    let help = stdout(&output);
    assert!(
        output.status.code() == Some(0),
        "--help exits 0: it ended with {:?}\n{help}",
        output.status
    );
    for said in [
        "Verifica a idempotência de qualquer API HTTP por fora",
        "Uso: idempotency-probe [OPÇÕES] <URL>...",
        "Argumentos:",
        "Opções:",
        "O servidor, por exemplo http://127.0.0.1:8080",
        "--key-header <NOME>",
        "O corpo JSON; {n} vira um número novo em cada cenário",
        r#"[padrão: {"orderId": {n}, "amount": 100}]"#,
        "--skip <VERIFICAÇÃO>",
        "Valores possíveis:",
        "- burst:",
        "pedidos simultâneos, uma chave: um efeito, uma resposta",
        "Mostra a ajuda",
        "Códigos de saída:",
    ] {
        assert!(help.contains(said), "the help lacks {said:?}:\n{help}");
    }
    for english in [
        "Usage",
        "Options",
        "Arguments",
        "Print help",
        "[default",
        "Possible values",
        "The server",
        "Exit codes",
    ] {
        assert!(
            !help.contains(english),
            "the Portuguese help says {english:?}:\n{help}"
        );
    }
    let longest = help.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest <= 100, "a line of {longest} columns in 100: {help}");

    let output = run_binary(vec![
        "http://127.0.0.1:9".to_owned(),
        "--lang=pt-BR".to_owned(),
        "--burts".to_owned(),
        "5".to_owned(),
    ])
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(2),
        "a mistyped flag exits 2 (bad usage): it ended with {:?}\n{stderr}",
        output.status
    );
    for said in [
        "erro: argumento inesperado '--burts'",
        "Uso: idempotency-probe",
        "tente '--help'",
    ] {
        assert!(stderr.contains(said), "the error lacks {said:?}:\n{stderr}");
    }
    let output = run_binary(vec![
        "http://127.0.0.1:9".to_owned(),
        "--lang=pt-BR".to_owned(),
        "--report".to_owned(),
        "yaml".to_owned(),
    ])
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(2)
            && stderr
                .contains("não há formato de relatório \"yaml\": table, markdown, json ou junit"),
        "an unknown --report is refused in Portuguese, exit 2: {:?}\n{stderr}",
        output.status
    );
}

/// Stage 3's known-wrong server (three commits, no transaction) probed under the
/// pseudo-locale (`--lang en-XA`, l10n's): every word the probe prints comes
/// from its catalogue, between the markers, while the JSON and JUnit reports'
/// identifiers (check ids, verdict codes, message keys, the test cases' names)
/// stay what they are in every language.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wrong_server_probed_under_the_pseudo_locale_says_every_word_from_the_catalogue() {
    let db = TestDb::create(reference_schema()).await;
    let addr = serve_shape(&db, Shape::NoTransaction).await;
    let (json, junit) = (
        ReportFile::new("pseudo-locale", "json"),
        ReportFile::new("pseudo-locale", "xml"),
    );
    let mut args = counted(
        vec![format!("http://{addr}")],
        &db,
        &["--lang", "en-XA", "--verbose"],
    );
    args.extend(json.flag("json"));
    args.extend(junit.flag("junit"));
    let output = run_binary(args).await;
    let printed = format!(
        "{}\n{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.code() == Some(1),
        "the wrong server fails a check, so the probe exits 1: it ended with {:?} and printed\n{printed}",
        output.status
    );
    // Each stream apart: a marker cut in one says nothing of the other.
    let unmarked: Vec<_> = [
        stdout(&output),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    ]
    .iter()
    .flat_map(|stream| l10n::pseudo::unmarked_prose(stream))
    .collect();
    assert!(
        unmarked.is_empty(),
        "the probe printed prose that its catalogue does not say (outside [!! !!]):\n{}\n\nThe whole \
         output:\n{printed}",
        unmarked
            .iter()
            .map(|u| format!("  line {}: {:?} in {:?}", u.line, u.words, u.text))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // `--help` under the pseudo-locale: every word of it from a catalogue, the
    // probe's or clap's (l10n's cli).
    let help = run_binary(vec![
        "--lang".to_owned(),
        "en-XA".to_owned(),
        "--help".to_owned(),
    ])
    .await;
    let help = format!(
        "{}\n{}",
        stdout(&help),
        String::from_utf8_lossy(&help.stderr)
    );
    let unmarked = l10n::pseudo::unmarked_prose(&help);
    assert!(
        unmarked.is_empty(),
        "--help printed prose that no catalogue says (outside [!! !!]):\n{}\n\nThe whole \
         help:\n{help}",
        unmarked
            .iter()
            .map(|u| format!("  line {}: {:?} in {:?}", u.line, u.words, u.text))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let report = json.json();
    reports::assert_valid_json(&report);
    let names: Vec<&str> = probe::CHECKS.iter().map(|c| c.name).collect();
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .map(|c| c["id"].as_str().unwrap_or("?"))
        .collect();
    assert!(
        ids == names,
        "the JSON report's check ids are identifiers, the same in every language: {ids:?}"
    );
    let verdicts = verdicts_of(&report);
    assert!(
        verdicts.contains(&"different-body=fail".to_owned())
            && verdicts.iter().all(|v| {
                ["=pass", "=warn", "=fail", "=skipped"]
                    .iter()
                    .any(|code| v.ends_with(code))
            }),
        "the verdict codes are identifiers, the same in every language (and three commits with \
         no transaction replay the first answer to another body): {verdicts:?}"
    );
    let (_, cases) = reports::junit(&junit.text());
    assert!(
        cases
            .iter()
            .any(|c| c.name == "burst: concurrent requests, one key: one effect, one answer"),
        "the JUnit test cases are named in English in every language (CI tracks a test by its \
         name): {cases:?}"
    );
}
