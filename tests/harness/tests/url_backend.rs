//! Servers that outlive a test process: a server of the user's own
//! (`DATABASE_URL`), what the harness leaves on it and what it says when it may
//! not create databases there; and the server a runner hands over, run after
//! run. The server here is this test process's own (local binaries or a
//! container), reached by URL or handed over to a child as the runner does.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use harness::provisioning::{HANDOVER_VAR, url_backend};
use harness::{TestDb, backend, reference_schema};
use sqlx::postgres::PgConnectOptions;
use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};

/// The child's cue: set, [`a_run_that_will_be_killed`] makes a database and waits.
const CHILD: &str = "WORKBOOK_TEST_KILLED_RUN";

/// A URL for `role` on this process's server.
fn url_for(role: &str, password: &str) -> String {
    let admin = &backend().expect("a server for the tests").admin;
    let port = admin.get_port();
    match admin.get_socket() {
        Some(socket) => format!(
            "postgresql://{role}:{password}@localhost:{port}/postgres?host={}",
            socket.display()
        ),
        None => format!(
            "postgresql://{role}:{password}@{}:{port}/postgres",
            admin.get_host()
        ),
    }
}

async fn admin() -> PgConnection {
    let options: &PgConnectOptions = &backend().expect("a server for the tests").admin;
    PgConnection::connect_with(options)
        .await
        .expect("connect to the server")
}

/// The databases on the server whose names carry process `pid` as their owner.
async fn databases_of(conn: &mut PgConnection, pid: u32) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT datname::text FROM pg_database WHERE datname ~ ('^wb_(test|tmpl)_[0-9a-f]{8}_' || $1 || '_') ORDER BY 1",
    )
    .bind(pid.to_string())
    .fetch_all(conn)
    .await
    .expect("list the databases")
}

/// Not a test of its own: the run that the test below kills. Without its cue it
/// does nothing.
#[tokio::test]
async fn a_run_that_will_be_killed() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let _db = TestDb::create(reference_schema()).await;
    println!("ready");
    // Bounded: were the parent to die first, this run still ends.
    tokio::time::sleep(Duration::from_secs(60)).await;
}

/// The tests that kill a run take turns: each one's sweep would drop the other's
/// killed run's databases before that test counts them.
static KILLING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs [`a_run_that_will_be_killed`] in a child process with `env`, kills it
/// with `kill -9` once its database is made, and returns its process id after
/// checking that it left its template and its test database behind.
async fn kill_a_run(env: &[(&str, &str)]) -> u32 {
    let mut child = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "a_run_that_will_be_killed", "--nocapture"])
        .env(CHILD, "1")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the run to kill");
    let stdout = child.stdout.take().expect("the child's stdout");
    let (ready, cue) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line == "ready" {
                let _ = ready.send(());
            }
        }
    });
    let made = cue.recv_timeout(Duration::from_secs(30));
    child.kill().expect("kill -9 the run");
    let _ = child.wait();
    made.expect("the run to kill made its database within 30 s");

    let mut conn = admin().await;
    let left = databases_of(&mut conn, child.id()).await;
    let _ = conn.close().await;
    assert_eq!(
        left.len(),
        2,
        "the killed run leaves its template and its test database: {left:?}"
    );
    child.id()
}

/// After the sweep: none of `killed`'s databases is left, and `mine` (a running
/// process's) still is.
async fn assert_swept(killed: u32, mine: &TestDb) {
    let mut conn = admin().await;
    let after = databases_of(&mut conn, killed).await;
    assert!(
        after.is_empty(),
        "the next run must drop the killed run's databases; left: {after:?}"
    );
    let alive: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_database WHERE datname = $1")
        .bind(mine.name())
        .fetch_one(&mut conn)
        .await
        .expect("look for this run's database");
    assert_eq!(alive, 1, "a running process's database must be left alone");
    let _ = conn.close().await;
}

#[tokio::test]
async fn the_next_run_drops_the_databases_a_killed_run_left_on_a_database_url() {
    let _turn = KILLING.lock().await;
    let mine = TestDb::create(reference_schema()).await;
    let url = url_for("postgres", "postgres");
    let killed = kill_a_run(&[("WORKBOOK_DB", "url"), ("DATABASE_URL", &url)]).await;

    // The next run, on the same server: it sweeps as it starts.
    url_backend(&url).await.expect("the server at the URL");
    assert_swept(killed, &mine).await;
}

#[tokio::test]
async fn the_runners_next_run_drops_the_databases_a_killed_test_process_left_on_its_server() {
    let _turn = KILLING.lock().await;
    let server = backend().expect("a server for the tests");
    let Some(handover) = server.handover() else {
        // A DATABASE_URL is never handed over: the test above is its case.
        eprintln!("DATABASE_URL is not handed over; see the test above");
        return;
    };
    let mine = TestDb::create(reference_schema()).await;
    // A test process of a watching runner, cancelled by a save: `kill -9`.
    let killed = kill_a_run(&[(HANDOVER_VAR, &handover)]).await;

    // What the runner's next run does on its server before its tests end.
    let dropped = server.drop_databases_of_dead_runs().await;
    assert!(
        dropped >= 2,
        "the sweep dropped {dropped} database(s), not the killed run's two"
    );
    assert_swept(killed, &mine).await;
}

#[tokio::test]
async fn a_role_without_createdb_is_told_how_to_get_it() {
    let role = format!("wb_no_createdb_{}", std::process::id());
    let mut conn = admin().await;
    conn.execute(AssertSqlSafe(format!(
        "CREATE ROLE {role} LOGIN PASSWORD 'secret' NOCREATEDB"
    )))
    .await
    .expect("create a role without CREATEDB");
    let refused = url_backend(&url_for(&role, "secret")).await;
    let _ = conn
        .execute(AssertSqlSafe(format!("DROP ROLE {role}")))
        .await;
    let _ = conn.close().await;
    let why = refused
        .expect_err("a role without CREATEDB cannot give each test a database")
        .to_string();
    assert!(
        why.contains(&format!(
            "the role {role} may not create databases (it lacks CREATEDB)"
        )),
        "{why}"
    );
    assert!(
        why.contains(&format!("ALTER ROLE \"{role}\" CREATEDB;")),
        "the message names the fix: {why}"
    );
}
