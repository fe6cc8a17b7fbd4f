//! The small commands: hint, progress, reset, solution.

pub mod api;
pub mod doctor;
pub mod flaky;
pub mod manifests;
pub mod new_stage;
pub mod probe;
pub mod review;
pub mod stage;
pub mod timeline;
pub mod verify;
pub mod watch;

use std::path::{Path, PathBuf};

use crate::cargo::Cargo;
use crate::environment::command;
use crate::error::Error;
use crate::exercise_files::walk;
use crate::judgement::Judgement;
use crate::render;
use crate::review::{Review, Reviews};
use crate::state::State;
use crate::ui;
use crate::workbook::Workbook;
use l10n::t;

/// `workbook hint N`: the next hint, one more each time (`again`: how the
/// learner asks for the next one).
pub fn hint(wb: &Workbook, number: u32, again: Option<&str>) -> Result<(), Error> {
    let stage = wb.stage(number)?;
    let l = &wb.l10n;
    let state = State::new(&wb.state_dir);
    let total = stage.hints.len();
    if total == 0 {
        println!("{}", t!(l, "hint-none", number = number));
        return Ok(());
    }
    let hints = state.hints(number)?;
    if hints.shown >= total {
        println!(
            "{}",
            console::style(t!(l, "hint-all-shown", number = number, count = total)).bold()
        );
        for (i, text) in stage.hints.iter().enumerate() {
            println!("{}", ui::wrap(&format!("{}. {text}", i + 1), 2));
        }
        ui::note(&ui::wrap(
            &t!(
                l,
                "hint-solution",
                solution = command(&format!("solution {number}"))
            ),
            0,
        ));
        return Ok(());
    }
    // Counted under the lock: two `hint` at once show two hints.
    let hints = state.update_hints(number, |h| h.shown = (h.shown + 1).min(total))?;
    let index = hints.shown - 1;
    println!(
        "{}",
        console::style(t!(
            l,
            "hint-title",
            index = index + 1,
            count = total,
            number = number,
            title = &stage.title
        ))
        .bold()
    );
    println!("{}", ui::wrap(&stage.hints[index], 2));
    let note = if hints.shown < total {
        let again = match again {
            Some(key) => key.to_owned(),
            None => t!(
                l,
                "hint-again",
                command = command(&format!("hint {number}"))
            ),
        };
        t!(l, "hint-next", again = again)
    } else {
        t!(
            l,
            "hint-last",
            solution = command(&format!("solution {number}"))
        )
    };
    ui::note(&ui::wrap(&note, 0));
    Ok(())
}

/// `workbook progress`: stages done, predictions right or wrong, hints used.
pub fn progress(wb: &Workbook) -> Result<(), Error> {
    let l = &wb.l10n;
    let state = State::new(&wb.state_dir);
    let progress = state.progress()?;
    let mut table = ui::table([
        t!(l, "column-stage"),
        t!(l, "column-title"),
        t!(l, "column-status"),
        t!(l, "column-predictions"),
        t!(l, "column-hints"),
    ]);
    let mut next = None;
    let mut judged = Vec::new();
    for stage in &wb.stages {
        let entry = progress.stages.get(&stage.number);
        let done = entry.is_some_and(|e| e.done);
        let status = match entry {
            Some(e) if e.done => format!("{} {}", ui::PASS, t!(l, "status-done")),
            Some(e) if e.runs > 0 => t!(l, "status-tried", count = e.runs),
            _ => t!(l, "status-not-started"),
        };
        if !done && next.is_none() {
            next = Some(stage);
        }
        let results = entry.map(|e| &e.predictions);
        let predictions = match results {
            Some(r) if !r.is_empty() => t!(
                l,
                "predictions-right",
                right = r.values().filter(|p| p.right).count(),
                count = r.len()
            ),
            _ => "–".to_owned(),
        };
        if let Some(results) = results {
            for p in &stage.predictions {
                if let Some(r) = results.get(&p.id) {
                    let mut r = r.clone();
                    r.answer = p.shown_answer(&r.answer).to_owned();
                    judged.push((stage.number, p.question.clone(), r));
                }
            }
        }
        let hints = state.hints(stage.number)?.shown.min(stage.hints.len());
        table.add_row([
            stage.number.to_string(),
            stage.title.clone(),
            status,
            predictions,
            t!(l, "hints-used", used = hints, count = stage.hints.len()),
        ]);
    }
    ui::print_table(table);
    if !judged.is_empty() {
        let mut table = ui::table([
            t!(l, "column-stage"),
            t!(l, "column-question"),
            t!(l, "column-you-said"),
            t!(l, "column-what-happened"),
            String::new(),
        ]);
        for (number, question, r) in judged {
            table.add_row([
                number.to_string(),
                question,
                r.answer,
                r.observed,
                render::judgement(l, Judgement::kept(r.right)),
            ]);
        }
        ui::print_table(table);
    }
    review_progress(wb, &state)?;
    println!("{}", render::progress_bar(wb, &progress));
    let line = match next {
        Some(stage) => t!(
            l,
            "next-stage",
            number = stage.number,
            title = &stage.title,
            how = command(&format!("stage {}", stage.number))
        ),
        None => t!(l, "every-stage-done", review = command("review")),
    };
    println!("{}", ui::wrap(&line, 0));
    Ok(())
}

/// The capstone's line: routes reviewed, and the points their tests gave.
fn review_progress(wb: &Workbook, state: &State) -> Result<(), Error> {
    if !Review::file(&wb.root).exists() {
        return Ok(());
    }
    let review = Review::load(&wb.root)?;
    let reviews: Reviews = state.reviews()?;
    let (scored, points, out_of) = reviews.totals(&review);
    let l = &wb.l10n;
    let review_command = command("review");
    let line = if scored == 0 {
        t!(
            l,
            "review-none-yet",
            review = review_command,
            count = review.routes.len()
        )
    } else {
        t!(
            l,
            "review-scored",
            review = review_command,
            scored = scored,
            count = review.routes.len(),
            points = points,
            out_of = out_of
        )
    };
    println!("{}", ui::wrap(&line, 0));
    Ok(())
}

/// `workbook reset N`: restores the stage's files from git's HEAD and forgets
/// the stage's answers, hints and progress.
pub fn reset(wb: &Workbook, number: u32, yes: bool) -> Result<(), Error> {
    let stage = wb.stage(number)?;
    let l = &wb.l10n;
    let files = stage.edit.join(", ");
    if !yes {
        let what = if stage.edit.is_empty() {
            t!(l, "reset-what", number = number)
        } else {
            t!(l, "reset-what-files", number = number, files = &files)
        };
        println!("{}", ui::wrap(&what, 0));
        if !ui::confirm(
            &t!(l, "reset-confirm", number = number),
            &format!("`reset {number}`"),
        )? {
            println!("{}", t!(l, "reset-nothing-changed"));
            return Ok(());
        }
    }
    if !stage.edit.is_empty() {
        let out = std::process::Command::new("git")
            .arg("checkout")
            .arg("HEAD")
            .arg("--")
            .args(&stage.edit)
            .current_dir(&wb.root)
            .output()
            .map_err(|source| Error::Spawn {
                program: "git".into(),
                source,
            })?;
        if !out.status.success() {
            return Err(Error::Command {
                command: format!("git checkout HEAD -- {}", stage.edit.join(" ")),
                detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
    }
    State::new(&wb.state_dir).forget(number)?;
    let done = if stage.edit.is_empty() {
        t!(l, "reset-done", number = number)
    } else {
        t!(l, "reset-done-files", number = number, files = &files)
    };
    println!("{}", ui::wrap(&done, 0));
    Ok(())
}

/// `workbook solution N`: the model answer, once the stage passes or after a
/// confirmation.
pub fn solution(wb: &Workbook, number: u32, yes: bool) -> Result<(), Error> {
    let stage = wb.stage(number)?;
    let l = &wb.l10n;
    let state = State::new(&wb.state_dir);
    let done = state
        .progress()?
        .stages
        .get(&number)
        .is_some_and(|p| p.done);
    if !done && !yes {
        let question = t!(l, "solution-confirm", number = number);
        if !ui::confirm(&question, &t!(l, "solution-confirm-what", number = number))? {
            println!(
                "{}",
                t!(
                    l,
                    "solution-not-shown",
                    hint = command(&format!("hint {number}"))
                )
            );
            return Ok(());
        }
    }
    let cargo = Cargo::new(&wb.root, false);
    let dir = cargo.package_dir(&stage.solution)?;
    let files = solution_files(&dir);
    println!(
        "{}",
        console::style(t!(
            l,
            "solution-title",
            number = number,
            title = &stage.title,
            package = &stage.solution
        ))
        .bold()
    );
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|source| Error::Read {
            path: file.clone(),
            source,
        })?;
        println!(
            "\n{}",
            console::style(format!("── {} ──", wb.shown(&file))).cyan()
        );
        println!("{}", without_anchors(&text).trim_end());
    }
    Ok(())
}

/// A source without the book's `ANCHOR:` / `ANCHOR_END:` marker lines (mdBook's
/// include anchors: they mean nothing to a reader of the code).
fn without_anchors(text: &str) -> String {
    let is_marker = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        matches!(
            words.as_slice(),
            [comment, marker, _name] if matches!(*comment, "//" | "--" | "#")
                && matches!(*marker, "ANCHOR:" | "ANCHOR_END:")
        )
    };
    text.lines()
        .filter(|line| !is_marker(line))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// A solution's sources and migrations, in a stable order.
fn solution_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in ["src", "migrations"] {
        walk(&dir.join(sub), &mut files);
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_model_answer_is_shown_without_the_books_anchor_lines() {
        let text = "-- What it is.\n-- ANCHOR: payments\nCREATE TABLE payments ();\n\
                    -- ANCHOR_END: payments\n    // ANCHOR: body\nfn f() {}\n";
        assert_eq!(
            super::without_anchors(text),
            "-- What it is.\nCREATE TABLE payments ();\nfn f() {}\n"
        );
    }
}
