//! What the search for a server says, and who hears it: a listener (the runner,
//! through the harness) or else standard error.

use std::io::Write;
use std::sync::OnceLock;

/// What the search for a server says besides printing it: the harness passes it
/// on to the runner (its `Condition`s), which shows it beside the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice<'a> {
    /// A line printed for the learner ("harness: ...").
    Said(&'a str),
    /// No server could be had.
    NoServer,
}

static LISTENER: OnceLock<fn(Notice<'_>)> = OnceLock::new();

/// Who hears the [`Notice`]s of this process instead of its standard error (the
/// listener prints them, or not); the first caller wins.
pub fn listen(listener: fn(Notice<'_>)) {
    let _ = LISTENER.set(listener);
}

/// Tells the listener; false when there is none.
pub(crate) fn tell(notice: Notice<'_>) -> bool {
    match LISTENER.get() {
        Some(listener) => {
            listener(notice);
            true
        }
        None => false,
    }
}

/// Prints outside libtest's output capture, so that it shows once per process.
/// The listener hears it too ([`listen`]): the runner shows it.
pub(crate) fn announce(line: &str) {
    if !tell(Notice::Said(line)) {
        let _ = writeln!(std::io::stderr(), "{line}");
    }
}
