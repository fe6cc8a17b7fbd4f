//! The harness's primary and standby ([`harness::Pair`]): what they replicate, and
//! what each operation a failover test calls really does to them.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use harness::provisioning::LocalCluster;
use harness::replication::STANDBY_NAME;
use harness::{Pair, Schema, Server, ServerSettings};
use sqlx::Connection;

const TABLE: Schema = Schema::new("(the harness's test)", "CREATE TABLE t (x INT)");

const SYNCHRONOUS: ServerSettings = ServerSettings::new(
    "(the harness's test)",
    "synchronous_standby_names = 'FIRST 1 (standby1)'",
);

const ROWS: &str = "SELECT count(*) FROM t";

#[tokio::test]
async fn the_standby_replays_the_primary_until_its_stream_is_cut_and_again_once_restored() {
    let pair = Pair::start(ServerSettings::none(), TABLE).await;
    let sender = pair.primary_state().await.standbys;
    assert_eq!(
        sender
            .iter()
            .map(|s| (
                s.application_name.as_str(),
                s.state.as_str(),
                s.sync_state.as_str()
            ))
            .collect::<Vec<_>>(),
        [(STANDBY_NAME, "streaming", "async")],
        "the standby streams, asynchronously: no standby is named in synchronous_standby_names"
    );
    assert_eq!(
        pair.count(Server::Standby, ROWS).await,
        0,
        "the table made on the primary is on the standby once it caught up"
    );

    pair.execute(Server::Primary, "INSERT INTO t VALUES (1)")
        .await;
    pair.catch_up().await;
    assert_eq!(
        pair.count(Server::Standby, ROWS).await,
        1,
        "the standby has the primary's row once it has caught up"
    );

    pair.cut_stream().await;
    pair.execute(Server::Primary, "INSERT INTO t VALUES (2)")
        .await;
    let primary = pair.primary_state().await;
    let standby = pair.standby_state().await;
    assert!(
        primary.standbys.is_empty() && !standby.streaming,
        "nothing streams once the stream is cut: {primary}; {standby}"
    );
    assert!(
        standby.received < Some(primary.flushed),
        "the standby did not receive the second insert: {primary}; {standby}"
    );
    assert_eq!(
        (
            pair.count(Server::Primary, ROWS).await,
            pair.count(Server::Standby, ROWS).await
        ),
        (2, 1),
        "the primary has both rows, the standby the first only"
    );

    pair.restore_stream().await;
    pair.catch_up().await;
    assert_eq!(
        pair.count(Server::Standby, ROWS).await,
        2,
        "once the stream is back, the standby has what it missed"
    );
}

#[tokio::test]
async fn a_crashed_primary_loses_what_its_standby_had_not_received_and_the_promoted_standby_takes_writes()
 {
    let pair = Pair::start(ServerSettings::none(), TABLE).await;
    pair.execute(Server::Primary, "INSERT INTO t VALUES (1)")
        .await;
    pair.catch_up().await;
    pair.cut_stream().await;
    pair.execute(Server::Primary, "INSERT INTO t VALUES (2)")
        .await;

    pair.crash_primary().await;
    let pid_file = pair.servers().primary.data_dir().join("postmaster.pid");
    assert!(!pid_file.exists(), "the primary's postmaster is gone");
    pair.promote_standby().await;

    let promoted = pair.standby_state().await;
    assert!(!promoted.in_recovery, "promoted: {promoted}");
    assert_eq!(
        pair.count(Server::Standby, ROWS).await,
        1,
        "the second insert was committed on the primary only: the failover lost it"
    );
    pair.execute(Server::Standby, "INSERT INTO t VALUES (3)")
        .await;
    assert_eq!(
        pair.count(Server::Standby, ROWS).await,
        2,
        "the promoted standby takes writes: its row and the new one"
    );
}

#[tokio::test]
async fn with_a_named_synchronous_standby_a_commit_waits_until_a_cancel_ends_the_wait() {
    let pair = Pair::start(SYNCHRONOUS, TABLE).await;
    let senders = pair.primary_state().await.standbys;
    assert_eq!(
        senders
            .iter()
            .map(|s| s.sync_state.as_str())
            .collect::<Vec<_>>(),
        ["sync"],
        "the standby named in synchronous_standby_names is synchronous"
    );
    pair.cut_stream().await;

    let mut inserting = pair.connect(Server::Primary).await;
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut inserting)
        .await
        .expect("the session's process id");
    let insert = tokio::spawn(async move {
        let done = sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&mut inserting)
            .await;
        let _ = inserting.close().await;
        done.map(|d| d.rows_affected())
    });
    let waiting = pair.until_commits_wait(1).await;
    assert_eq!(waiting.commits_waiting, 1, "{waiting}");
    assert_eq!(
        pair.count(Server::Primary, ROWS).await,
        0,
        "a commit waiting for the standby is not visible yet"
    );

    let mut watchdog = pair.connect(Server::Primary).await;
    let cancelled: bool = sqlx::query_scalar("SELECT pg_cancel_backend($1)")
        .bind(pid)
        .fetch_one(&mut watchdog)
        .await
        .expect("pg_cancel_backend");
    assert!(cancelled, "the cancel was sent");
    let inserted = tokio::time::timeout(Duration::from_secs(10), insert)
        .await
        .expect("the cancel ends the wait")
        .expect("the task ran");
    assert_eq!(
        inserted.expect("the INSERT succeeds: its wait is cancelled, not its commit"),
        1,
        "the cancelled INSERT still reports its one row: it was committed on the primary"
    );
    assert_eq!(
        pair.count(Server::Primary, ROWS).await,
        1,
        "committed on the primary, although the standby never confirmed it"
    );
}

/// The child of the test below: a test process that holds a pair until it is
/// killed. It does nothing unless that test started it.
#[tokio::test]
async fn child_holds_a_pair_until_killed() {
    if std::env::var_os("WORKBOOK_PAIR_CHILD").is_none() {
        return;
    }
    let pair = Pair::start(SYNCHRONOUS, TABLE).await;
    let dir = |server: &LocalCluster| server.run_dir.display().to_string();
    let pid = |server: &LocalCluster| {
        std::fs::read_to_string(server.data_dir().join("postmaster.pid"))
            .ok()
            .and_then(|text| text.lines().next().map(str::to_owned))
            .unwrap_or_default()
    };
    let servers = pair.servers();
    println!(
        "PAIR {} {} {} {}",
        dir(&servers.primary),
        dir(&servers.standby),
        pid(&servers.primary),
        pid(&servers.standby)
    );
    // Killed here; or, should the test that started it end first, its standard
    // input closes and it ends.
    let _ = tokio::task::spawn_blocking(|| std::io::stdin().read_line(&mut String::new())).await;
}

#[test]
fn a_test_process_killed_with_sigkill_leaves_no_server_and_no_directory() {
    let mut child = Command::new(std::env::current_exe().expect("this test's executable"))
        .args(["--exact", "child_holds_a_pair_until_killed", "--nocapture"])
        .env("WORKBOOK_PAIR_CHILD", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the child test process");
    let stdout = child.stdout.take().expect("the child's stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("PAIR ") {
                let _ = tx.send(rest.to_owned());
                return;
            }
        }
    });
    let said = rx.recv_timeout(Duration::from_secs(60));
    child.kill().expect("SIGKILL the child");
    let _ = child.wait();
    let said = said.expect("the child started its pair and said where");
    let fields: Vec<&str> = said.split_whitespace().collect();
    let [primary_dir, standby_dir, primary_pid, standby_pid] = fields[..] else {
        panic!("the child said {said:?}");
    };
    let dirs = [PathBuf::from(primary_dir), PathBuf::from(standby_dir)];
    assert!(
        dirs.iter().all(|d| d.is_dir()),
        "the pair's directories existed: {dirs:?}"
    );

    let deadline = Instant::now() + Duration::from_secs(15);
    let left = loop {
        let left: Vec<String> = dirs
            .iter()
            .filter(|d| d.exists())
            .map(|d| d.display().to_string())
            .chain(
                [primary_pid, standby_pid]
                    .into_iter()
                    .filter(|pid| alive(pid))
                    .map(|pid| format!("postgres process {pid}")),
            )
            .collect();
        if left.is_empty() || Instant::now() > deadline {
            break left;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        left.is_empty(),
        "15 s after the test process was killed, these are left: {left:?}"
    );
}

/// Whether process `pid` still exists (`kill -0`).
fn alive(pid: &str) -> bool {
    !pid.is_empty()
        && Command::new("sh")
            .args(["-c", "kill -0 \"$1\" 2>/dev/null", "sh", pid])
            .status()
            .is_ok_and(|s| s.success())
}
