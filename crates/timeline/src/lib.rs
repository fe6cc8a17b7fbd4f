//! The timeline of a burst: who waited on whom, from what PostgreSQL itself
//! recorded.
//!
//! - [`trace`]: the format the harness writes for each burst (its documentation
//!   is the format's), read back by the runner, the book and the probe;
//! - [`fold`]: a trace as lanes, and lanes that did the same folded into one;
//! - [`terminal`]: the compact picture after a stage's verdict (at most about 20
//!   lines of 100 columns, glyphs that read without colour);
//! - [`svg`]: the book's picture of the same, readable at 400 px;
//! - [`words`]: every word of both, in English and Brazilian Portuguese.
//!
//! Only [`trace`] is built without the `render` feature: the harness writes
//! traces and draws nothing.

pub mod trace;

#[cfg(feature = "render")]
pub mod fold;
#[cfg(feature = "render")]
pub mod said;
#[cfg(feature = "render")]
pub mod svg;
#[cfg(feature = "render")]
pub mod terminal;
#[cfg(feature = "render")]
pub mod words;

pub use trace::Trace;
#[cfg(feature = "render")]
pub use words::{Lang, Words};
