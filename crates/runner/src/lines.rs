//! A child process's output, line by line as it comes, from both of its streams.

use std::io::{BufRead, BufReader, Read};
use std::process::Child;
use std::sync::mpsc::{self, Receiver};

/// A line a child wrote, on stdout or stderr.
pub(crate) enum Line {
    Out(String),
    Err(String),
}

pub(crate) fn read_lines(child: &mut Child) -> Receiver<Line> {
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        let tx = tx.clone();
        std::thread::spawn(move || forward(out, |l| tx.send(Line::Out(l)).is_ok()));
    }
    if let Some(err) = child.stderr.take() {
        std::thread::spawn(move || forward(err, |l| tx.send(Line::Err(l)).is_ok()));
    }
    rx
}

fn forward(stream: impl Read, mut send: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(stream);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if !send(line.trim_end_matches(['\n', '\r']).to_owned()) {
                    return;
                }
            }
        }
    }
}
