//! The pseudo-locale `en-XA`: the English catalogues with every word of theirs
//! accented (`ţéšţš þåšš`) and every line of a message between [`OPEN`] and
//! [`CLOSE`]. Run a program under it (`WORKBOOK_LANG=en-XA`) and
//! [`unmarked_prose`] finds each line of prose it printed outside the markers:
//! a text that does not come from a catalogue, which a Brazilian learner would
//! read in English. A message's arguments (the facts: figures, SQL, paths, an
//! error's own words) stay as they are, inside their message's markers.

use std::borrow::Cow;

/// Opens a message's line.
pub const OPEN: &str = "[!!";
/// Closes it.
pub const CLOSE: &str = "!!]";

/// The catalogue's own text, accented letter by letter (Fluent's transform: it
/// never sees the arguments).
pub fn accent(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_ascii_alphabetic()) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(accented).collect())
}

fn accented(c: char) -> char {
    const LOWER: [char; 26] = [
        'å', 'ƀ', 'ç', 'ð', 'é', 'ƒ', 'ĝ', 'ĥ', 'í', 'ĵ', 'ķ', 'ļ', 'ɱ', 'ñ', 'ö', 'þ', 'ǫ', 'ŕ',
        'š', 'ţ', 'û', 'ṽ', 'ŵ', 'ẋ', 'ý', 'ž',
    ];
    const UPPER: [char; 26] = [
        'Å', 'Ɓ', 'Ç', 'Ð', 'É', 'Ƒ', 'Ĝ', 'Ĥ', 'Î', 'Ĵ', 'Ķ', 'Ļ', 'Ṁ', 'Ñ', 'Ö', 'Þ', 'Ǫ', 'Ŕ',
        'Š', 'Ţ', 'Û', 'Ṽ', 'Ŵ', 'Ẋ', 'Ý', 'Ž',
    ];
    match c {
        'a'..='z' => LOWER[usize::from(c as u8 - b'a')],
        'A'..='Z' => UPPER[usize::from(c as u8 - b'A')],
        other => other,
    }
}

/// A message as the pseudo-locale says it: each line between the markers (an
/// empty line stays empty), so that a line cut out of it is still marked.
pub fn mark(message: &str) -> String {
    message
        .split('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.to_owned()
            } else {
                // Indentation stays outside: a list keeps its shape.
                let text = line.trim_start();
                let indent = &line[..line.len() - text.len()];
                format!("{indent}{OPEN} {text} {CLOSE}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text from outside the Fluent catalogues (the stages' texts, the review's
/// checklist, which have twin files of their own), as the pseudo-locale says it:
/// accented, each line marked.
pub fn say(text: &str) -> String {
    mark(&accent(text))
}

/// A line of prose printed outside the markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmarked {
    /// 1-based, in the text given.
    pub line: usize,
    /// The words found outside the markers.
    pub words: String,
    /// The whole line, for the report.
    pub text: String,
}

/// Every line of `output` with prose outside the markers. Markers may nest (a
/// message inside another's argument) and may span lines (a long message
/// wrapped to the terminal's width). A word is two or more letters with nothing
/// else in it but an apostrophe or a hyphen, once the punctuation around it is
/// cut: `test_name`, `stage2-naive/src/lib.rs`, `--no-predict`, `23505` and `201`
/// are not words. Prose is two words in a row, a word that labels what follows
/// (`error:`), or a capitalised word alone on its line (a heading: `Tests`); a
/// lone lowercase word is a name (a command's: `stage`, `workbook`) and is not.
/// A line cut to fit with `…` closes the markers it opened: their ends were cut
/// with it, and without this every line after it would count as marked. ANSI
/// colours are ignored. Give each stream its own call: a marker cut in one says
/// nothing of the other.
pub fn unmarked_prose(output: &str) -> Vec<Unmarked> {
    let output = strip_ansi(output);
    let mut depth = 0usize;
    let mut found = Vec::new();
    for (number, line) in output.lines().enumerate() {
        let depth_before = depth;
        // The stretches of this line outside every marker, apart.
        let mut outside: Vec<&str> = Vec::new();
        let mut rest = line;
        while !rest.is_empty() {
            let open = rest.find(OPEN);
            let close = rest.find(CLOSE);
            let next = match (open, close) {
                (Some(o), Some(c)) => Some(o.min(c)),
                (o, c) => o.or(c),
            };
            let Some(at) = next else {
                if depth == 0 {
                    outside.push(rest);
                }
                break;
            };
            if depth == 0 {
                outside.push(&rest[..at]);
            }
            if rest[at..].starts_with(OPEN) {
                depth += 1;
                rest = &rest[at + OPEN.len()..];
            } else {
                depth = depth.saturating_sub(1);
                rest = &rest[at + CLOSE.len()..];
            }
        }
        if line.trim_end().ends_with('…') {
            depth = depth.min(depth_before);
        }
        let stretches: Vec<Vec<&str>> = outside
            .iter()
            .map(|stretch| stretch.split_whitespace().collect())
            .filter(|tokens: &Vec<&str>| !tokens.is_empty())
            .collect();
        let alone = stretches.len() == 1 && stretches[0].len() == 1;
        let mut prose: Vec<&str> = Vec::new();
        for tokens in &stretches {
            for (i, token) in tokens.iter().enumerate() {
                if !is_word(token) {
                    continue;
                }
                let next_is_word = tokens.get(i + 1).is_some_and(|t| is_word(t));
                let previous_is_word = i > 0 && is_word(tokens[i - 1]);
                let label = token.ends_with(':');
                let heading = alone && token.chars().next().is_some_and(char::is_uppercase);
                if next_is_word || previous_is_word || label || heading {
                    prose.push(token);
                }
            }
        }
        if !prose.is_empty() {
            found.push(Unmarked {
                line: number + 1,
                words: prose.join(" "),
                text: line.to_owned(),
            });
        }
    }
    found
}

fn is_word(token: &str) -> bool {
    let token = token.trim_matches(|c: char| {
        c.is_ascii_punctuation() && c != '_' && c != '-' && c != '/' || "…“”«»".contains(c)
    });
    token.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && token
            .chars()
            .all(|c| c.is_alphabetic() || c == '\'' || c == '’' || c == '-')
        && !token.starts_with('-')
}

/// `text` without ANSI escape sequences (colours, cursor moves).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // Parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_accented_and_the_rest_is_kept() {
        assert_eq!(
            accent("Tests pass: 3/4, `cargo`"),
            "Ţéšţš þåšš: 3/4, `çåŕĝö`"
        );
        assert!(matches!(accent("3 × 201"), Cow::Borrowed(_)));
    }

    #[test]
    fn each_line_of_a_message_is_marked_and_its_indentation_kept() {
        assert_eq!(
            mark("No server:\n  - DATABASE_URL: not set\n\nRun it"),
            "[!! No server: !!]\n  [!! - DATABASE_URL: not set !!]\n\n[!! Run it !!]"
        );
    }

    #[test]
    fn prose_outside_the_markers_is_found_and_facts_are_not_prose() {
        let output = "\
[!! Ţéšţš !!]
✘ [!! 4 ţéšţš ƒåíļéð: ñöţ ýéţ: [!! ñéšţéð !!] !!]
    a_retry_after_the_first_answer_replays_it
    payments_has_the_column::case_1_id, case_2_order_id
  exercises/stage2-naive/src/lib.rs:32:5 --no-predict 23505 201 × 20 1,5 s
test result: FAILED. 0 passed
[!! å ļöñĝ ɱéššåĝé
ŵŕåþþéð ţö ţĥé ţéŕɱíñåļ !!] and then English
\u{1b}[1mTests\u{1b}[0m
  stage     [!! Þŕéðíçţ !!]
[!! Ûšåĝé: !!] workbook [!! [ÖÞŢÎÖÑŠ] !!]
error: [!! ñöţ ýéţ !!]";
        let found = unmarked_prose(output);
        let lines: Vec<(usize, &str)> = found.iter().map(|u| (u.line, u.words.as_str())).collect();
        assert_eq!(
            lines,
            [
                (6, "test result: FAILED."),
                (8, "and then English"),
                (9, "Tests"),
                (12, "error:")
            ]
        );
    }

    #[test]
    fn a_line_cut_to_fit_closes_its_markers_so_later_prose_is_found() {
        let output = "\
[!! Ţíɱéļíñé öƒ a_test: 20 ŕéǫû…
[!! ×7 !!] ·─═┄┄● 201
Now running the tests";
        let found = unmarked_prose(output);
        assert_eq!(
            found.iter().map(|u| u.line).collect::<Vec<_>>(),
            [3],
            "the English after the cut line is prose outside the markers: {found:?}"
        );
    }

    #[test]
    fn a_message_said_in_the_pseudo_locale_leaves_no_prose_outside() {
        let message = mark(&format!(
            "{} {}",
            accent("The migration in"),
            "exercises/x.sql does not apply: relation \"payments\" does not exist"
        ));
        assert!(unmarked_prose(&message).is_empty(), "{message}");
    }
}
