//! `workbook timeline [N] [--test NAME] [--list]`: the timeline of a stage's
//! last run again, or of another of its bursts.

use timeline::say;

use crate::error::Error;
use crate::observations::Observations;
use crate::state::State;
use crate::timelines;
use crate::ui;
use crate::workbook::Workbook;

/// Shows the timeline; false when there is none to show.
pub fn run(
    wb: &Workbook,
    number: Option<u32>,
    test: Option<&str>,
    list: bool,
) -> Result<bool, Error> {
    let state = State::new(&wb.state_dir);
    let words = timelines::words(&wb.l10n);
    let none_recorded = || {
        ui::note(&say!(
            words,
            "no-trace",
            why = say!(words, "no-trace-none-recorded")
        ));
        Ok(false)
    };
    let Some(number) = number.or_else(|| state.last_run_stage()) else {
        return none_recorded();
    };
    wb.stage(number)?;
    let observations = Observations::read(&state.last_observations(number));
    if observations.traces.is_empty() {
        return none_recorded();
    }
    if list {
        for trace in &observations.traces {
            println!(
                "  {}  {} × {}",
                trace.test.as_deref().unwrap_or("-"),
                trace.requests.len(),
                words.duration(trace.end_us)
            );
        }
        return Ok(true);
    }
    let trace = match test {
        Some(test) => observations.last_trace_of(test).or_else(|| {
            // Part of a name is enough: the last burst of a test whose name has it.
            observations
                .traces
                .iter()
                .rev()
                .find(|t| t.test.as_deref().is_some_and(|name| name.contains(test)))
        }),
        None => state
            .shown_timeline(number)
            .and_then(|id| observations.traces.iter().find(|t| t.id == id))
            .or_else(|| observations.traces.first()),
    };
    let Some(trace) = trace else {
        // Each test once, in the order their bursts ended (the tests run at once:
        // their bursts interleave).
        let mut tests: Vec<&str> = Vec::new();
        for test in observations.traces.iter().filter_map(|t| t.test.as_deref()) {
            if !tests.contains(&test) {
                tests.push(test);
            }
        }
        ui::note(&say!(
            words,
            "no-trace",
            why = say!(
                words,
                "no-trace-not-that-test",
                test = test.unwrap_or(""),
                tests = tests.join(", ")
            )
        ));
        return Ok(false);
    };
    timelines::print(&wb.l10n, trace, None);
    Ok(true)
}
