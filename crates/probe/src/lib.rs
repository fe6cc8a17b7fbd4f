//! Checks an HTTP API's idempotency from the outside, whatever its language.
//!
//! Points at an endpoint that creates something (by default `POST /payments` with
//! `{"orderId": N, "amount": 100}` and an `Idempotency-Key`) and runs bounded
//! checks, each with a verdict and its evidence: a burst of requests with one key
//! released together, a replay, the same key with another body (after the first,
//! and while the first is in flight), two keys, the same request written
//! differently, bad keys, bad bodies, answers lost by the network (through
//! [`fault_proxy`]), and bursts larger than a typical pool. From the same answers
//! it reads the API's [`Profile`]: what it chose where the IETF draft leaves it
//! open (facts, not verdicts).
//!
//! The report is a table or Markdown for people ([`table`], [`markdown`]), JSON
//! ([`json`], versioned, its schema in `report.schema.json`) and JUnit XML
//! ([`junit`]) for CI. Every word of them is in [`words`].
//!
//! With a database URL and a counting query, every check also counts the effects
//! (rows created), which is the only proof that a retry did not pay twice.
//!
//! Given several URLs (instances of one API over one database), it spreads each
//! burst across them and sends each retry to another instance than its first
//! request: a key guarded in one process's memory is caught there.
//!
//! `idempotency-probe URL...` and `workbook probe URL...` are the command line
//! ([`cli`]); [`run`] is what they call.

mod catalogue;
mod checks;
pub mod cli;
mod client_trace;
mod effects;
mod error;
mod http;
pub mod json;
pub mod junit;
mod options;
mod outcome;
pub mod profile;
mod report;
mod results;
pub mod words;

pub use catalogue::{CHECKS, Check, CheckId, Expected};
pub use error::ProbeError;
pub use http::{Answer, NoAnswer, Target};
pub use options::{Options, ParsedUrl, defaults, parse_url};
pub use outcome::{Outcome, Role, Verdict};
pub use profile::Profile;
pub use report::{markdown, table, timeline_lines};
pub use results::{CheckResult, EffectCount, Report, Seen, SeenAnswer};
pub use words::Said;

/// Runs every check of `options` against its URL, one after the other.
pub async fn run(options: &Options) -> Result<Report, ProbeError> {
    checks::run(options).await
}
