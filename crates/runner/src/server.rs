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
    static HANDOVER: OnceLock<Option<String>> = OnceLock::new();
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
