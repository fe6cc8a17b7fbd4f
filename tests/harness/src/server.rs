//! The server of this test process: `postgres-provisioning`'s, with what its
//! search says printed and reported to the runner as [`Condition`]s.

use std::io::Write;

use postgres_provisioning::{Backend, NoServer, Notice};

use crate::condition::{Condition, report};

/// The server of this test process, started on first use (or handed over by
/// the runner); what the search says is printed outside libtest's capture, once
/// per process, and reaches the runner as [`Condition`]s.
pub fn backend() -> Result<&'static Backend, &'static NoServer> {
    postgres_provisioning::listen(|notice| match notice {
        Notice::Said(text) => {
            let _ = writeln!(std::io::stderr(), "{text}");
            report(&Condition::Note {
                text: text.to_owned(),
            });
        }
        Notice::NoServer => report(&Condition::NoServer),
    });
    postgres_provisioning::backend()
}
