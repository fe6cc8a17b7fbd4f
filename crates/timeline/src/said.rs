//! A picture's groups and notes in words: what the terminal and the SVG both
//! write beside the lanes.

use crate::fold::{EndKind, Fact, Group, Paid, Picture, State};
use crate::say;
use crate::trace::{Holder, Missing, Trace};
use crate::words::Words;

/// The smallest of 1, 2, 5 × 10^k at least `raw` (µs): the step between an
/// axis's ticks.
pub fn nice_step(raw: u64) -> u64 {
    let mut magnitude = 1;
    loop {
        for m in [1, 2, 5] {
            if m * magnitude >= raw.max(1) {
                return m * magnitude;
            }
        }
        magnitude *= 10;
    }
}

/// An axis `total_us` long is labelled in seconds from 10 s, else in ms.
fn in_seconds(total_us: u64) -> bool {
    total_us >= 10_000_000
}

/// The unit written after the last label of an axis `total_us` long.
pub fn axis_unit(total_us: u64, words: &Words) -> String {
    if in_seconds(total_us) {
        say!(words, "axis-unit-s")
    } else {
        say!(words, "axis-unit-ms")
    }
}

/// The label of the tick at `t_us` on an axis `total_us` long with ticks
/// `step_us` apart: in the axis's unit (not written), with the language's
/// decimal separator.
pub fn tick_label(t_us: u64, step_us: u64, total_us: u64, words: &Words) -> String {
    let text = if in_seconds(total_us) {
        format!("{}", t_us as f64 / 1_000_000.0)
    } else if step_us < 1_000 {
        format!("{}", t_us as f64 / 1000.0)
    } else {
        format!("{}", t_us / 1000)
    };
    words.decimal_separator(text)
}

/// The heading: whose burst, how many requests, how long.
pub fn title(trace: &Trace, picture: &Picture, words: &Words) -> String {
    let duration = words.duration(picture.end_us);
    let requests = picture.requests;
    if trace.seen.missing.contains(&Missing::ClientSide) {
        return say!(
            words,
            "title-client",
            requests = requests,
            duration = duration
        );
    }
    match &trace.test {
        Some(test) => say!(
            words,
            "title",
            test = test,
            requests = requests,
            duration = duration
        ),
        None => say!(
            words,
            "title-no-test",
            requests = requests,
            duration = duration
        ),
    }
}

/// Who a folded lane stands for: `#1`, `×19 (#2–#20)`, `×19 (the others)`, `×7`.
pub fn members(group: &Group, picture: &Picture, words: &Words) -> String {
    let m = &group.members;
    if m.len() == 1 {
        return say!(words, "members-one", n = m[0]);
    }
    let (first, last) = (m[0], m[m.len() - 1]);
    if last - first + 1 == m.len() {
        return say!(
            words,
            "members-range",
            count = m.len(),
            first = first,
            last = last
        );
    }
    // Every request but one lane of one: "the others".
    if picture.groups.len() == 2 && picture.groups.iter().any(|g| g.members.len() == 1) {
        return say!(words, "members-others", count = m.len());
    }
    say!(words, "members-many", count = m.len())
}

/// The short label at a lane's left: `#1`, `×19`.
pub fn label(group: &Group, words: &Words) -> String {
    match group.members.as_slice() {
        [n] => say!(words, "members-one", n = *n),
        many => say!(words, "members-many", count = many.len()),
    }
}

/// How the lane ended, short: `201`, `pool timed out`, `panicked: ...`.
pub fn end(group: &Group, words: &Words) -> String {
    match &group.shape.end {
        EndKind::Answered(answer) => words.answer(answer),
        EndKind::Panicked(message) => say!(words, "end-panicked", message = shorten(message, 72)),
        EndKind::Unfinished => say!(words, "end-unfinished"),
    }
}

/// The facts of a folded lane, each a phrase.
pub fn facts(group: &Group, words: &Words) -> Vec<String> {
    let many = group.members.len() > 1;
    group
        .facts
        .iter()
        .filter_map(|fact| {
            Some(match fact {
                Fact::WaitedForConnection { low_us, high_us } => say!(
                    words,
                    "fact-waited-connection",
                    duration = words.duration_range(*low_us, *high_us)
                ),
                Fact::Blocked {
                    holder,
                    statement,
                    count,
                    low_us,
                    high_us,
                } => {
                    let duration = words.duration_range(*low_us, *high_us);
                    let phrase = match holder {
                        Some(Holder::Request { n }) => say!(
                            words,
                            "fact-blocked-by-request",
                            holder = *n,
                            duration = duration,
                            statement = statement
                        ),
                        Some(Holder::Gate) => say!(
                            words,
                            "fact-blocked-by-gate",
                            duration = duration,
                            statement = statement
                        ),
                        Some(Holder::Other { pid, .. }) => say!(
                            words,
                            "fact-blocked-by-other",
                            pid = pid.to_string(),
                            duration = duration,
                            statement = statement
                        ),
                        None => say!(
                            words,
                            "fact-blocked-unnamed",
                            duration = duration,
                            statement = statement
                        ),
                    };
                    if *count < group.members.len() {
                        say!(words, "fact-some-blocked", count = *count, fact = phrase)
                    } else if many {
                        say!(words, "fact-each", fact = phrase)
                    } else {
                        phrase
                    }
                }
                Fact::IdleInTransaction { low_us, high_us } => say!(
                    words,
                    "fact-idle-in-transaction",
                    duration = words.duration_range(*low_us, *high_us)
                ),
                Fact::AnsweredAfter { low_us, high_us } => say!(
                    words,
                    "fact-answered-after",
                    duration = words.duration_range(*low_us, *high_us)
                ),
                Fact::Replayed(true) => say!(words, "fact-replayed"),
                Fact::Replayed(false) => say!(words, "fact-not-replayed"),
                Fact::Paid(paid) => match paid {
                    Paid::Times(1) => say!(words, "fact-paid"),
                    Paid::Times(n) => say!(words, "fact-paid-twice", count = *n),
                    Paid::Nothing => say!(words, "fact-paid-nothing"),
                    Paid::RolledBack => say!(words, "fact-paid-rolled-back"),
                    Paid::NoStatement => say!(words, "fact-no-statement"),
                    Paid::Unknown => return None,
                },
            })
        })
        .collect()
}

/// The statements of a folded lane, with what each came to: `BEGIN, INSERT
/// idempotency_keys (0 rows), ROLLBACK, SELECT idempotency_keys (1 row)`; ""
/// when none was seen.
pub fn steps(group: &Group, words: &Words) -> String {
    group
        .shape
        .steps
        .iter()
        .map(|step| {
            let answered = &step.answered;
            if let Some(code) = answered.strip_prefix("error ") {
                return say!(
                    words,
                    "step-failed",
                    statement = &step.statement,
                    sqlstate = code
                );
            }
            // `INSERT 0 1`, `UPDATE 1`, `SELECT 0`: the last number is the rows.
            let rows = answered
                .rsplit(' ')
                .next()
                .filter(|_| answered.contains(' '))
                .and_then(|n| n.parse::<usize>().ok());
            match rows {
                Some(rows) if step.statement != "BEGIN" => {
                    say!(
                        words,
                        "step-rows",
                        statement = &step.statement,
                        count = rows
                    )
                }
                _ => step.statement.clone(),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One folded lane as a sentence: `×19 (#2–#20): BEGIN, INSERT
/// idempotency_keys (0 rows), ROLLBACK, SELECT idempotency_keys (1 row); each
/// blocked by #1 for 201–209 ms in INSERT idempotency_keys; paid nothing → 201`.
pub fn sentence(group: &Group, picture: &Picture, words: &Words) -> String {
    let mut facts = facts(group, words);
    let steps = steps(group, words);
    if !steps.is_empty() {
        facts.insert(0, steps);
    }
    let members = members(group, picture, words);
    let end = end(group, words);
    if facts.is_empty() {
        format!("{members}: → {end}")
    } else {
        format!("{members}: {} → {end}", facts.join("; "))
    }
}

/// The legend's word for a state.
pub fn state(state: State, words: &Words) -> String {
    match state {
        State::InFlight => say!(words, "legend-in-flight"),
        State::Waiting => say!(words, "legend-waiting"),
        State::Code => say!(words, "legend-code"),
        State::IdleInTransaction => say!(words, "legend-idle-in-transaction"),
        State::Statement => say!(words, "legend-statement"),
        State::Gate => say!(words, "legend-gate"),
        State::Blocked => say!(words, "legend-blocked"),
    }
}

/// What the recording saw and did not, one sentence each.
pub fn notes(trace: &Trace, words: &Words) -> Vec<String> {
    let mut notes = Vec::new();
    // What lock waits are seen matters once a statement ran.
    let any_statement = trace
        .requests
        .iter()
        .any(|r| r.statements().next().is_some());
    if let Some(from) = trace.seen.lock_waits_from_us
        && any_statement
    {
        notes.push(say!(
            words,
            "seen-lock-waits",
            duration = words.duration(from)
        ));
    }
    for missing in &trace.seen.missing {
        notes.push(match missing {
            Missing::DatabaseUrl => say!(words, "missing-database-url"),
            Missing::NotSuperuser => say!(words, "missing-not-superuser"),
            Missing::ClientSide => say!(words, "missing-client-side"),
            Missing::UntracedPool => say!(words, "missing-untraced-pool"),
        });
    }
    notes
}

/// `text` cut at `chars` characters, with an ellipsis.
pub fn shorten(text: &str, chars: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(chars.saturating_sub(1)) {
        Some((at, _)) if line.chars().count() > chars => format!("{}…", &line[..at]),
        _ => line.to_owned(),
    }
}

/// `text` broken into lines of at most `width` characters, at spaces; a word
/// longer than a line (a test's name) is broken after its underscores.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let words = text.split(' ').flat_map(|word| split_long(word, width));
    for word in words {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !line.is_empty() && !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() && !line.ends_with('_') {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A word longer than `width`, in pieces that each end with an underscore (the
/// last excepted) and fit, where its underscores allow.
fn split_long(word: &str, width: usize) -> Vec<String> {
    if word.chars().count() <= width || !word.contains('_') {
        return vec![word.to_owned()];
    }
    let mut pieces = Vec::new();
    let mut piece = String::new();
    for part in word.split_inclusive('_') {
        if !piece.is_empty() && piece.chars().count() + part.chars().count() > width {
            pieces.push(std::mem::take(&mut piece));
        }
        piece.push_str(part);
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_name_longer_than_a_line_breaks_after_an_underscore() {
        let lines = wrap(
            "Timeline of twenty_concurrent_requests_create_one_payment: 20 requests",
            30,
        );
        assert_eq!(
            lines,
            [
                "Timeline of",
                "twenty_concurrent_requests_",
                "create_one_payment: 20",
                "requests"
            ]
        );
        assert_eq!(wrap("a b c", 3), ["a b", "c"]);
    }
}
