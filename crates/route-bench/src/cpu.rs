//! CPU time spent, from `/proc`: by this process (the HTTP clients, the routes,
//! sqlx), by a peer's server process, and by a PostgreSQL server (the postmaster
//! and its children). On a busy
//! machine requests per second move with the load from elsewhere; the CPU time a
//! request costs moves much less, and says where the time goes.

use std::path::Path;

/// `/proc/PID/stat` counts in USER_HZ, which Linux fixes at 100 for user space.
const TICKS_PER_SECOND: f64 = 100.0;

/// CPU seconds (user + system) of the process `pid`, its parent's pid, and the
/// CPU seconds of its children that have exited and been waited for.
fn stat(pid: &str) -> Option<(u32, f64, f64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold blanks: fields count from
    // the last ')'. After it: state (3), ppid (4), ... utime (14), stime (15),
    // cutime (16), cstime (17).
    let after = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ppid = fields.get(1)?.parse().ok()?;
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    let cutime: f64 = fields.get(13)?.parse().ok()?;
    let cstime: f64 = fields.get(14)?.parse().ok()?;
    Some((
        ppid,
        (utime + stime) / TICKS_PER_SECOND,
        (cutime + cstime) / TICKS_PER_SECOND,
    ))
}

/// CPU seconds the process `pid` has used so far (all its threads; a peer of
/// servers/ serves from one process), or 0 when it cannot be read.
pub fn process(pid: u32) -> f64 {
    stat(&pid.to_string())
        .map(|(_, seconds, reaped)| seconds + reaped)
        .unwrap_or(0.0)
}

/// CPU seconds this process has used so far.
pub fn own() -> f64 {
    stat("self").map(|(_, seconds, _)| seconds).unwrap_or(0.0)
}

/// CPU seconds used so far by the server whose data directory is `data` (its
/// postmaster, from `postmaster.pid`, and every child: backends, WAL writer, ...).
/// A backend that has exited (pgbench's, at the end of each of its runs) counts
/// in the postmaster's children's time, once the postmaster has reaped it.
pub fn server(data: &Path) -> Option<f64> {
    let pid_file = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let postmaster: u32 = pid_file.lines().next()?.trim().parse().ok()?;
    let (_, own, reaped) = stat(&postmaster.to_string())?;
    let mut total = own + reaped;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if let Some((ppid, seconds, _)) = stat(pid)
            && ppid == postmaster
        {
            total += seconds;
        }
    }
    Some(total)
}
