//! The timeline in a terminal: a heading, a time axis, one lane per folded
//! group with its sentence under it, the legend and what the recording could
//! not see. At most [`Options::max_lines`] lines (groups are left out, said so,
//! to stay within it), none wider than [`Options::width`] columns; each state
//! has its own glyph, so the picture reads without colour too.

use crate::fold::{EndKind, Group, Lane, Picture, State};
use crate::said;
use crate::say;
use crate::trace::{End, Missing, NO_ANSWER, Trace, UNANSWERED};
use crate::words::Words;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The terminal's columns: no line is wider.
    pub width: usize,
    /// ANSI colours besides the glyphs.
    pub colour: bool,
    /// At most this many lines in all.
    pub max_lines: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            width: 100,
            colour: false,
            max_lines: 20,
        }
    }
}

/// The glyph of a state: each its own, so that a screen without colour, a
/// screen reader's transcript or a copy in an issue still tells them apart.
pub fn glyph(state: State) -> char {
    match state {
        State::InFlight => '─',
        State::Waiting => '·',
        State::Code => '─',
        State::IdleInTransaction => '┄',
        State::Statement => '═',
        State::Gate => '▒',
        State::Blocked => '░',
    }
}

const ANSWERED: char = '●';
const FAILED: char = '✗';
const UNFINISHED: char = '…';

fn colour_of(state: State) -> &'static str {
    match state {
        State::InFlight | State::Code | State::Waiting => "2",
        State::IdleInTransaction => "33",
        State::Statement => "36",
        State::Gate => "35",
        State::Blocked => "31",
    }
}

fn paint(text: &str, code: &str, colour: bool) -> String {
    if colour && !text.is_empty() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// The picture of `trace`, line by line.
pub fn draw(trace: &Trace, words: &Words, options: &Options) -> Vec<String> {
    let picture = Picture::of(trace);
    let mut shown = picture.groups.len();
    loop {
        let lines = draw_groups(trace, &picture, shown, words, options);
        if lines.len() <= options.max_lines || shown <= 1 {
            return lines;
        }
        shown -= 1;
    }
}

fn draw_groups(
    trace: &Trace,
    picture: &Picture,
    shown: usize,
    words: &Words,
    options: &Options,
) -> Vec<String> {
    let width = options.width.max(40);
    let groups = &picture.groups[..shown.min(picture.groups.len())];
    let labels: Vec<String> = groups.iter().map(|g| said::label(g, words)).collect();
    let label_width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(2)
        .max(3);
    let ends: Vec<String> = groups
        .iter()
        .map(|g| said::shorten(&said::end(g, words), 24))
        .collect();
    let end_width = ends.iter().map(|e| e.chars().count()).max().unwrap_or(3) + 2;
    let bar = width
        .saturating_sub(label_width + 1 + 1 + end_width)
        .clamp(10, 64);
    let total = picture.end_us.max(1);

    // From the client's side a lane has nothing to show but when it was in
    // flight: a folded lane shows when each of its answers came back instead.
    let client_side = trace.seen.missing.contains(&Missing::ClientSide);
    let mut lines = vec![paint(
        &said::shorten(&said::title(trace, picture, words), width),
        "1",
        options.colour,
    )];
    lines.push(format!(
        "{} {}",
        " ".repeat(label_width),
        axis(total, bar, words)
    ));
    let mut present: Vec<State> = Vec::new();
    // Each end mark with its legend's word: the client's bound and a failed
    // connection are ends of their own, not answers.
    let mut marks: Vec<(char, &'static str)> = Vec::new();
    for ((group, label), end) in groups.iter().zip(&labels).zip(&ends) {
        let Some(lane) = picture.lane(group.drawn) else {
            continue;
        };
        let (mut cells, states) = cells(lane, total, bar);
        if client_side {
            every_answer(&mut cells, group, picture, total);
        }
        marks.push(end_mark(&lane.end));
        for state in states {
            if !present.contains(&state) {
                present.push(state);
            }
        }
        let bar_text = paint_cells(&cells, group, options.colour);
        let end_text = paint(end, end_colour(group), options.colour);
        lines.push(format!("{label:>label_width$} {bar_text} {end_text}"));
        let sentence = said::sentence(group, picture, words);
        for (at, line) in said::wrap(&sentence, width - 4).into_iter().enumerate() {
            let indent = if at == 0 { "  " } else { "    " };
            lines.push(format!("{indent}{line}"));
        }
    }
    let hidden = &picture.groups[groups.len()..];
    if !hidden.is_empty() {
        let requests: usize = hidden.iter().map(|g| g.members.len()).sum();
        lines.push(format!(
            "  {}",
            say!(
                words,
                "more-kinds",
                count = hidden.len(),
                requests = requests
            )
        ));
    }
    present.sort();
    let mut legend: Vec<String> = present
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                paint(&glyph(*s).to_string(), colour_of(*s), options.colour),
                said::state(*s, words)
            )
        })
        .collect();
    marks.sort();
    marks.dedup();
    for (mark, key) in marks {
        legend.push(format!("{mark} {}", words.say(key, &[])));
    }
    // The legend wraps between its entries, never inside one.
    let mut line = String::new();
    let mut visible = 0;
    for entry in legend {
        let entry_width = visible_width(&entry);
        if visible > 0 && visible + 3 + entry_width > width - 2 {
            lines.push(format!("  {line}"));
            line.clear();
            visible = 0;
        }
        if visible > 0 {
            line.push_str("   ");
            visible += 3;
        }
        line.push_str(&entry);
        visible += entry_width;
    }
    if !line.is_empty() {
        lines.push(format!("  {line}"));
    }
    for note in said::notes(trace, words) {
        for line in said::wrap(&note, width - 2) {
            lines.push(paint(&format!("  {line}"), "2", options.colour));
        }
    }
    lines
}

/// The columns a lane fills: its glyph in each (' ' where it was not alive) and
/// the states that show.
fn cells(lane: &Lane, total: u64, bar: usize) -> (Vec<char>, Vec<State>) {
    let at = |col: usize| (col as u64 * total) / bar as u64;
    let column_of =
        |t: u64| ((t as u128 * bar as u128) / total as u128).min(bar as u128 - 1) as usize;
    let mut cells = vec![' '; bar];
    let mut states = Vec::new();
    let (first, last) = (column_of(lane.start_us), column_of(lane.end_us));
    for (col, cell) in cells.iter_mut().enumerate().take(last + 1).skip(first) {
        let from = at(col).max(lane.start_us);
        let to = at(col + 1).min(lane.end_us).max(from + 1);
        if let Some(state) = lane.state_during(from, to) {
            *cell = glyph(state);
            if !states.contains(&state) {
                states.push(state);
            }
        }
    }
    cells[last] = end_mark(&lane.end).0;
    (cells, states)
}

/// A folded client-side lane: in flight from its first member's sending to its
/// last one's end, each member's end marked where it came.
fn every_answer(cells: &mut [char], group: &Group, picture: &Picture, total: u64) {
    let bar = cells.len();
    let column_of =
        |t: u64| ((t as u128 * bar as u128) / total as u128).min(bar as u128 - 1) as usize;
    let lanes: Vec<&Lane> = group
        .members
        .iter()
        .filter_map(|n| picture.lane(*n))
        .collect();
    let (Some(first), Some(last)) = (
        lanes.iter().map(|l| l.start_us).min(),
        lanes.iter().map(|l| l.end_us).max(),
    ) else {
        return;
    };
    for cell in &mut cells[column_of(first)..=column_of(last)] {
        if *cell == ' ' {
            *cell = glyph(State::InFlight);
        }
    }
    for lane in lanes {
        cells[column_of(lane.end_us)] = end_mark(&lane.end).0;
    }
}

/// The glyph a lane ends with, and its legend's word.
fn end_mark(end: &End) -> (char, &'static str) {
    match end {
        End::Answered { answer } if answer == UNANSWERED => (UNFINISHED, "legend-unanswered"),
        End::Answered { answer } if answer == NO_ANSWER => (FAILED, "legend-no-answer"),
        End::Answered { .. } => (ANSWERED, "legend-answer"),
        End::Panicked { .. } => (FAILED, "legend-panicked"),
        End::Unfinished => (UNFINISHED, "legend-unfinished"),
    }
}

fn paint_cells(cells: &[char], group: &Group, colour: bool) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let mut run_state: Option<char> = None;
    let flush = |out: &mut String, run: &mut String, glyph: Option<char>| {
        let code = match glyph {
            Some(ANSWERED) | Some(FAILED) | Some(UNFINISHED) => end_colour(group),
            Some(g) => State::ALL
                .iter()
                .find(|s| self::glyph(**s) == g && **s != State::InFlight)
                .map_or("0", |s| colour_of(*s)),
            None => "0",
        };
        out.push_str(&paint(run, code, colour));
        run.clear();
    };
    for &cell in cells {
        if Some(cell) != run_state {
            flush(&mut out, &mut run, run_state);
            run_state = Some(cell);
        }
        run.push(cell);
    }
    flush(&mut out, &mut run, run_state);
    out
}

fn end_colour(group: &Group) -> &'static str {
    match &group.shape.end {
        EndKind::Answered(answer) if answer.starts_with('2') => "32",
        EndKind::Answered(answer) if answer.starts_with('4') => "33",
        _ => "31",
    }
}

/// The time axis: ticks at round times, the unit after the last.
fn axis(total: u64, bar: usize, words: &Words) -> String {
    let ticks_wanted = (bar / 12).max(2) as u64;
    let step = said::nice_step(total / ticks_wanted);
    let unit = said::axis_unit(total, words);
    let label = |t: u64| said::tick_label(t, step, total, words);
    let mut line: Vec<char> = vec![' '; bar + unit.chars().count() + 8];
    let mut free_from = 0;
    let mut t = 0;
    let mut last_end = 0;
    while t <= total {
        let col = ((t as u128 * bar as u128) / total as u128) as usize;
        let text: Vec<char> = label(t).chars().collect();
        if col >= free_from && col + text.len() <= bar + 2 {
            for (i, c) in text.iter().enumerate() {
                line[col + i] = *c;
            }
            free_from = col + text.len() + 2;
            last_end = col + text.len();
        }
        t += step;
    }
    for (i, c) in format!(" {unit}").chars().enumerate() {
        if last_end + i < line.len() {
            line[last_end + i] = c;
        }
    }
    line.into_iter().collect::<String>().trim_end().to_owned()
}

/// How many columns `text` takes, ANSI colour codes left out.
pub fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut escape = false;
    for c in text.chars() {
        match (escape, c) {
            (false, '\x1b') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, _) => width += 1,
        }
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::tests::{client_side, stage3};
    use crate::words::Lang;

    /// A picture a learner sees whole at 100 × 40 next to its verdict: at most 20
    /// lines of at most 100 columns. Returns its text, for the other assertions.
    fn fits_a_terminal(lines: &[String]) -> String {
        let text = lines.join("\n");
        assert!(lines.len() <= 20, "{} lines:\n{text}", lines.len());
        for line in lines {
            assert!(
                visible_width(line) <= 100,
                "too wide ({}): {line}",
                visible_width(line)
            );
        }
        text
    }

    #[test]
    fn stage_3s_burst_fits_twenty_lines_of_100_columns_and_names_who_waited_on_whom() {
        for lang in Lang::ALL {
            let lines = draw(&stage3(), &Words::of(lang), &Options::default());
            let text = fits_a_terminal(&lines);
            // The sentences as one text, wrapped lines joined, no-break spaces plain.
            let said: String = lines
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join(" ")
                .replace('\u{a0}', " ");
            assert!(text.contains('░') && text.contains('▒'), "{text}");
            if lang == Lang::English {
                assert!(
                    said.contains(
                        "×19 (#2–#20): BEGIN, INSERT idempotency_keys (0 rows), ROLLBACK"
                    ),
                    "{text}"
                );
                assert!(said.contains("each blocked by #1 for 203 ms in INSERT idempotency_keys; paid nothing → 201"), "{text}");
                assert!(
                    said.contains(
                        "held at the test's gate for 204 ms in INSERT payments; paid → 201"
                    ),
                    "{text}"
                );
            } else {
                assert!(
                    said.contains("cada um bloqueado por #1 durante 203 ms"),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn the_clients_side_shows_when_each_answer_came_back_and_no_lock() {
        for lang in Lang::ALL {
            let lines = draw(&client_side(), &Words::of(lang), &Options::default());
            let text = fits_a_terminal(&lines);
            for glyph in ['░', '▒', '·', '═', '┄'] {
                assert!(
                    !text.contains(glyph),
                    "{glyph} claims what the client cannot see:\n{text}"
                );
            }
            let said = lines
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join(" ")
                .replace('\u{a0}', " ");
            if lang == Lang::English {
                assert!(said.contains("from the client: 20 requests"), "{said}");
                assert!(
                    said.contains(
                        "×18 (#2–#19): answered after 211–215 ms; marked as a replay → 201"
                    ),
                    "{said}"
                );
                assert!(said.contains("#20: → no answer in time"), "{said}");
                assert!(said.contains("… no answer within the bound"), "{said}");
                assert!(
                    said.contains("the server's locks and transactions are not seen"),
                    "{said}"
                );
            } else {
                assert!(said.contains("vista do cliente: 20 pedidos"), "{said}");
                assert!(said.contains("respondido após 211–215 ms"), "{said}");
                assert!(said.contains("marcado como resposta repetida"), "{said}");
            }
        }
    }

    #[test]
    fn colour_changes_no_glyph() {
        let plain = draw(&stage3(), &Words::of(Lang::English), &Options::default());
        let coloured = draw(
            &stage3(),
            &Words::of(Lang::English),
            &Options {
                colour: true,
                ..Options::default()
            },
        );
        let strip = |line: &String| {
            let mut out = String::new();
            let mut escape = false;
            for c in line.chars() {
                match (escape, c) {
                    (false, '\x1b') => escape = true,
                    (true, 'm') => escape = false,
                    (true, _) => {}
                    (false, c) => out.push(c),
                }
            }
            out
        };
        assert_eq!(plain, coloured.iter().map(strip).collect::<Vec<_>>());
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(said::nice_step(37_000), 50_000);
        assert_eq!(said::nice_step(1), 1);
        let axis = axis(214_000, 60, &Words::of(Lang::English));
        assert!(axis.starts_with("0 "), "{axis:?}");
        assert!(axis.ends_with(" ms"), "{axis:?}");
        assert!(axis.contains("100"), "{axis:?}");
    }
}
