//! `workbook new-stage N SLUG` (a maintainer's command, hidden from the learner's
//! help): writes the smallest stage that builds, and leaves the rest for the
//! checks to name.
//!
//! It writes the solution and exercise crates (one function, the exercise's
//! manifest derived from the solution's), the test file (one test), the chapter,
//! the model-answer page and the instructor notes
//! (`crates/runner/templates/new-stage/`), and adds the stage to `stages.toml`,
//! `stages.pt-BR.toml`, the book's SUMMARY, the README's table, the book's
//! descriptions (how many stages) and `book/results.py` (a stub). Cargo's
//! workspace takes the two crates by its globs; `cargo update --workspace` then
//! checks that it loads, and adds them to Cargo.lock. What is left to write (the goal, the
//! predictions, the tests, the model answer, the pages, the translation) is what
//! `cargo workbook verify --stage N` and `just book-check` fail on: README,
//! "Adding a stage".

use std::path::{Path, PathBuf};

use crate::cargo::Cargo;
use crate::error::Error;
use crate::manifests::exercise_manifest;
use crate::supervise;
use crate::ui;
use crate::workbook::Workbook;

/// The templates, with `{{N}}`, `{{SLUG}}`, `{{TITLE}}` and `{{TEST}}` to fill.
const SOLUTION_MANIFEST: &str = include_str!("../../templates/new-stage/solution.Cargo.toml");
const SOLUTION_LIB: &str = include_str!("../../templates/new-stage/solution.lib.rs.in");
const EXERCISE_LIB: &str = include_str!("../../templates/new-stage/exercise.lib.rs.in");
const TEST: &str = include_str!("../../templates/new-stage/test.rs.in");
const CHAPTER: &str = include_str!("../../templates/new-stage/chapter.md");
const SOLUTION_PAGE: &str = include_str!("../../templates/new-stage/solution.md");
const INSTRUCTORS: &str = include_str!("../../templates/new-stage/instructors.md");

/// What the new stage is called.
#[derive(Debug, Clone)]
pub struct NewStage {
    pub number: u32,
    pub slug: String,
    pub title: String,
}

impl NewStage {
    /// `title` defaults to the slug in words ("key-on-two-machines": "Key on two machines").
    pub fn new(number: u32, slug: &str, title: Option<&str>) -> Self {
        let title = title.map(str::to_owned).unwrap_or_else(|| {
            let words = slug.replace('-', " ");
            let mut chars = words.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect())
                .unwrap_or_default()
        });
        Self {
            number,
            slug: slug.to_owned(),
            title,
        }
    }

    fn dir(&self) -> String {
        format!("stage{}-{}", self.number, self.slug)
    }

    /// The test file's name: `stageN_SLUG`.
    fn test(&self) -> String {
        format!("stage{}_{}", self.number, self.slug.replace('-', "_"))
    }

    fn fill(&self, template: &str) -> String {
        template
            .replace("{{N}}", &self.number.to_string())
            .replace("{{SLUG}}", &self.slug)
            .replace("{{TITLE}}", &self.title)
            .replace("{{TEST}}", &self.test())
    }
}

fn refused(detail: String) -> Error {
    Error::Command {
        command: "cargo workbook new-stage".to_owned(),
        detail,
    }
}

/// Writes stage `new` into the workbook; true when it is written.
pub fn run(wb: &Workbook, new: &NewStage) -> Result<bool, Error> {
    let next = wb.stages.iter().map(|s| s.number).max().unwrap_or(0) + 1;
    if new.number != next {
        return Err(refused(format!(
            "stages are numbered 1, 2, 3, ... and {} has {}: the new stage is {next}",
            wb.shown(&wb.stages_file),
            next - 1
        )));
    }
    let valid = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    };
    if !new.slug.split('-').all(valid) || new.slug.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(refused(format!(
            "the slug {:?} is not lowercase words joined by dashes (e.g. key-on-two-machines)",
            new.slug
        )));
    }
    if wb
        .stages
        .iter()
        .any(|s| s.slug.as_deref() == Some(new.slug.as_str()))
    {
        return Err(refused(format!("a stage is already called {:?}", new.slug)));
    }
    let root = &wb.root;
    let dir = new.dir();
    let solution = PathBuf::from("solutions").join(&dir);
    let exercise = PathBuf::from("exercises").join(&dir);
    let solution_manifest = new.fill(SOLUTION_MANIFEST);
    let exercise_manifest = exercise_manifest(&solution_manifest, &solution, &exercise)
        .map_err(|e| refused(e.to_string()))?;
    let files: Vec<(PathBuf, String)> = vec![
        (solution.join("Cargo.toml"), solution_manifest),
        (solution.join("src/lib.rs"), new.fill(SOLUTION_LIB)),
        (exercise.join("Cargo.toml"), exercise_manifest),
        (exercise.join("src/lib.rs"), new.fill(EXERCISE_LIB)),
        (
            PathBuf::from("tests").join(format!("{}.rs", new.test())),
            new.fill(TEST),
        ),
        (
            PathBuf::from(format!("book/src/stage{}.md", new.number)),
            new.fill(CHAPTER),
        ),
        (
            PathBuf::from(format!("book/src/stage{}-solution.md", new.number)),
            new.fill(SOLUTION_PAGE),
        ),
        (
            PathBuf::from(format!("book/src/instructors/stage{}.md", new.number)),
            new.fill(INSTRUCTORS),
        ),
    ];
    if let Some((taken, _)) = files.iter().find(|(path, _)| root.join(path).exists()) {
        return Err(refused(format!("{} exists already", taken.display())));
    }
    // Every file is read and changed before anything is written: a workbook that
    // does not look as expected is refused whole.
    let edits = edits(root, new)?;
    for (path, text) in files.iter().chain(&edits) {
        let path = root.join(path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Write {
                path: dir.to_owned(),
                source,
            })?;
        }
        std::fs::write(&path, text).map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
    }
    for (path, _) in &files {
        println!("wrote   {}", path.display());
    }
    for (path, _) in &edits {
        println!("changed {}", path.display());
    }
    // The workspace takes the two crates by its globs: locking them checks that it
    // loads, and adds them to Cargo.lock (and nothing else: no dependency moves).
    let (loads, said) = supervise::output(Cargo::new(root, false).command(&[
        "update",
        "--workspace",
        "--offline",
    ]))?;
    if !loads {
        return Err(refused(format!(
            "the files are written, but the workspace does not load: {}",
            said.trim()
        )));
    }
    ui::note(&format!(
        "Stage {n} builds: one function, one test, three pages. What is left to write, \
         `cargo workbook verify --stage {n}` and `just book-check` say (README: \"Adding a \
         stage\").",
        n = new.number
    ));
    Ok(true)
}

/// The files the new stage is added to, as they will read.
fn edits(root: &Path, new: &NewStage) -> Result<Vec<(PathBuf, String)>, Error> {
    let read = |path: &str| {
        let full = root.join(path);
        std::fs::read_to_string(&full)
            .map(|text| (PathBuf::from(path), text))
            .map_err(|source| Error::Read { path: full, source })
    };
    let mut out = Vec::new();
    let (path, text) = read("stages.toml")?;
    out.push((path, append(&text, &stage_entry(new))));
    let (path, text) = read("stages.pt-BR.toml")?;
    out.push((path, append(&text, &twin_entry(new))));
    let (path, text) = read("book/src/SUMMARY.md")?;
    out.push((path, summary(&text, new).map_err(refused)?));
    let (path, text) = read("README.md")?;
    out.push((path, readme(&text, new).map_err(refused)?));
    let (path, text) = read("book/book.toml")?;
    out.push((
        path,
        count_in_description(&text, new.number, &ENGLISH).map_err(refused)?,
    ));
    let (path, text) = read("book/po/languages.toml")?;
    out.push((
        path,
        count_in_description(&text, new.number, &PORTUGUESE).map_err(refused)?,
    ));
    let (path, text) = read("book/results.py")?;
    out.push((path, results_stub(&text, new).map_err(refused)?));
    Ok(out)
}

fn append(text: &str, entry: &str) -> String {
    format!("{}\n{entry}", text.trim_end_matches('\n').to_owned() + "\n")
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

fn stage_entry(new: &NewStage) -> String {
    format!(
        "[[stage]]\n\
         number = {n}\n\
         slug = \"{slug}\"\n\
         title = {title}\n\
         # Written by `cargo workbook new-stage`: `cargo workbook verify --stage {n}` names\n\
         # what is left (the goal, the hints, the predictions with their answer key, the\n\
         # outcome, the known-wrong variants).\n\
         goal = \"\"\n\
         outcome = \"\"\n\
         edit = [\"exercises/stage{n}-{slug}/src/lib.rs\"]\n\
         hints = []\n",
        n = new.number,
        slug = new.slug,
        title = quoted(&new.title),
    )
}

fn twin_entry(new: &NewStage) -> String {
    format!(
        "[[stage]]\n\
         number = {n}\n\
         # Written by `cargo workbook new-stage`: `cargo workbook verify` names each text of\n\
         # stages.toml that has no twin here yet.\n\
         title = \"\"\n\
         goal = \"\"\n\
         hints = []\n",
        n = new.number,
    )
}

/// SUMMARY.md with the stage's chapter, model answer and instructor notes, each
/// after the previous stage's.
fn summary(text: &str, new: &NewStage) -> Result<String, String> {
    let (n, before) = (new.number, new.number - 1);
    let mut out = text.to_owned();
    for (after, line) in [
        (
            format!("(stage{before}.md)"),
            format!("- [Stage {n}: {}](stage{n}.md)", new.title),
        ),
        (
            format!("(stage{before}-solution.md)"),
            format!("- [Stage {n}: {}](stage{n}-solution.md)", new.title),
        ),
        (
            format!("(instructors/stage{before}.md)"),
            format!("    - [Stage {n}](instructors/stage{n}.md)"),
        ),
    ] {
        out = insert_after_line(&out, &after, &line).ok_or_else(|| {
            format!("book/src/SUMMARY.md has no line with {after} to put stage {n}'s after")
        })?;
    }
    Ok(out)
}

/// The README's stage table with the stage's row, after the previous one; what the
/// learner builds is left for the author (book/check.py asks for it).
fn readme(text: &str, new: &NewStage) -> Result<String, String> {
    let previous = format!("| {} |", new.number - 1);
    let row = format!("| {} | {} | |", new.number, new.title);
    insert_after_line(text, &previous, &row).ok_or_else(|| {
        format!(
            "README.md has no row `{previous} ...` in its stage table to put stage {}'s after",
            new.number
        )
    })
}

/// `text` with `line` after the first line that holds (or, for a table row,
/// starts with) `after`.
fn insert_after_line(text: &str, after: &str, line: &str) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let at = lines.iter().position(|l| {
        if after.starts_with('|') {
            l.starts_with(after)
        } else {
            l.contains(after)
        }
    })?;
    let mut out: Vec<&str> = lines[..=at].to_vec();
    out.push(line);
    out.extend(&lines[at + 1..]);
    Some(out.join("\n"))
}

/// Numbers as the book's descriptions write them.
const ENGLISH: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];
const PORTUGUESE: [&str; 21] = [
    "zero",
    "uma",
    "duas",
    "três",
    "quatro",
    "cinco",
    "seis",
    "sete",
    "oito",
    "nove",
    "dez",
    "onze",
    "doze",
    "treze",
    "catorze",
    "quinze",
    "dezesseis",
    "dezessete",
    "dezoito",
    "dezenove",
    "vinte",
];

/// The `description = ...` line of `text` with the count of stages, in words, one
/// more: "in twelve test-driven stages" becomes "in thirteen ...".
fn count_in_description(text: &str, number: u32, words: &[&str; 21]) -> Result<String, String> {
    let (Some(old), Some(new)) = (words.get(number as usize - 1), words.get(number as usize))
    else {
        return Err(format!(
            "no word for {number} stages in a book's description"
        ));
    };
    let mut found = false;
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            if !found && line.starts_with("description") {
                let replaced = replace_word(line, old, new);
                found = replaced != line;
                replaced
            } else {
                line.to_owned()
            }
        })
        .collect();
    if found {
        Ok(lines.join("\n"))
    } else {
        Err(format!(
            "no description says \"{old}\" (stages) to make it \"{new}\""
        ))
    }
}

/// `line` with the first whole word `old` made `new`.
fn replace_word(line: &str, old: &str, new: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric();
    let mut from = 0;
    while let Some(i) = line[from..].find(old) {
        let at = from + i;
        let end = at + old.len();
        let before = line[..at].chars().next_back();
        let after = line[end..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return format!("{}{new}{}", &line[..at], &line[end..]);
        }
        from = end;
    }
    line.to_owned()
}

/// book/results.py with a stub for the stage in `RESULTS`, which results.py
/// refuses to render until it is written.
fn results_stub(text: &str, new: &NewStage) -> Result<String, String> {
    let start = text
        .find("\nRESULTS = {\n")
        .ok_or("book/results.py has no `RESULTS = {` to add the stage's results to")?;
    let close = text[start + 1..]
        .find("\n}\n")
        .map(|i| start + 1 + i + 1)
        .ok_or("book/results.py's `RESULTS = {` has no closing `}` at the start of a line")?;
    let stub = format!(
        "    # Stage {n}, a stub written by `cargo workbook new-stage`: name the scenarios its\n    \
         # tests record and the rows or section they give the results page (as the entries\n    \
         # above do), or None, with why the stage has no results (as \"tables\").\n    \
         \"{slug}\": dict(todo=True),\n",
        n = new.number,
        slug = new.slug
    );
    Ok(format!("{}{stub}{}", &text[..close], &text[close..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failover() -> NewStage {
        NewStage::new(13, "key-on-two-machines", None)
    }

    #[test]
    fn a_new_stage_is_named_after_its_number_and_slug() {
        let new = failover();
        assert_eq!(new.title, "Key on two machines");
        assert_eq!(new.dir(), "stage13-key-on-two-machines");
        assert_eq!(new.test(), "stage13_key_on_two_machines");
        let manifest = new.fill(SOLUTION_MANIFEST);
        assert!(
            manifest.contains("name = \"stage13-key-on-two-machines-solution\"")
                && manifest.contains("path = \"../../tests/stage13_key_on_two_machines.rs\""),
            "{manifest}"
        );
        assert!(
            !new.fill(CHAPTER).contains("{{") || new.fill(CHAPTER).contains("{{#include"),
            "a placeholder was left unfilled"
        );
    }

    #[test]
    fn the_new_stage_goes_after_the_last_one_in_summary_and_readme() {
        let summary_text = "# The stages\n\n- [Stage 12: The middleware](stage12.md)\n\n\
                            # Model answers\n\n- [Stage 12: The middleware](stage12-solution.md)\n\n\
                            # For instructors\n\n    - [Stage 12](instructors/stage12.md)\n    \
                            - [Review a route](instructors/review.md)\n";
        let got = summary(summary_text, &failover()).expect("inserted");
        assert!(
            got.contains(
                "(stage12.md)\n- [Stage 13: Key on two machines](stage13.md)\n\n# Model answers"
            ) && got.contains(
                "(stage12-solution.md)\n- [Stage 13: Key on two machines](stage13-solution.md)\n"
            ) && got.contains(
                "(instructors/stage12.md)\n    - [Stage 13](instructors/stage13.md)\n    - [Review"
            ),
            "{got}"
        );
        let table = "| stage | title | you build |\n|---|---|---|\n| 12 | The middleware | a layer |\n\n## Quickstart\n";
        let got = readme(table, &failover()).expect("inserted");
        assert!(
            got.contains("| 12 | The middleware | a layer |\n| 13 | Key on two machines | |\n\n"),
            "{got}"
        );
        assert!(
            summary("# nothing\n", &failover())
                .expect_err("refused")
                .contains("no line with (stage12.md)"),
            "a SUMMARY without the previous stage is refused, not written"
        );
    }

    #[test]
    fn the_count_of_stages_in_a_description_goes_up_by_one_in_its_language() {
        let book = "[book]\ndescription = \"Safe retries, in twelve test-driven stages.\"\n";
        assert_eq!(
            count_in_description(book, 13, &ENGLISH).expect("counted"),
            "[book]\ndescription = \"Safe retries, in thirteen test-driven stages.\"\n"
        );
        let pt = "description = \"Torne ... em doze etapas guiadas por testes.\"\n";
        assert_eq!(
            count_in_description(pt, 13, &PORTUGUESE).expect("counted"),
            "description = \"Torne ... em treze etapas guiadas por testes.\"\n"
        );
        assert!(count_in_description("description = \"no count\"\n", 13, &ENGLISH).is_err());
    }

    #[test]
    fn the_results_stub_goes_at_the_end_of_results() {
        let text = "X = 1\nRESULTS = {\n    \"tables\": None,\n}\n\n\ndef f():\n    pass\n";
        let got = results_stub(text, &failover()).expect("inserted");
        assert!(
            got.contains("    \"tables\": None,\n    # Stage 13, a stub")
                && got.contains("    \"key-on-two-machines\": dict(todo=True),\n}\n\n\ndef f():"),
            "{got}"
        );
    }

    #[test]
    fn the_stage_entries_are_toml_the_runner_reads() {
        let new = NewStage::new(13, "quoted", Some("A \"quoted\" title"));
        let text = append(
            "[[stage]]\nnumber = 12\nslug = \"x\"\ntitle = \"X\"\ngoal = \"\"\n",
            &stage_entry(&new),
        );
        let stages = crate::stages::parse(&text).expect("the new entry parses");
        let stage = &stages[1];
        assert_eq!(
            (stage.number, stage.title.as_str()),
            (13, "A \"quoted\" title")
        );
        assert_eq!(stage.exercise, "stage13-quoted-exercise");
        assert_eq!(stage.test, "stage13");
        assert!(
            stage.problems().contains(&"has no goal".to_owned()),
            "a new stage's problems name its goal: {:?}",
            stage.problems()
        );
    }
}
