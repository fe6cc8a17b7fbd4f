//! `workbook watch N`: reruns stage N whenever a file of its exercise changes.
//!
//! It polls modification times every 300 ms (no file-system events: they miss
//! changes on some editors' save-by-rename and on network or container mounts).
//! Enter reruns at once; `q` and Enter stops.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use console::Term;

use crate::cargo::Cargo;
use crate::commands::stage::{self, StageOptions};
use crate::commands::{package_dir, walk};
use crate::error::Error;
use crate::ui;
use crate::workbook::Workbook;

const POLL: Duration = Duration::from_millis(300);

enum Key {
    Rerun,
    Quit,
}

type Snapshot = BTreeMap<PathBuf, Option<(SystemTime, u64)>>;

pub fn run(wb: &Workbook, number: u32, timeout: Duration) -> Result<(), Error> {
    let stage_meta = wb.stage(number)?;
    let cargo = Cargo::new(&wb.root, false);
    let dir = package_dir(&cargo, &stage_meta.exercise)?;
    let extra: Vec<PathBuf> = stage_meta.edit.iter().map(|f| wb.root.join(f)).collect();
    let keys = keyboard();
    let mut stdin_open = true;
    loop {
        let before = snapshot(&dir, &extra);
        if crate::environment::stdout_is_terminal() {
            let _ = Term::stdout().clear_screen();
        }
        let options = StageOptions {
            ask: false,
            quiet_reason: Some(format!(
                "watch never asks; run {} once to predict",
                crate::environment::command(&format!("stage {number}"))
            )),
            timeout,
            watching: true,
        };
        if let Err(e) = stage::run(wb, number, options) {
            println!("{} {e}", ui::bad("error:"));
        }
        println!();
        ui::note(&ui::wrap(
            &format!(
                "Watching {}/ for changes: save a file to rerun, Enter reruns now, q then Enter \
                 (or Ctrl-C) stops.",
                wb.shown(&dir)
            ),
            0,
        ));
        loop {
            if stdin_open {
                match keys.recv_timeout(POLL) {
                    Ok(Key::Rerun) => break,
                    Ok(Key::Quit) => return Ok(()),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => stdin_open = false,
                }
            } else {
                std::thread::sleep(POLL);
            }
            if snapshot(&dir, &extra) != before {
                // Let an editor finish writing (temporary file, then rename).
                std::thread::sleep(Duration::from_millis(150));
                break;
            }
        }
    }
}

fn keyboard() -> mpsc::Receiver<Key> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { return };
            let key = if line.trim().eq_ignore_ascii_case("q") {
                Key::Quit
            } else {
                Key::Rerun
            };
            if tx.send(key).is_err() {
                return;
            }
        }
    });
    rx
}

fn snapshot(dir: &std::path::Path, extra: &[PathBuf]) -> Snapshot {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.extend(extra.iter().cloned());
    files
        .into_iter()
        .map(|f| {
            let stamp = std::fs::metadata(&f)
                .ok()
                .and_then(|m| Some((m.modified().ok()?, m.len())));
            (f, stamp)
        })
        .collect()
}
