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
use crate::commands::hint;
use crate::commands::stage::{self, Quiet, StageOptions};
use crate::environment;
use crate::error::Error;
use crate::exercise_files::walk;
use crate::render;
use crate::state::State;
use crate::ui;
use crate::workbook::Workbook;
use l10n::t;

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

/// Watches stage `number`, running it as `stage` does with `options` (the same
/// flags), on every save.
pub fn run(wb: &Workbook, number: u32, options: StageOptions) -> Result<(), Error> {
    // Started after the first run of each stage, so that the run can ask the
    // stage's predictions first (before its figures are on the screen); the
    // keys' thread ends with `n`, and the next stage's run asks again.
    let mut key_mode: Option<ui::KeyMode> = None;
    let mut keys: Option<mpsc::Receiver<Key>> = None;
    // After `n` from a pipe, the rest of its line is not a key.
    let mut after_key = false;
    let mut stdin_open = true;
    let mut number = number;
    let state = State::new(&wb.state_dir);
    let l = &wb.l10n;
    loop {
        let stage_meta = wb.stage(number)?;
        let cargo = Cargo::new(&wb.root, false);
        let dir = cargo.package_dir(&stage_meta.exercise)?;
        let extra: Vec<PathBuf> = stage_meta.edit.iter().map(|f| wb.root.join(f)).collect();
        let before = snapshot(&dir, &extra);
        if environment::stdout_is_terminal() {
            let _ = Term::stdout().clear_screen();
        }
        // The first run of each stage may ask its predictions; later ones cannot
        // (the keys are being read), nor can one nobody is at a terminal for.
        let quiet = match options.quiet {
            Some(Quiet::NoPredict) => Some(Quiet::NoPredict),
            _ if keys.is_none() && environment::can_ask() => None,
            _ => Some(Quiet::Watching),
        };
        let options = StageOptions {
            quiet,
            watching: true,
            ..options.clone()
        };
        let passed = match stage::run(wb, number, options) {
            Ok(passed) => passed,
            Err(e) => {
                println!("{} {}", ui::bad(&t!(l, "error-label")), e.said(l));
                false
            }
        };
        if key_mode.is_none() {
            key_mode = ui::KeyMode::enter();
        }
        let keys_now = keys.get_or_insert_with(|| keyboard(key_mode.is_some(), after_key));
        let next = wb.next_stage(number);
        println!();
        if let Ok(progress) = state.progress() {
            println!("{}", render::progress_bar(wb, &progress));
        }
        println!("{}", legend(wb, &dir, passed, next.map(|s| s.number)));
        loop {
            let key = if stdin_open {
                match keys_now.recv_timeout(POLL) {
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
                    if let Err(e) = hint(wb, number, Some(&t!(l, "watch-h-again"))) {
                        println!("{} {}", ui::bad(&t!(l, "error-label")), e.said(l));
                    }
                }
                Some(Key::Next) => match next {
                    Some(next) if passed => {
                        number = next.number;
                        // The keys' thread ended with `n`: the next run may ask.
                        keys = None;
                        after_key = key_mode.is_none();
                        break;
                    }
                    _ => {
                        ui::note(&match next {
                            Some(_) => t!(l, "watch-not-passing-yet", number = number),
                            None => t!(l, "watch-last-stage"),
                        });
                        // The keys' thread ended with `n`: a new one.
                        *keys_now = keyboard(key_mode.is_some(), key_mode.is_none());
                    }
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
    let l = &wb.l10n;
    let next = match next {
        Some(n) if passed => format!("{} · ", t!(l, "watch-key-next", number = n)),
        Some(_) => format!("{} · ", t!(l, "watch-key-next-later")),
        None => String::new(),
    };
    ui::wrap(
        &t!(
            l,
            "watch-legend",
            dir = format!("{}/", wb.shown(dir)),
            next = next
        ),
        0,
    )
}

/// The keys pressed, one at a time. From a pipe (not `by_key`), a line holding a
/// key (`h` then Enter) is that key only; Enter alone reruns. The thread ends
/// after `n` (another stage: its run may ask its predictions) and `q`.
fn keyboard(by_key: bool, after_key: bool) -> mpsc::Receiver<Key> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut byte = [0u8; 1];
        let mut line_had_key = after_key;
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
                && (tx.send(key).is_err() || matches!(key, Key::Next | Key::Quit))
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
