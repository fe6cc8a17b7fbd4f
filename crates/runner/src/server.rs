//! The PostgreSQL server of this run: the runner finds or starts it while cargo
//! builds, and hands it to every test process it runs (`WORKBOOK_SERVER`).
//!
//! The tests' executables are built without the container client (most of what
//! their link read; see postgres-provisioning's `containers` feature), and none of
//! them waits for a server of its own. The server is this process's: a local
//! cluster or a throwaway container goes when the runner exits, even after
//! `kill -9` (their supervisors see the runner's end of a pipe close); the kept
//! container stays, as it always did.

use std::sync::{Once, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// What test processes are given, once the search is done (see [`handover`]).
static HANDOVER: OnceLock<Option<String>> = OnceLock::new();

/// Starts looking for the server in the background, once per process.
pub fn start_early() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(|| {
            let _ = handover();
        });
    });
}

/// What a test process is given: `None` when the runner has no server to give,
/// with `DATABASE_URL` (the tests read it themselves) or when none can be had
/// (the tests then look, and report what they found, as without the runner).
pub fn handover() -> Option<String> {
    HANDOVER
        .get_or_init(|| {
            if crate::environment::container_is_kept() {
                postgres_provisioning::keep_container();
            }
            // The test processes say which server they use, in the run's own output;
            // here it would print over the runner's screen.
            postgres_provisioning::listen(|_| {});
            postgres_provisioning::backend().ok()?.handover()
        })
        .clone()
}

/// The longest a sweep may take: a server that does not answer delays no run.
const SWEEP_BOUND: Duration = Duration::from_secs(10);

/// Drops, in the background, the databases that test processes of earlier runs
/// left on the server this runner hands over: a test process killed with
/// `kill -9` (an early run cancelled by a save, a run stopped at its bound)
/// drops nothing, and in a long `watch` they would pile up until the runner
/// exits. `None` before the first run: a server just started holds none. Only
/// databases whose owner process is gone are dropped, so the sweep may run
/// beside this run's own test processes; join it before the run ends.
pub fn sweep_in_background() -> Option<JoinHandle<usize>> {
    // Set (and `Some`) only once an earlier run handed a server over.
    HANDOVER.get()?.as_ref()?;
    let server = postgres_provisioning::backend().ok()?.clone();
    Some(std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return 0;
        };
        // The timeout's timer is made inside the runtime, which it needs.
        runtime.block_on(async {
            tokio::time::timeout(SWEEP_BOUND, server.drop_databases_of_dead_runs())
                .await
                .unwrap_or(0)
        })
    }))
}

#[cfg(test)]
mod tests {
    use sqlx::{AssertSqlSafe, Connection, Executor, PgConnection};

    use super::{handover, sweep_in_background};

    /// A test process of an earlier run, killed: its databases carry its id.
    fn a_killed_process() -> u32 {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("start a process to kill");
        child.kill().expect("kill -9 it");
        let _ = child.wait();
        child.id()
    }

    #[test]
    fn each_run_after_the_first_drops_what_killed_test_processes_left_on_the_server() {
        assert!(
            sweep_in_background().is_none(),
            "a sweep before any server was handed over"
        );
        if handover().is_none() {
            // DATABASE_URL: the test processes sweep it themselves.
            return;
        }
        let server = postgres_provisioning::backend().expect("the handed-over server");
        let (host, me) = postgres_provisioning::owner()
            .split_once('_')
            .expect("<host>_<pid>");
        let killed = a_killed_process();
        let left = [
            format!("wb_test_{host}_{killed}_0"),
            format!("wb_tmpl_{host}_{killed}_0123456789ab"),
        ];
        let running = format!("wb_test_{host}_{me}_0");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let names = || left.iter().chain([&running]);
        runtime.block_on(async {
            let mut conn = PgConnection::connect_with(&server.admin)
                .await
                .expect("connect");
            for name in names() {
                conn.execute(AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .await
                    .expect("create a database");
            }
        });
        let dropped = sweep_in_background()
            .expect("a sweep once the server was handed over")
            .join()
            .expect("the sweep's thread");
        let remaining: Vec<String> = runtime.block_on(async {
            let mut conn = PgConnection::connect_with(&server.admin)
                .await
                .expect("connect");
            let remaining = sqlx::query_scalar(
                "SELECT datname::text FROM pg_database WHERE datname = ANY($1) ORDER BY 1",
            )
            .bind(names().cloned().collect::<Vec<_>>())
            .fetch_all(&mut conn)
            .await
            .expect("list the databases");
            let _ = conn
                .execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS {running}")))
                .await;
            remaining
        });
        assert_eq!(
            remaining,
            vec![running.clone()],
            "the killed process's databases must go, the running one's stay \
             (the sweep dropped {dropped})"
        );
    }
}
