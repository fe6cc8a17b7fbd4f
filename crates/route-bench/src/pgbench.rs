//! The physical limit: `pgbench -M prepared` (a C client, prepared statements)
//! running the routes' statements against the same server, with as many clients.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::BenchError;

/// The three shapes, as pgbench scripts. Keys are random 63-bit numbers: a
/// repeat is as likely as winning a lottery twice, and would only make a
/// transaction do less.
pub fn scripts() -> [(&'static str, String); 3] {
    let hash = "0".repeat(64);
    let answer = r#"{"id": "1", "orderId": 1, "amount": 100, "status": "approved"}"#;
    let plain =
        "INSERT INTO payments (order_id, amount) VALUES (1, 100) RETURNING id;\n".to_owned();
    // Stage 5's statements, in its order (stage 4's reserve, pay, record), one
    // round trip each.
    let seed = format!(
        "\\set k random(1, 9223372036854775806)
BEGIN;
SELECT current_setting('lock_timeout');
SELECT set_config('lock_timeout', '{wait}', true);
INSERT INTO idempotency_keys (key, body_hash) VALUES ('seed-' || :k, '{hash}') ON CONFLICT (key) DO NOTHING;
SELECT set_config('lock_timeout', '0', true);
INSERT INTO payments (order_id, amount) VALUES (1, 100) RETURNING id;
UPDATE idempotency_keys SET status = 201, response = '{answer}'::jsonb WHERE key = 'seed-' || :k;
COMMIT;
",
        wait = stage10::IN_FLIGHT_WAIT
    );
    // Stage 10's statement itself, its parameters replaced by pgbench's values.
    let cte = stage10::PAY_ONCE
        .replace("$1", "('cte-' || :k)")
        .replace("$2", &format!("'{hash}'"))
        .replace("$3", "1")
        .replace("$4", "100")
        .replace("$5", &format!("'{}'", stage10::IN_FLIGHT_WAIT));
    // One line: pgbench ends a command at its semicolon, and a comment would
    // swallow the rest of a joined line, so comments go first.
    let one_line: Vec<&str> = cte
        .lines()
        .map(|line| line.split("--").next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .collect();
    let cte = format!(
        "\\set k random(1, 9223372036854775806)\n{};\n",
        one_line.join(" ")
    );
    [("plain", plain), ("seed", seed), ("one-statement", cte)]
}

/// Runs one script, given on pgbench's standard input (no file to leave behind):
/// `transactions` in all from `clients` clients; returns pgbench's transactions
/// per second (without the initial connection time).
pub fn run(
    pgbench: &Path,
    conninfo: &str,
    script: &str,
    clients: usize,
    transactions: usize,
) -> Result<f64, BenchError> {
    let mut child = Command::new(pgbench)
        .args(["-n", "-M", "prepared", "-j", "2", "-f", "-"])
        .arg(format!("-c{clients}"))
        .arg(format!("-t{}", transactions / clients))
        .arg(conninfo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| BenchError::PgbenchNotRun {
            program: pgbench.to_owned(),
            source,
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // pgbench reads the whole script before it connects; closing stdin ends it.
        stdin
            .write_all(script.as_bytes())
            .map_err(BenchError::PgbenchScript)?;
    }
    let out = child
        .wait_with_output()
        .map_err(|source| BenchError::PgbenchNotRun {
            program: pgbench.to_owned(),
            source,
        })?;
    let said = String::from_utf8_lossy(&out.stdout);
    let tps = said
        .lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    match tps {
        Some(tps) if out.status.success() => Ok(tps),
        _ => Err(BenchError::PgbenchFailed {
            program: pgbench.to_owned(),
            said: format!(
                "{}{}",
                said.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            script: script.to_owned(),
        }),
    }
}
