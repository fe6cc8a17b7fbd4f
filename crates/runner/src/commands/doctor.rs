//! `workbook doctor`: which PostgreSQL the tests will use and why, what this
//! machine has, and the fix for each missing thing.

use std::process::Command;

use sqlx::{Connection, Row};

use crate::environment::{Launcher, command};
use crate::error::Error;
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;

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

fn missing(text: &str, fix: &str) {
    line(ui::bad(ui::FAIL), text);
    println!("{}", ui::wrap(&format!("fix: {fix}"), 4));
}

/// Missing, but another way works: worth knowing, not an error.
fn not_needed(text: &str, fix: &str) {
    info(text);
    println!("{}", ui::wrap(&format!("(to use it: {fix})"), 4));
}

/// Prints the report; false when no server could be had.
pub fn run(wb: &Workbook) -> Result<bool, Error> {
    println!(
        "{}",
        console::style(format!("Workbook at {}", wb.root.display())).bold()
    );
    ui::heading("Where the tests would find PostgreSQL, in the harness's order");
    let forced = std::env::var("WORKBOOK_DB")
        .ok()
        .filter(|v| !v.trim().is_empty());
    match forced.as_deref().map(str::trim) {
        None => info(
            "WORKBOOK_DB is not set: the harness chooses (DATABASE_URL, then Docker, then local binaries).",
        ),
        Some(v @ ("url" | "container" | "local")) => {
            info(&format!("WORKBOOK_DB={v}: the harness uses only that way."));
        }
        Some(other) => missing(
            &format!("WORKBOOK_DB={other:?} is not one of url, container, local."),
            "unset WORKBOOK_DB, or set it to url, container or local",
        ),
    }
    let url = std::env::var("DATABASE_URL")
        .ok()
        .filter(|v| !v.trim().is_empty());
    match &url {
        Some(url) => ok(&format!(
            "1. DATABASE_URL is set ({})",
            postgres_provisioning::redact(url)
        )),
        None => info("1. DATABASE_URL is not set (optional: set it to use a server of your own)."),
    }
    let docker = postgres_provisioning::engine();
    let binaries = postgres_provisioning::find_binaries();
    let account = postgres_provisioning::server_account();
    let local_works = binaries.is_ok() && account.is_ok();
    match &docker {
        Ok(engine) => {
            ok(&format!("2. Container engine: {engine} answers"));
            container_details(engine);
        }
        Err(why) => {
            let fix = "start a Docker engine, or Podman, Colima, ... (`docker info` must answer)";
            if url.is_some() || local_works {
                not_needed(&format!("2. Container engine: {why}"), fix);
            } else {
                missing(&format!("2. Container engine: {why}"), fix);
            }
        }
    }
    match &binaries {
        Ok(b) => ok(&format!(
            "3. Local binaries: initdb and postgres in {} (found by {})",
            b.bindir.display(),
            b.found_by
        )),
        Err(why) => {
            let fix = "install PostgreSQL's server: `apt-get install postgresql` (Debian/Ubuntu), \
                       `brew install postgresql@15` (macOS)";
            if url.is_some() || docker.is_ok() {
                not_needed(&format!("3. {why}"), fix);
            } else {
                missing(&format!("3. {why}"), fix);
            }
        }
    }
    if binaries.is_ok() {
        match &account {
            Ok(None) => ok("   Not root: the local server runs as you."),
            Ok(Some(user)) => ok(&format!(
                "   Running as root, which PostgreSQL refuses: the harness runs the server as user `{user}`."
            )),
            Err(why) => missing(&format!("   {why}"), "useradd --system postgres"),
        }
    }

    let choice = match forced.as_deref().map(str::trim) {
        Some("url") => "DATABASE_URL, because WORKBOOK_DB=url".to_owned(),
        Some("container") => "a Docker container, because WORKBOOK_DB=container".to_owned(),
        Some("local") => "a throwaway local cluster, because WORKBOOK_DB=local".to_owned(),
        Some(_) => "nothing until WORKBOOK_DB is fixed".to_owned(),
        _ if url.is_some() => "the server at DATABASE_URL, because it is set".to_owned(),
        _ if docker.is_ok() => {
            "a Docker container, because DATABASE_URL is not set and Docker answers".to_owned()
        }
        _ if binaries.is_ok() && account.is_ok() => {
            "a throwaway local cluster, because DATABASE_URL is not set and Docker does not answer"
                .to_owned()
        }
        _ => "nothing: none of the three ways is available".to_owned(),
    };
    let decision = ui::wrap(&format!("→ The tests will use {choice}."), 0);
    let rest = decision
        .strip_prefix("→ The tests will use")
        .unwrap_or(&decision);
    println!("\n{}{rest}", console::style("→ The tests will use").bold());

    ui::heading("Starting it, as the tests would");
    let mut spinner = Spinner::new();
    spinner.phase("Starting PostgreSQL");
    // Outside CI, `stage N` keeps its container between runs: so does this.
    if crate::environment::container_is_kept() {
        postgres_provisioning::keep_container();
    }
    let backend = postgres_provisioning::backend();
    spinner.finish();
    let backend = match backend {
        Ok(b) => b,
        Err(no_server) => {
            println!("{} {no_server}", ui::bad(ui::FAIL));
            tools();
            return Ok(false);
        }
    };
    ok(&backend.description);
    headroom(backend)?;
    tools();
    Ok(true)
}

/// The image the tests would run, and the kept container.
fn container_details(engine: &postgres_provisioning::Engine) {
    let image = postgres_provisioning::pg_image();
    let chosen = if image == postgres_provisioning::DEFAULT_IMAGE {
        "the default"
    } else {
        "from WORKBOOK_PG_IMAGE"
    };
    match engine.has_image(&image) {
        Ok(true) => ok(&format!("   Image {image} ({chosen}) is here.")),
        Ok(false) => info(&format!(
            "   Image {image} ({chosen}) is not here yet: the first run pulls it. Without a \
             registry, {} builds workbook-postgres:15 from Debian packages; \
             WORKBOOK_PG_IMAGE=workbook-postgres:15 uses it.",
            match Launcher::current() {
                Launcher::Just => "`just docker-image`",
                Launcher::Cargo => "`docker/build-image.sh`",
            }
        )),
        Err(why) => missing(&format!("   Image {image}: {why}"), "check the engine"),
    }
    match postgres_provisioning::kept_container(engine) {
        Ok(Some(kept)) => ok(&format!(
            "   Kept container: {kept}; {} reuses it, {} removes it.",
            command("stage N"),
            command("db-stop")
        )),
        Ok(None) => info(&format!(
            "   No kept container: the next {} starts {} and keeps it between runs \
             (plain `cargo test` and CI use throwaway containers).",
            command("stage N"),
            postgres_provisioning::KEPT_CONTAINER
        )),
        Err(why) => missing(&format!("   Kept container: {why}"), "check the engine"),
    }
}

/// `workbook db-stop`: removes the container kept between runs.
pub fn db_stop() -> Result<bool, Error> {
    let engine = match postgres_provisioning::engine() {
        Ok(engine) => engine,
        Err(why) => {
            println!("No container engine answers ({why}): no kept container to remove.");
            return Ok(true);
        }
    };
    match postgres_provisioning::remove_kept_container(&engine) {
        Ok(true) => println!(
            "Removed {} ({engine}). The next {} starts a new one.",
            postgres_provisioning::KEPT_CONTAINER,
            command("stage N")
        ),
        Ok(false) => println!(
            "No {} to remove ({engine}).",
            postgres_provisioning::KEPT_CONTAINER
        ),
        Err(why) => {
            println!("{} {why}", ui::bad(ui::FAIL));
            return Ok(false);
        }
    }
    Ok(true)
}

fn headroom(backend: &postgres_provisioning::Backend) -> Result<(), Error> {
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
            let line = format!(
                "max_connections = {max}: {used} in use (this check included), {reserved} reserved \
                 for superusers, so {free} free; the tests open up to about {need} at once \
                 ({CONNECTIONS_PER_TEST} per test × {threads} tests in parallel)"
            );
            if free >= need {
                ok(&line);
            } else {
                missing(
                    &line,
                    "raise max_connections on that server, close other clients, or run fewer tests \
                     at once: RUST_TEST_THREADS=1",
                );
            }
        }
        Err(e) => missing(
            &format!("max_connections = {max}, but counting the connections in use failed: {e}"),
            "check that the server accepts connections from this user",
        ),
    }
    Ok(())
}

/// The other tools the workbook's commands use.
fn tools() {
    ui::heading("Tools");
    match version("git", &["--version"]) {
        Some(v) => ok(&format!("{v} ({} uses it)", command("reset N"))),
        None => missing("git is not on PATH", "install git (`apt-get install git`)"),
    }
    // Optional: every command also runs as `cargo workbook ...`.
    match version("just", &["--version"]) {
        Some(v) => ok(&format!(
            "{v} (optional: `just stage 1` = `cargo workbook stage 1`)"
        )),
        None => not_needed(
            "just is not installed (optional: every command runs as `cargo workbook ...`)",
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
