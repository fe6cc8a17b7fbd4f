//! What must happen when the test process exits, however the tests ended.
//!
//! Rust never drops statics, so the server kept in one would outlive the process.
//! Each backend registers its clean-up here; an `atexit` hook runs them when the
//! test binary exits, whether every test passed or some panicked. (A test binary
//! killed by a signal skips `atexit`: the local cluster's supervisor covers that
//! case on its own, see `local.rs`.)

use std::sync::{Mutex, Once};

type Task = Box<dyn FnOnce() + Send>;

static TASKS: Mutex<Vec<Task>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Runs `task` when the process exits. Tasks run in reverse order of registration.
pub fn at_exit(task: impl FnOnce() + Send + 'static) {
    if let Ok(mut tasks) = TASKS.lock() {
        tasks.push(Box::new(task));
    }
    HOOK.call_once(|| {
        // SAFETY: `run_tasks` is a plain `extern "C" fn()` that never unwinds
        // across the FFI boundary (it catches panics itself).
        #[allow(unsafe_code)]
        unsafe {
            libc::atexit(run_tasks);
        }
    });
}

extern "C" fn run_tasks() {
    let tasks = match TASKS.lock() {
        Ok(mut tasks) => std::mem::take(&mut *tasks),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for task in tasks.into_iter().rev() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
    }
}

/// Whether process `pid` of this machine is still running.
pub(crate) fn alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    #[allow(unsafe_code)]
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// This machine's name: an owner is a process of one machine, and several machines
/// may share one engine or one server.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| {
            let out = std::process::Command::new("uname")
                .arg("-n")
                .output()
                .ok()?;
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        })
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}
