//! `workbook doctor`: which PostgreSQL the tests will use and why, what this
//! machine has, and the fix for each missing thing.

use std::process::Command;

use sqlx::{Connection, Row};

use crate::environment::{Launcher, command};
use crate::error::Error;
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;
use l10n::Localiser;
use l10n::t;

/// The just the workbook is tested with (the justfile's syntax needs it or newer).
const JUST_VERSION: &str = "1.59.0";

/// The biggest burst a stage fires, plus the test's own connections.
const CONNECTIONS_PER_TEST: u32 = 22;

fn line(mark: String, text: &str) {
    let wrapped = ui::wrap(text, 2);
    println!("{mark}{}", wrapped.get(1..).unwrap_or(""));
}

fn ok(text: &str) {
    line(ui::good(ui::PASS), text);
}

fn info(text: &str) {
    line(console::style("·").dim().to_string(), text);
}

fn missing(l: &Localiser, text: &str, fix: &str) {
    line(ui::bad(ui::FAIL), text);
    println!("{}", ui::wrap(&t!(l, "doctor-fix", fix = fix), 4));
}

/// Missing, but another way works: worth knowing, not an error.
fn not_needed(l: &Localiser, text: &str, fix: &str) {
    info(text);
    println!("{}", ui::wrap(&t!(l, "doctor-to-use-it", fix = fix), 4));
}

/// Prints the report; false when no server could be had.
pub fn run(wb: &Workbook) -> Result<bool, Error> {
    let l = &wb.l10n;
    println!(
        "{}",
        console::style(t!(
            l,
            "doctor-workbook-at",
            root = wb.root.display().to_string()
        ))
        .bold()
    );
    ui::heading(&t!(l, "doctor-where-heading"));
    let forced = std::env::var("WORKBOOK_DB")
        .ok()
        .filter(|v| !v.trim().is_empty());
    match forced.as_deref().map(str::trim) {
        None => info(&t!(l, "doctor-db-unset")),
        Some(v @ ("url" | "container" | "local")) => {
            info(&t!(l, "doctor-db-forced", value = v));
        }
        Some(other) => missing(
            l,
            &t!(l, "doctor-db-unknown", value = format!("{other:?}")),
            &t!(l, "doctor-db-unknown-fix"),
        ),
    }
    let url = std::env::var("DATABASE_URL")
        .ok()
        .filter(|v| !v.trim().is_empty());
    match &url {
        Some(url) => ok(&t!(
            l,
            "doctor-url-set",
            url = postgres_provisioning::redact(url)
        )),
        None => info(&t!(l, "doctor-url-unset")),
    }
    let docker = postgres_provisioning::engine();
    let binaries = postgres_provisioning::find_binaries();
    let account = postgres_provisioning::server_account();
    let local_works = binaries.is_ok() && account.is_ok();
    match &docker {
        Ok(engine) => {
            ok(&t!(l, "doctor-engine-answers", engine = engine.to_string()));
            container_details(l, engine);
        }
        Err(why) => {
            let fix = t!(l, "doctor-engine-fix");
            let text = t!(l, "doctor-engine-missing", why = why.to_string());
            if url.is_some() || local_works {
                not_needed(l, &text, &fix);
            } else {
                missing(l, &text, &fix);
            }
        }
    }
    match &binaries {
        Ok(b) => ok(&t!(
            l,
            "doctor-binaries",
            dir = b.bindir.display().to_string(),
            found_by = b.found_by.to_string()
        )),
        Err(why) => {
            let fix = t!(l, "doctor-binaries-fix");
            if url.is_some() || docker.is_ok() {
                not_needed(l, &format!("3. {why}"), &fix);
            } else {
                missing(l, &format!("3. {why}"), &fix);
            }
        }
    }
    if binaries.is_ok() {
        match &account {
            Ok(None) => ok(&format!("   {}", t!(l, "doctor-not-root"))),
            Ok(Some(user)) => ok(&format!(
                "   {}",
                t!(l, "doctor-root", user = user.to_string())
            )),
            Err(why) => missing(l, &format!("   {why}"), "useradd --system postgres"),
        }
    }

    let choice = match forced.as_deref().map(str::trim) {
        Some("url") => t!(l, "doctor-use-forced-url"),
        Some("container") => t!(l, "doctor-use-forced-container"),
        Some("local") => t!(l, "doctor-use-forced-local"),
        Some(_) => t!(l, "doctor-use-nothing-until-fixed"),
        _ if url.is_some() => t!(l, "doctor-use-url"),
        _ if docker.is_ok() => t!(l, "doctor-use-container"),
        _ if binaries.is_ok() && account.is_ok() => t!(l, "doctor-use-local"),
        _ => t!(l, "doctor-use-nothing"),
    };
    // The lead words in bold: the decision is found at a glance.
    let lead = format!("→ {}", t!(l, "doctor-will-use"));
    let decision = ui::wrap(&format!("{lead} {choice}."), 0);
    let rest = decision.strip_prefix(lead.as_str()).unwrap_or(&decision);
    println!("\n{}{rest}", console::style(&lead).bold());

    ui::heading(&t!(l, "doctor-starting-heading"));
    let mut spinner = Spinner::speaking(l);
    spinner.phase(&t!(l, "doctor-starting-phase"));
    // Outside CI, `stage N` keeps its container between runs: so does this.
    if crate::environment::container_is_kept() {
        postgres_provisioning::keep_container();
    }
    // The harness's own note ("harness: PostgreSQL ...") would be printed over the
    // spinner, then said again below: doctor says what it found, once.
    postgres_provisioning::listen(|_| {});
    let backend = postgres_provisioning::backend();
    spinner.finish();
    let backend = match backend {
        Ok(b) => b,
        Err(no_server) => {
            println!("{} {no_server}", ui::bad(ui::FAIL));
            tools(l);
            return Ok(false);
        }
    };
    ok(&backend.description);
    headroom(l, backend)?;
    tools(l);
    Ok(true)
}

/// The image the tests would run, and the kept container.
fn container_details(l: &Localiser, engine: &postgres_provisioning::Engine) {
    let image = postgres_provisioning::pg_image();
    let chosen = if image == postgres_provisioning::DEFAULT_IMAGE {
        t!(l, "doctor-image-default")
    } else {
        t!(l, "doctor-image-from-variable")
    };
    match engine.has_image(&image) {
        Ok(true) => ok(&format!(
            "   {}",
            t!(l, "doctor-image-here", image = &image, chosen = chosen)
        )),
        Ok(false) => info(&format!(
            "   {}",
            t!(
                l,
                "doctor-image-not-here",
                image = &image,
                chosen = chosen,
                build = match Launcher::current() {
                    Launcher::Just => "`just docker-image`",
                    Launcher::Cargo => "`docker/build-image.sh`",
                }
            )
        )),
        Err(why) => missing(
            l,
            &format!(
                "   {}",
                t!(
                    l,
                    "doctor-image-error",
                    image = &image,
                    why = why.to_string()
                )
            ),
            &t!(l, "doctor-check-engine"),
        ),
    }
    match postgres_provisioning::kept_container(engine) {
        Ok(Some(kept)) => ok(&format!(
            "   {}",
            t!(
                l,
                "doctor-kept",
                kept = kept.to_string(),
                stage = command("stage N"),
                stop = command("db-stop")
            )
        )),
        Ok(None) => info(&format!(
            "   {}",
            t!(
                l,
                "doctor-not-kept",
                stage = command("stage N"),
                container = postgres_provisioning::KEPT_CONTAINER
            )
        )),
        Err(why) => missing(
            l,
            &format!("   {}", t!(l, "doctor-kept-error", why = why.to_string())),
            &t!(l, "doctor-check-engine"),
        ),
    }
}

/// `workbook db-stop`: removes the container kept between runs.
pub fn db_stop(l: &Localiser) -> Result<bool, Error> {
    let engine = match postgres_provisioning::engine() {
        Ok(engine) => engine,
        Err(why) => {
            println!("{}", t!(l, "db-stop-no-engine", why = why.to_string()));
            return Ok(true);
        }
    };
    match postgres_provisioning::remove_kept_container(&engine) {
        Ok(true) => println!(
            "{}",
            t!(
                l,
                "db-stop-removed",
                container = postgres_provisioning::KEPT_CONTAINER,
                engine = engine.to_string(),
                stage = command("stage N")
            )
        ),
        Ok(false) => println!(
            "{}",
            t!(
                l,
                "db-stop-nothing",
                container = postgres_provisioning::KEPT_CONTAINER,
                engine = engine.to_string()
            )
        ),
        Err(why) => {
            println!("{} {why}", ui::bad(ui::FAIL));
            return Ok(false);
        }
    }
    Ok(true)
}

fn headroom(l: &Localiser, backend: &postgres_provisioning::Backend) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let threads = std::env::var("RUST_TEST_THREADS")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .or_else(|| {
            std::thread::available_parallelism()
                .ok()
                .and_then(|n| u32::try_from(n.get()).ok())
        })
        .unwrap_or(1);
    let need = CONNECTIONS_PER_TEST * threads;
    let measured = runtime.block_on(async {
        let mut conn = sqlx::PgConnection::connect_with(&backend.admin).await?;
        let row = sqlx::query(
            "SELECT current_setting('superuser_reserved_connections')::int AS reserved,
                    (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS used",
        )
        .fetch_one(&mut conn)
        .await?;
        let reserved: i32 = row.try_get("reserved")?;
        let used: i32 = row.try_get("used")?;
        conn.close().await?;
        Ok::<_, sqlx::Error>((reserved, used))
    });
    let max = backend.max_connections;
    match measured {
        Ok((reserved, used)) => {
            let reserved = u32::try_from(reserved).unwrap_or(0);
            let used = u32::try_from(used).unwrap_or(0);
            let free = max.saturating_sub(reserved).saturating_sub(used);
            let line = t!(
                l,
                "doctor-headroom",
                max = max,
                used = used,
                reserved = reserved,
                free = free,
                need = need,
                per_test = CONNECTIONS_PER_TEST,
                threads = threads
            );
            if free >= need {
                ok(&line);
            } else {
                missing(l, &line, &t!(l, "doctor-headroom-fix"));
            }
        }
        Err(e) => missing(
            l,
            &t!(
                l,
                "doctor-headroom-unknown",
                max = max,
                error = e.to_string()
            ),
            &t!(l, "doctor-headroom-unknown-fix"),
        ),
    }
    Ok(())
}

/// The other tools the workbook's commands use.
fn tools(l: &Localiser) {
    ui::heading(&t!(l, "doctor-tools-heading"));
    match version("git", &["--version"]) {
        Some(v) => ok(&t!(
            l,
            "doctor-git",
            version = v,
            reset = command("reset N")
        )),
        None => missing(l, &t!(l, "doctor-no-git"), &t!(l, "doctor-no-git-fix")),
    }
    // Optional: every command also runs as `cargo workbook ...`.
    match version("just", &["--version"]) {
        Some(v) => ok(&t!(l, "doctor-just", version = v)),
        None => not_needed(
            l,
            &t!(l, "doctor-no-just"),
            &format!("`cargo install --locked just@{JUST_VERSION}`"),
        ),
    }
}

fn version(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
