//! Known wrong: the model answer, with the standby named and `synchronous_commit`
//! left at its default, `on`, for the whole server. Every write of the API waits
//! for the standby, not only the payments: while the standby is away, a write
//! that is not a payment stops too.

pub use stage13_answer::*;

/// The bug: no `synchronous_commit = local` beside the standby's name.
pub const PRIMARY_SETTINGS: &str = "synchronous_standby_names = 'FIRST 1 (standby1)'\n";
pub const PRIMARY_SETTINGS_SOURCE: &str =
    "solutions/known-wrong/stage13-every-write-waits/src/lib.rs";
