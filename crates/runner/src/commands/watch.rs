//! `workbook watch N`: reruns stage N whenever a file of its exercise changes,
//! with a clear screen, a progress bar and single keys: `h` the next hint, `n`
//! the next stage once this one passes, `r` (or Enter) rerun, `q` quit.
//!
//! It polls modification times every 300 ms (no file-system events: they miss
//! changes on some editors' save-by-rename and on network or container mounts),
//! of the exercise's sources only (`.rs`, `.sql`, `.toml`), so that an editor's
//! backup and swap files do not count as a save.
//!
//! On a terminal, keys are read as they are pressed (the terminal leaves its
//! line mode while watch runs, and gets it back at the end, Ctrl-C included);
//! elsewhere (a pipe) one key a line, Enter alone rerunning.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use console::Term;

use crate::cargo::Cargo;
use crate::commands::stage::{self, StageOptions};
use crate::commands::{hint, package_dir, walk};
use crate::environment::{self, command};
use crate::error::Error;
use crate::render;
use crate::state::State;
use crate::ui;
use crate::workbook::Workbook;

const POLL: Duration = Duration::from_millis(300);

/// The files whose change is a save: sources, migrations, manifests.
const WATCHED: [&str; 3] = ["rs", "sql", "toml"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Rerun,
    Hint,
    Next,
    Quit,
}

type Snapshot = BTreeMap<PathBuf, Option<(SystemTime, u64)>>;

pub fn run(wb: &Workbook, number: u32, timeout: Duration) -> Result<(), Error> {
    let keys_mode = ui::KeyMode::enter();
    let keys = keyboard(keys_mode.is_some());
    let mut stdin_open = true;
    let mut number = number;
    let state = State::new(&wb.state_dir);
    loop {
        let stage_meta = wb.stage(number)?;
        let cargo = Cargo::new(&wb.root, false);
        let dir = package_dir(&cargo, &stage_meta.exercise)?;
        let extra: Vec<PathBuf> = stage_meta.edit.iter().map(|f| wb.root.join(f)).collect();
        let before = snapshot(&dir, &extra);
        if environment::stdout_is_terminal() {
            let _ = Term::stdout().clear_screen();
        }
        let options = StageOptions {
            ask: false,
            quiet_reason: Some(format!(
                "watch never asks; run {} once to predict",
                command(&format!("stage {number}"))
            )),
            timeout,
            watching: true,
        };
        let passed = match stage::run(wb, number, options) {
            Ok(passed) => passed,
            Err(e) => {
                println!("{} {e}", ui::bad("error:"));
                false
            }
        };
        let next = wb.next_stage(number);
        println!();
        if let Ok(progress) = state.progress() {
            println!("{}", render::progress_bar(wb, &progress));
        }
        println!("{}", legend(wb, &dir, passed, next.map(|s| s.number)));
        loop {
            let key = if stdin_open {
                match keys.recv_timeout(POLL) {
                    Ok(key) => Some(key),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => {
                        stdin_open = false;
                        None
                    }
                }
            } else {
                std::thread::sleep(POLL);
                None
            };
            match key {
                Some(Key::Quit) => return Ok(()),
                Some(Key::Rerun) => break,
                Some(Key::Hint) => {
                    println!();
                    if let Err(e) = hint(wb, number, Some("h again")) {
                        println!("{} {e}", ui::bad("error:"));
                    }
                }
                Some(Key::Next) => match next {
                    Some(next) if passed => {
                        number = next.number;
                        break;
                    }
                    Some(_) => ui::note(&format!(
                        "(Stage {number} does not pass yet: n goes on once it does.)"
                    )),
                    None => ui::note("(That was the last stage.)"),
                },
                None => {}
            }
            if snapshot(&dir, &extra) != before {
                // Let an editor finish writing (temporary file, then rename).
                std::thread::sleep(Duration::from_millis(150));
                break;
            }
        }
    }
}

/// The keys line under the progress bar.
fn legend(wb: &Workbook, dir: &Path, passed: bool, next: Option<u32>) -> String {
    let next = match next {
        Some(n) if passed => format!("n: on to stage {n} · "),
        Some(_) => "n: the next stage, once this one passes · ".to_owned(),
        None => String::new(),
    };
    ui::wrap(
        &format!(
            "Watching {}/: save a file to rerun. Keys: h: a hint · {next}r: rerun · q: quit",
            wb.shown(dir)
        ),
        0,
    )
}

/// The keys pressed, one at a time. From a pipe (not `by_key`), a line holding a
/// key (`h` then Enter) is that key only; Enter alone reruns.
fn keyboard(by_key: bool) -> mpsc::Receiver<Key> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut byte = [0u8; 1];
        let mut line_had_key = false;
        loop {
            match stdin.read(&mut byte) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let key = match byte[0].to_ascii_lowercase() {
                b'\n' | b'\r' if line_had_key => {
                    line_had_key = false;
                    None
                }
                b'\n' | b'\r' => Some(Key::Rerun),
                b'r' => Some(Key::Rerun),
                b'h' => Some(Key::Hint),
                b'n' => Some(Key::Next),
                b'q' => Some(Key::Quit),
                _ => None,
            };
            if !by_key && key.is_some() && !matches!(byte[0], b'\n' | b'\r') {
                line_had_key = true;
            }
            if let Some(key) = key
                && tx.send(key).is_err()
            {
                return;
            }
        }
    });
    rx
}

fn snapshot(dir: &Path, extra: &[PathBuf]) -> Snapshot {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.retain(|f| {
        f.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| WATCHED.contains(&e))
    });
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
