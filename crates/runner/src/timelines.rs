//! The timeline of the burst that decided a run, in the learner's language:
//! which burst it is, and drawing it (`timeline`'s terminal picture) after the
//! verdict, in `watch` and for `cargo workbook timeline`.

use timeline::{Trace, Words, terminal};

use crate::run::PackageRun;
use crate::stages::Stage;
use crate::ui;
use l10n::Localiser;

/// The timeline's words in the runner's language.
pub fn words(l: &Localiser) -> Words {
    Words::said_in(l.lang())
}

/// The burst that decided `run`. On a failure, the learner's broken code is
/// where the picture teaches most: the burst behind the stage's first
/// prediction whose test failed (the lesson's own burst: stage 5's deadlock),
/// else the last burst of the first test that failed after firing one. When
/// every test passed, the burst behind the stage's first prediction that has
/// one; else the run's first.
pub fn deciding<'a>(stage: &Stage, run: &'a PackageRun) -> Option<&'a Trace> {
    let observations = &run.observations;
    let behind_predictions = || {
        stage
            .predictions
            .iter()
            .filter_map(|p| observations.trace_of(&p.observe))
    };
    let of_a_failed_test = |trace: &&Trace| {
        run.failed().any(|test| {
            observations
                .last_trace_of(&test.name)
                .is_some_and(|last| last.test == trace.test)
        })
    };
    behind_predictions()
        .find(of_a_failed_test)
        .or_else(|| {
            run.failed()
                .find_map(|test| observations.last_trace_of(&test.name))
        })
        .or_else(|| behind_predictions().next())
        .or_else(|| observations.traces.first())
}

/// Prints `trace`, then `footer` (two lines at most), within 20 lines of at
/// most 100 columns.
pub fn print(l: &Localiser, trace: &Trace, footer: Option<&str>) {
    let width = usize::from(ui::width()).min(100);
    let options = terminal::Options {
        width,
        colour: console::colors_enabled(),
        max_lines: if footer.is_some() { 18 } else { 20 },
    };
    println!();
    for line in terminal::draw(trace, &words(l), &options) {
        println!("{line}");
    }
    if let Some(footer) = footer {
        println!("{}", console::style(ui::wrap(footer, 0)).dim());
    }
}
