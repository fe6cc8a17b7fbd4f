//! The source article's two tables, in its five languages, from runs of the servers
//! of servers/: "the result, in the five languages" (payments, answers, the same key
//! with another valor, and what the second-connection variant does with a pool of
//! 10; Go's and Java's with a pool of 1, see servers/start.sh) and "what changes from
//! one language to the next" (how the INSERT's rows
//! affected are read, where the stored answer is read, and the probe's verdicts).
//!
//! Each cell is either a verdict of a run or a fact of a server's code: a code cell
//! names the line it stands for, and the table is not written when that line is no
//! longer in the file (see [`Backed`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::TestDb;
use probe::{CheckId, Report, Role, Said, Verdict};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::server::external::{ExternalServer, article_schema, servers_dir};
use crate::{Lang, TablesError};

/// How long the variant's burst waits for its answers: past the 30 s after which the
/// TypeScript and Java pools give up on a connection.
pub const VARIANT_PATIENCE: Duration = Duration::from_secs(40);

/// The requests of the variant's burst, all with one key.
const VARIANT_BURST: usize = 20;

/// A cell that states a fact of a server's code: `text` in the table (`pt` in the
/// Portuguese one), true as long as `file` (from the repository's root) holds `line`.
pub struct Backed {
    pub text: &'static str,
    pub pt: &'static str,
    pub file: &'static str,
    pub line: &'static str,
}

/// A language of the article, and the servers of servers/ that run it here.
pub struct Language {
    pub name: &'static str,
    /// The correct server, by the name servers/start.sh takes; `Err`: not run here,
    /// with the reason (in English and in Portuguese).
    pub server: Result<&'static str, (&'static str, &'static str)>,
    /// The server that reads the stored answer through a second connection.
    pub second_connection: Option<(&'static str, Backed)>,
    pub rows_affected: Backed,
    pub stored_answer: Backed,
}

/// The file of a cell that only the article's code backs (its C# version).
const ARTICLE: &str = "the article";

pub const LANGUAGES: &[Language] = &[
    Language {
        name: "TypeScript",
        server: Ok("typescript"),
        second_connection: Some((
            "typescript-wrong",
            Backed {
                text: "`pool.query` after `ROLLBACK`, before `release()`",
                pt: "`pool.query` depois do `ROLLBACK`, antes do `release()`",
                file: "servers/typescript/src/pagamentos-errado.ts",
                line: "return await respostaGuardada(pool, chave, hash);",
            },
        )),
        rows_affected: Backed {
            text: "`rowCount`",
            pt: "`rowCount`",
            file: "servers/typescript/src/pagamentos.ts",
            line: "if (nova.rowCount === 0) {",
        },
        stored_answer: Backed {
            text: "on the same connection, after `ROLLBACK`",
            pt: "na mesma conexão, depois do `ROLLBACK`",
            file: "servers/typescript/src/pagamentos.ts",
            line: "return await respostaGuardada(conexao, chave, hash);",
        },
    },
    Language {
        name: "Python",
        server: Ok("python"),
        second_connection: None,
        rows_affected: Backed {
            text: "`cursor.rowcount`",
            pt: "`cursor.rowcount`",
            file: "servers/python/pagamentos.py",
            line: ").rowcount",
        },
        stored_answer: Backed {
            text: "on the same connection, after the transaction block",
            pt: "na mesma conexão, depois do bloco da transação",
            file: "servers/python/pagamentos.py",
            line: "linha = buscar_chave(conexao, chave)",
        },
    },
    Language {
        name: "Go",
        server: Ok("go"),
        second_connection: Some((
            "go-wrong",
            Backed {
                text: "`db.QueryRowContext` before `tx.Rollback()`",
                pt: "`db.QueryRowContext` antes do `tx.Rollback()`",
                file: "servers/go/pagamentos_errado.go",
                line: "return respostaGuardada(ctx, db, chave, hash) // THE BUG",
            },
        )),
        rows_affected: Backed {
            text: "`RowsAffected()`",
            pt: "`RowsAffected()`",
            file: "servers/go/pagamentos.go",
            line: "n, err := res.RowsAffected()",
        },
        stored_answer: Backed {
            text: "`db.QueryRowContext`, after `tx.Rollback()` has given the connection back",
            pt: "`db.QueryRowContext`, depois de o `tx.Rollback()` ter devolvido a conexão",
            file: "servers/go/pagamentos.go",
            line: "if err := tx.Rollback(); err != nil {",
        },
    },
    Language {
        name: "Java",
        server: Ok("java"),
        second_connection: Some((
            "java-wrong",
            Backed {
                text: "a second `getConnection()` while holding the first",
                pt: "um segundo `getConnection()` enquanto segura o primeiro",
                file: "servers/java/src/PagamentosErrado.java",
                line: "try (Connection outra = dados.getConnection()) {",
            },
        )),
        rows_affected: Backed {
            text: "the return of `executeUpdate()`",
            pt: "o retorno de `executeUpdate()`",
            file: "servers/java/src/Pagamentos.java",
            line: "nova = insercao.executeUpdate();",
        },
        stored_answer: Backed {
            text: "on the same connection, after `rollback()`",
            pt: "na mesma conexão, depois do `rollback()`",
            file: "servers/java/src/Pagamentos.java",
            line: "return respostaGuardada(conexao, chave, hash);",
        },
    },
    Language {
        name: "C#",
        server: Err((
            "not run here: Npgsql is published only on NuGet, which these machines do not \
             reach, and Debian packages no .NET SDK (only Mono 6.8, without Npgsql)",
            "não executado aqui: o Npgsql só é publicado no NuGet, que estas máquinas não \
             alcançam, e o Debian não empacota nenhum SDK .NET (só o Mono 6.8, sem Npgsql)",
        )),
        second_connection: None,
        rows_affected: Backed {
            text: "the return of `ExecuteNonQueryAsync()` (the article's code)",
            pt: "o retorno de `ExecuteNonQueryAsync()` (o código do artigo)",
            file: ARTICLE,
            line: "ExecuteNonQueryAsync() == 1",
        },
        stored_answer: Backed {
            text: "on the same connection, after the transaction is disposed (the article's code)",
            pt: "na mesma conexão, depois de a transação ser descartada (o código do artigo)",
            file: ARTICLE,
            line: "// A chave já existia: devolve a resposta guardada",
        },
    },
];

impl Backed {
    /// The cell in `lang`; `Err` naming the file and the line when the code no
    /// longer says this.
    fn checked(&self, lang: Lang) -> Result<&'static str, TablesError> {
        if self.file == ARTICLE {
            // The article is not in the repository: its cells cite it.
            return Ok(lang.t(self.text, self.pt));
        }
        let text = std::fs::read_to_string(servers_dir().join("..").join(self.file)).map_err(
            |source| TablesError::CannotRead {
                file: self.file,
                source,
            },
        )?;
        if text.contains(self.line) {
            Ok(lang.t(self.text, self.pt))
        } else {
            Err(TablesError::CodeChanged {
                file: self.file,
                line: self.line,
                cell: self.text,
            })
        }
    }
}

/// What a burst of [`VARIANT_BURST`] requests with one key got, waiting up to
/// [`VARIANT_PATIENCE`]: each request's status (`None`: no answer) and when the last
/// answer came.
pub struct VariantBurst {
    statuses: Vec<Option<u16>>,
    last_answer: Duration,
}

impl VariantBurst {
    /// "late 5xx", "hung" or "fine": what a client of this server sees. A 5xx comes
    /// first: it says the pool gave up on a connection, which ends the deadlock in
    /// errors. A request may still be waiting then (on a pool of one, the request that
    /// takes the connection a timeout freed waits its own 30 s for a second one), and
    /// whether one is depends on when the server got to it: the figures show it.
    fn verdict(&self, lang: Lang) -> &'static str {
        if self.statuses.iter().flatten().any(|s| *s >= 500) {
            lang.t("late 5xx", "5xx tardio")
        } else if self.statuses.iter().any(Option::is_none) {
            lang.t("hung", "travou")
        } else {
            lang.t("fine", "tudo certo")
        }
    }

    fn figures(&self, lang: Lang) -> String {
        let mut tally: Vec<(String, usize)> = Vec::new();
        for status in &self.statuses {
            let status = status.map_or(lang.t("unanswered", "sem resposta").to_owned(), |s| {
                s.to_string()
            });
            match tally.iter_mut().find(|(s, _)| *s == status) {
                Some((_, n)) => *n += 1,
                None => tally.push((status, 1)),
            }
        }
        tally.sort();
        let tally: Vec<String> = tally.iter().map(|(s, n)| format!("{s} ×{n}")).collect();
        let last = lang.number(self.last_answer.as_secs_f64(), 1);
        match lang {
            Lang::En => format!("{}, the last answer after {last} s", tally.join(", ")),
            Lang::PtBr => format!("{}, a última resposta depois de {last} s", tally.join(", ")),
        }
    }
}

/// A second-connection variant, started on a database of its own.
pub struct Variant {
    server: ExternalServer,
    _db: TestDb,
}

impl Variant {
    /// Starts `name` (servers/start.sh) and waits until it listens.
    pub async fn start(name: &str) -> Result<Self, TablesError> {
        let db = TestDb::create(article_schema()).await;
        let server = ExternalServer::start(&servers_dir(), name, &db.url())?;
        Ok(Self { server, _db: db })
    }

    /// Sends the variant's burst and waits for its answers, then stops the server
    /// (before its database is dropped).
    pub async fn burst(self) -> Result<VariantBurst, TablesError> {
        let port = self.server.port;
        let started = Instant::now();
        let gate = Arc::new(tokio::sync::Barrier::new(VARIANT_BURST));
        let requests: Vec<_> = (0..VARIANT_BURST)
            .map(|_| {
                let gate = Arc::clone(&gate);
                tokio::spawn(async move {
                    let answer = tokio::time::timeout(VARIANT_PATIENCE, post(port, &gate)).await;
                    (answer.ok().flatten(), started.elapsed())
                })
            })
            .collect();
        let mut burst = VariantBurst {
            statuses: Vec::new(),
            last_answer: Duration::ZERO,
        };
        for request in requests {
            let (status, at) = request.await.map_err(|source| TablesError::Task {
                what: "a request's task".to_owned(),
                source,
            })?;
            if status.is_some() {
                burst.last_answer = burst.last_answer.max(at);
            }
            burst.statuses.push(status);
        }
        drop(self.server);
        Ok(burst)
    }
}

/// One `POST /pagamentos` with the burst's key, its head sent at once and its body
/// once every request of the burst has sent its head (as the probe's burst does): the
/// bodies arrive together. Its status, or `None` if the connection failed or closed
/// first.
async fn post(port: u16, gate: &tokio::sync::Barrier) -> Option<u16> {
    let body = r#"{"pedidoId": 1, "valor": 100}"#;
    let head = format!(
        "POST /pagamentos HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Idempotency-Key: variante-segunda-conexao\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = match TcpStream::connect(("127.0.0.1", port)).await {
        Ok(mut stream) => stream
            .write_all(head.as_bytes())
            .await
            .ok()
            .map(|()| stream),
        Err(_) => None,
    };
    // Every request passes the gate, sent or not, so that none waits for ever.
    gate.wait().await;
    let stream = stream.as_mut()?;
    stream.write_all(body.as_bytes()).await.ok()?;
    let mut status_line = [0u8; 12]; // "HTTP/1.1 201"
    stream.read_exact(&mut status_line).await.ok()?;
    std::str::from_utf8(&status_line[9..12]).ok()?.parse().ok()
}

/// The probe's verdicts in a few words: "passes every check" or "fails burst, hang".
fn verdicts(lang: Lang, report: &Report) -> String {
    let failed = report.with_verdict(Verdict::Fail);
    if failed.is_empty() && report.with_verdict(Verdict::Warn).is_empty() {
        return lang
            .t("passes every check", "passa em todas as verificações")
            .to_owned();
    }
    let names: Vec<String> = failed.iter().map(CheckId::to_string).collect();
    format!("{} {}", lang.t("fails", "falha em"), names.join(", "))
}

/// The burst's payments, as counted.
fn payments(report: &Report) -> Option<i64> {
    Some(report.check(CheckId::Burst)?.effects?.created)
}

/// The status the same key with another valor got.
fn other_valor(lang: Lang, report: &Report) -> String {
    report
        .check(CheckId::DifferentBody)
        .filter(|c| c.verdict != Verdict::Skipped)
        .and_then(|c| c.answers.iter().find(|s| s.role == Role::OtherBody))
        .and_then(|s| s.status())
        .map_or(lang.t("not run", "não executada").to_owned(), |status| {
            status.to_string()
        })
}

/// "20 × 201, the same payment" when the burst passed; otherwise what went wrong
/// (in the probe's own words, English, when it is none of these).
fn answers(lang: Lang, report: &Report) -> String {
    let Some(burst) = report.check(CheckId::Burst) else {
        return lang.t("not run", "não executada").to_owned();
    };
    match burst.why.first() {
        Some(Said::BurstPassed { size, status }) if burst.verdict == Verdict::Pass => format!(
            "{size} × {status}, {}",
            lang.t("the same payment", "o mesmo pagamento")
        ),
        Some(Said::ManyIds { .. }) => lang
            .t(
                "201s with different payments",
                "201s com pagamentos diferentes",
            )
            .to_owned(),
        _ => burst.why_text(),
    }
}

/// The two tables in `lang`, with the reports of the probe runs by server name, and
/// the variant's bursts by server name. The figures that vary go under the tables.
pub fn tables(
    lang: Lang,
    reports: &[(&str, Report)],
    variants: &[(&str, VariantBurst)],
) -> Result<String, TablesError> {
    let report = |name: &str| {
        reports
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, r)| r)
            .ok_or_else(|| TablesError::NoProbeRun(name.to_owned()))
    };
    let variant = |name: &str| {
        variants
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| TablesError::NoVariantBurst(name.to_owned()))
    };
    let mut out = String::from(
        "<!-- Generated by `just probe-results` (crates/probe/examples/article/languages.rs)\n     \
         from runs of the servers of servers/. Do not edit; `just book-check` checks that a\n     \
         fresh run gives the same tables (the figures under them vary, and are not compared). -->\n\n",
    );
    out.push_str("<!-- ANCHOR: results -->\n");
    let patience = VARIANT_PATIENCE.as_secs();
    out.push_str(&match lang {
        Lang::En => format!(
            "| language | payments, 20 requests with one key | answers | same key, another `valor` \
             | a second connection asked for while holding one, pool of 10 (Go, Java: 1), {VARIANT_BURST} \
             requests waited on for {patience} s |\n|---|---|---|---|---|\n"
        ),
        Lang::PtBr => format!(
            "| linguagem | pagamentos, 20 pedidos com uma chave | respostas | mesma chave, outro \
             `valor` | uma segunda conexão pedida enquanto segura uma, pool de 10 (Go, Java: 1), \
             {VARIANT_BURST} pedidos esperados por {patience} s |\n|---|---|---|---|---|\n"
        ),
    });
    let mut figures = Vec::new();
    for language in LANGUAGES {
        let server = match language.server {
            Ok(server) => server,
            Err((en, pt)) => {
                out.push_str(&format!(
                    "| {} | {} | | | |\n",
                    language.name,
                    lang.t(en, pt)
                ));
                continue;
            }
        };
        let probed = report(server)?;
        let paid = payments(probed)
            .map_or(lang.t("not counted", "não contados").to_owned(), |n| {
                n.to_string()
            });
        let variant_cell = match &language.second_connection {
            Some((wrong, _)) => {
                let burst = variant(wrong)?;
                figures.push(format!(
                    "- {}, {wrong}: {}",
                    language.name,
                    burst.figures(lang)
                ));
                burst.verdict(lang).to_owned()
            }
            None => lang
                .t(
                    "not written (its wrong server checks, then writes)",
                    "não escrita (o servidor errado dele confere e depois grava)",
                )
                .to_owned(),
        };
        out.push_str(&format!(
            "| {} | {paid} | {} | {} | {variant_cell} |\n",
            language.name,
            answers(lang, probed),
            other_valor(lang, probed)
        ));
    }
    let naive = report("python-wrong")?;
    let naive_paid = match payments(naive) {
        Some(1) => "1".to_owned(),
        Some(_) => lang.t("more than 1", "mais de 1").to_owned(),
        None => lang.t("not counted", "não contados").to_owned(),
    };
    let naive_figure = payments(naive)
        .map_or(lang.t("uncounted", "não contados").to_owned(), |n| {
            n.to_string()
        });
    figures.push(match lang {
        Lang::En => format!("- the naive version: {naive_figure} payments for one key"),
        Lang::PtBr => format!("- a versão ingênua: {naive_figure} pagamentos para uma chave"),
    });
    out.push_str(&format!(
        "| {} | {naive_paid} | {} | {} | |\n",
        lang.t(
            "the naive version, check then write (Python)",
            "a versão ingênua, conferir e depois gravar (Python)"
        ),
        answers(lang, naive),
        other_valor(lang, naive)
    ));
    out.push_str(&match lang {
        Lang::En => format!(
            "\nFigures that vary from run to run, from the run that wrote this page: what the \
             second-connection variant's {VARIANT_BURST} requests got within {patience} s, and \
             the naive version's payments.\n\n"
        ),
        Lang::PtBr => format!(
            "\nNúmeros que variam de uma execução para outra, da execução que escreveu esta \
             página: o que os {VARIANT_BURST} pedidos da variante da segunda conexão receberam \
             em {patience} s, e os pagamentos da versão ingênua.\n\n"
        ),
    });
    out.push_str(&figures.join("\n"));
    out.push('\n');
    out.push_str("<!-- ANCHOR_END: results -->\n\n<!-- ANCHOR: changes -->\n");
    out.push_str(lang.t(
        "| language | rows affected by the key's INSERT | where the stored answer is read | the probe | \
         the same read through a second connection | the probe on it |\n|---|---|---|---|---|---|\n",
        "| linguagem | linhas afetadas pelo INSERT da chave | onde a resposta guardada é lida | o probe | \
         a mesma leitura por uma segunda conexão | o probe nela |\n|---|---|---|---|---|---|\n",
    ));
    for language in LANGUAGES {
        let (probe_cell, wrong_cell, wrong_verdict) = match language.server {
            Ok(server) => {
                let (wrong, wrong_verdict) = match &language.second_connection {
                    Some((name, read)) => (read.checked(lang)?, verdicts(lang, report(name)?)),
                    None => (lang.t("not written", "não escrita"), String::new()),
                };
                (verdicts(lang, report(server)?), wrong, wrong_verdict)
            }
            Err(_) => (
                lang.t("not run here", "não executado aqui").to_owned(),
                "",
                String::new(),
            ),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {probe_cell} | {wrong_cell} | {wrong_verdict} |\n",
            language.name,
            language.rows_affected.checked(lang)?,
            language.stored_answer.checked(lang)?,
        ));
    }
    out.push_str("<!-- ANCHOR_END: changes -->\n");
    Ok(out)
}
