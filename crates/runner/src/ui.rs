//! The terminal: is anyone there, how wide it is, spinners, tables and prompts.

use std::time::Duration;

use comfy_table::{
    ColumnConstraint, ContentArrangement, Table, Width, presets::UTF8_FULL_CONDENSED,
};
use console::{Term, style};
use dialoguer::theme::ColorfulTheme;
use indicatif::{ProgressBar, ProgressStyle};

use crate::error::Error;
use l10n::Localiser;

// What the environment decides lives in `environment.rs`; `api` still asks here.
pub use crate::environment::stdout_is_terminal;

/// The marks every verdict is drawn with: change a glyph here, and only here.
pub const PASS: &str = "✔";
pub const FAIL: &str = "✘";
pub const SKIP: &str = "–";

/// The width to lay text out in: `COLUMNS`, the terminal's, or 100 columns.
pub fn width() -> u16 {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .or_else(|| Term::stdout().size_checked().map(|(_, cols)| cols))
        .unwrap_or(100)
        .clamp(40, 400)
}

pub fn table<T: Into<comfy_table::Cell>, const N: usize>(header: [T; N]) -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width())
        .set_header(header);
    table
}

/// Prints `table` so that no cell breaks a word: each column is at least as wide
/// as its longest word (a column's share of the width at most).
pub fn print_table(mut table: Table) {
    keep_words(&mut table);
    println!("{table}");
}

/// Sets each column's least width so that no word of the table is broken.
fn keep_words(table: &mut Table) {
    let columns = table.column_count();
    let table_width = table.width().unwrap_or_else(width);
    // A column's width holds its content and one space of padding each side.
    let available = usize::from(table_width).saturating_sub(columns + 1);
    let share = available / columns.max(1);
    let mut longest = vec![0usize; columns];
    let header = table.header().into_iter();
    for row in header.chain(table.row_iter()) {
        for (i, cell) in row.cell_iter().enumerate() {
            let word = cell
                .content()
                .split_whitespace()
                .map(|w| console::measure_text_width(w) + 2)
                .max()
                .unwrap_or(0);
            if let Some(w) = longest.get_mut(i) {
                *w = (*w).max(word);
            }
        }
    }
    // Each column its longest word, up to an even share; what the others leave
    // goes to the columns whose words are longer, the shortest needs first.
    let mut bounds: Vec<usize> = longest.iter().map(|w| (*w).min(share)).collect();
    let mut spare = available.saturating_sub(bounds.iter().sum());
    let mut needy: Vec<usize> = (0..columns).filter(|&i| longest[i] > bounds[i]).collect();
    needy.sort_by_key(|&i| longest[i]);
    for i in needy {
        let extra = (longest[i] - bounds[i]).min(spare);
        bounds[i] += extra;
        spare -= extra;
    }
    for (i, bound) in bounds.into_iter().enumerate() {
        if let Some(column) = table.column_mut(i)
            && column.constraint().is_none()
            && let Ok(bound) = u16::try_from(bound)
        {
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(bound)));
        }
    }
}

/// Gives column `index` at least `percent` of the table's width.
pub fn at_least(table: &mut Table, index: usize, percent: u16) {
    if let Some(column) = table.column_mut(index) {
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Percentage(percent)));
    }
}

/// Wraps `text` at word boundaries, indenting every line by `indent`.
pub fn wrap(text: &str, indent: usize) -> String {
    let width = usize::from(width()).saturating_sub(indent).max(20);
    let pad = " ".repeat(indent);
    let mut out = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in words(paragraph) {
            if !line.is_empty()
                && console::measure_text_width(&line) + 1 + console::measure_text_width(&word)
                    > width
            {
                out.push(format!("{pad}{line}"));
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        out.push(format!("{pad}{line}"));
    }
    out.join("\n")
}

/// The words of `text`, an inline code span (`just hint 1`) counting as one: a
/// line may break between words, never inside one or inside a span.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for word in text.split_whitespace() {
        match out.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => out.push(word.to_owned()),
        }
        if word.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    out
}

/// `label` then `text`, wrapped so that the lines after the first start under the
/// text, not under the label ("1/4 How many ...\n    payments ...").
pub fn hanging(label: &str, text: &str) -> String {
    let indent = label.chars().count();
    let wrapped = wrap(text, indent);
    format!("{label}{}", &wrapped[indent..])
}

/// Like [`wrap`], but keeps every line that fits as it is (a message may hold
/// an aligned table); only longer lines are wrapped, at spaces.
pub fn wrap_lines(text: &str, indent: usize) -> String {
    let width = usize::from(width()).saturating_sub(indent).max(20);
    let pad = " ".repeat(indent);
    text.split('\n')
        .map(|line| {
            if console::measure_text_width(line) <= width {
                format!("{pad}{line}")
            } else {
                wrap(line, indent)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One item a line, indented; an item too long for the width (`f::case_1, case_2,
/// ...`) goes on over more lines, broken after its commas, never inside a name.
pub fn wrap_list(items: &[String], indent: usize) -> String {
    list_in(items, indent, usize::from(width()))
}

fn list_in(items: &[String], indent: usize, columns: usize) -> String {
    let width = columns.saturating_sub(indent).max(20);
    let pad = " ".repeat(indent);
    let mut out = Vec::new();
    for item in items {
        let mut line = String::new();
        // Breaks after a comma; a name too long for a line of its own breaks after a
        // `::` too (an rstest function's name, then its case), never inside a word.
        let parts = item.split_inclusive(", ").flat_map(|part| {
            let too_long = console::measure_text_width(part.trim_end()) > width;
            let pieces: Vec<&str> = if too_long {
                part.split_inclusive("::").collect()
            } else {
                vec![part]
            };
            pieces
        });
        for part in parts {
            let fits = console::measure_text_width(line.trim_end())
                + console::measure_text_width(part.trim_end())
                <= width;
            if !line.is_empty() && !fits {
                out.push(format!("{pad}{}", line.trim_end()));
                line = "  ".to_owned();
            }
            line.push_str(part);
        }
        out.push(format!("{pad}{}", line.trim_end()));
    }
    out.join("\n")
}

pub fn heading(text: &str) {
    println!("\n{}", style(text).bold());
}

pub fn note(text: &str) {
    println!("{}", style(text).dim());
}

pub fn good(text: &str) -> String {
    style(text).green().bold().to_string()
}

pub fn bad(text: &str) -> String {
    style(text).red().bold().to_string()
}

pub fn warn(text: &str) -> String {
    style(text).yellow().bold().to_string()
}

/// A spinner on a terminal; plain status lines (on stderr) elsewhere.
pub struct Spinner {
    bar: Option<ProgressBar>,
    phase: String,
    l10n: Localiser,
    /// Says nothing at all: a run in the background, while another spinner speaks.
    silent: bool,
}

impl Spinner {
    /// Starts with no phase, speaking English; `phase` says what is going on.
    pub fn new() -> Self {
        Self::speaking(&crate::messages::english())
    }

    /// Starts with no phase; what the run tells on it is in `l10n`'s language.
    pub fn speaking(l10n: &Localiser) -> Self {
        let bar = Term::stderr().is_term().then(|| {
            let bar = ProgressBar::new_spinner();
            // `wide_msg`: a phase longer than the terminal is cut at its edge, not
            // wrapped in the middle of a word (Portuguese phases run long).
            if let Ok(s) = ProgressStyle::with_template("{spinner:.cyan} {wide_msg} {elapsed:.dim}")
            {
                bar.set_style(s);
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Self {
            bar,
            phase: String::new(),
            l10n: l10n.clone(),
            silent: false,
        }
    }

    /// A spinner that draws and prints nothing, for runs in the background.
    pub fn quiet() -> Self {
        Self {
            bar: None,
            phase: String::new(),
            l10n: crate::messages::english(),
            silent: true,
        }
    }

    /// The language the run's phases are told in.
    pub fn l10n(&self) -> &Localiser {
        &self.l10n
    }

    fn phase_line(&self, phase: &str) {
        if self.silent {
            return;
        }
        match &self.bar {
            Some(bar) => bar.set_message(phase.to_owned()),
            None => eprintln!("{phase}"),
        }
    }

    /// A new phase: printed even without a terminal.
    pub fn phase(&mut self, phase: &str) {
        if phase != self.phase {
            self.phase_line(phase);
            self.phase = phase.to_owned();
        }
    }

    /// A detail of the current phase: only a terminal shows it.
    pub fn detail(&self, detail: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{}: {detail}", self.phase));
        }
    }

    /// A line on stdout that the spinner does not garble.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| println!("{line}")),
            None => println!("{line}"),
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The terminal's settings before [`KeyMode::enter`], to put back at the end
/// (also on Ctrl-C: see `main`).
static SAVED_TERMINAL: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// The terminal in key-at-a-time mode (`stty -icanon -echo`: a key arrives when
/// pressed, without Enter, and is not echoed; output and Ctrl-C are unchanged)
/// until dropped.
pub struct KeyMode(());

impl KeyMode {
    /// `None` when stdin is no terminal (a pipe: keys come a line at a time).
    pub fn enter() -> Option<Self> {
        use std::io::IsTerminal;
        if !std::io::stdin().is_terminal() {
            return None;
        }
        let saved = stty(&["-g"])?;
        stty(&["-icanon", "-echo", "min", "1"])?;
        if let Ok(mut slot) = SAVED_TERMINAL.lock() {
            *slot = Some(saved.trim().to_owned());
        }
        Some(Self(()))
    }
}

impl Drop for KeyMode {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Puts back the terminal's settings, if [`KeyMode`] changed them.
pub fn restore_terminal() {
    let saved = SAVED_TERMINAL.lock().ok().and_then(|mut slot| slot.take());
    if let Some(saved) = saved {
        let _ = stty(&[saved.as_str()]);
    }
}

fn stty(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("stty")
        .args(args)
        .stdin(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A prompt's result; the cursor it hid is shown again whatever happened, and
/// Ctrl-C is an interruption, not an error.
fn answered<T>(result: dialoguer::Result<T>) -> Result<T, Error> {
    result.map_err(|e| {
        let _ = Term::stderr().show_cursor();
        match e {
            dialoguer::Error::IO(io) if io.kind() == std::io::ErrorKind::Interrupted => {
                Error::Interrupted
            }
            other => Error::Prompt(other),
        }
    })
}

/// Asks a yes/no question (default no); refuses without a terminal.
pub fn confirm(question: &str, what: &str) -> Result<bool, Error> {
    if !crate::environment::can_ask() {
        return Err(Error::NeedsConfirmation {
            what: what.to_owned(),
        });
    }
    answered(
        dialoguer::Confirm::with_theme(&ColorfulTheme::default())
            .with_prompt(question)
            .default(false)
            .interact_on(&Term::stderr()),
    )
}

/// A multiple-choice question: the index of the answer.
pub fn select(question: &str, choices: &[String]) -> Result<usize, Error> {
    answered(
        dialoguer::Select::with_theme(&ColorfulTheme::default())
            .with_prompt(question)
            .items(choices)
            .default(0)
            .interact_on(&Term::stderr()),
    )
}

/// An optional one-line answer.
pub fn line(prompt: &str) -> Result<Option<String>, Error> {
    let text: String = answered(
        dialoguer::Input::with_theme(&ColorfulTheme::default())
            .with_prompt(prompt)
            .allow_empty(true)
            .interact_text_on(&Term::stderr()),
    )?;
    let text = text.trim();
    Ok((!text.is_empty()).then(|| text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::list_in;

    #[test]
    fn a_table_never_breaks_a_word() {
        let mut table = super::table(["stage", "pair", "runs", "failures", "first one"]);
        table.set_width(100);
        let long = "a_slow_request_does_not_starve_requests_for_other_keys";
        table.add_row([
            "5".to_owned(),
            format!("stage5-wrong-unbounded-lock-wait is caught by {long}"),
            "2".to_owned(),
            "0".to_owned(),
            "some words that may wrap anywhere between them".to_owned(),
        ]);
        super::keep_words(&mut table);
        let text = table.to_string();
        assert!(text.contains(long), "{text}");
        assert!(
            text.lines().all(|l| console::measure_text_width(l) <= 100),
            "{text}"
        );
    }

    #[test]
    fn wrapping_never_breaks_an_inline_code_span() {
        let text = "Fix what the compiler says, then run `cargo workbook stage 3` again. \
                    Stuck? `cargo workbook hint 3`.";
        for indent in 0..30 {
            let wrapped = super::wrap(text, indent);
            for line in wrapped.lines() {
                assert_eq!(
                    line.matches('`').count() % 2,
                    0,
                    "a span broken at indent {indent}:\n{wrapped}"
                );
            }
        }
        assert_eq!(
            super::words("run `just hint 1` now"),
            ["run", "`just hint 1`", "now"]
        );
    }

    #[test]
    fn a_hanging_label_keeps_every_line_within_the_width() {
        let question = "How many payments are made when twenty requests with one key arrive \
                        while the first is held in its payment? "
            .repeat(3);
        let text = super::hanging("1/4 ", &question);
        assert!(text.starts_with("1/4 How many"), "{text}");
        let width = usize::from(super::width());
        for line in text.lines().skip(1) {
            assert!(
                line.starts_with("    ") && !line.starts_with("     "),
                "{text}"
            );
        }
        assert!(text.lines().all(|l| l.chars().count() <= width), "{text}");
    }

    #[test]
    fn a_case_too_long_for_its_function_line_goes_on_the_next() {
        let items = vec![
            "a_failed_provider_call_is_answered_502_and_the_retry_charges_once::\
             case_1_charge_then_drop_answer, case_2_fail_before_charging"
                .to_owned(),
        ];
        let text = list_in(&items, 4, 80);
        assert_eq!(
            text,
            "    a_failed_provider_call_is_answered_502_and_the_retry_charges_once::\n      \
             case_1_charge_then_drop_answer, case_2_fail_before_charging"
        );
    }

    #[test]
    fn a_long_list_of_cases_breaks_after_a_comma_never_inside_a_name() {
        let items = vec![
            "created_at_defaults_to_now".to_owned(),
            "idempotency_keys_has_the_column::case_1_key, case_2_body_hash, case_3_status, \
             case_4_response, case_5_created_at"
                .to_owned(),
        ];
        let text = list_in(&items, 4, 60);
        assert_eq!(
            text,
            "    created_at_defaults_to_now\n    \
             idempotency_keys_has_the_column::case_1_key,\n      \
             case_2_body_hash, case_3_status, case_4_response,\n      \
             case_5_created_at"
        );
        assert!(
            text.lines().all(|line| line.chars().count() <= 60),
            "{text}"
        );
    }
}
