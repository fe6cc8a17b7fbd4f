//! `workbook review`: the capstone. The learner reads a route, says of each item
//! of the checklist whether the route gets it right, and the route then runs for
//! real: its tests' evidence is shown beside the review, with the fix.

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::cargo::{Cargo, Targets};
use crate::error::Error;
use crate::review::{
    Evidence, Grade, Item, Review, ReviewAnswer, Route, RouteReview, TEST_TARGET, Verdict,
    disagreements, lines,
};
use crate::run::{PackageRun, build_and_run};
use crate::state::{State, now};
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;

#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// Only this route (its letter).
    pub route: Option<String>,
    /// Forget the earlier reviews of the routes reviewed now.
    pub again: bool,
    /// Ask nothing: run every route and show what the evidence says.
    pub evidence_only: bool,
    pub timeout: Duration,
}

/// Runs the review; true when it went through (and, with `--evidence`, when the
/// evidence agrees with the answer key).
pub fn run(wb: &Workbook, options: &ReviewOptions) -> Result<bool, Error> {
    let review = Review::load(&wb.root)?;
    let routes = selected(&review, options.route.as_deref())?;
    let cargo = Cargo::new(&wb.root, crate::environment::stdout_is_terminal());
    if options.evidence_only || !crate::environment::can_ask() {
        if !options.evidence_only {
            ui::note("(Nobody can answer here, no terminal: showing the evidence only.)");
        }
        return evidence_table(wb, &review, &routes, &cargo, options.timeout);
    }
    let state = State::new(&wb.state_dir);
    let mut reviews = state.reviews()?;
    if options.again {
        for route in &routes {
            reviews.routes.remove(&route.name);
        }
        state.save_reviews(&reviews)?;
    }
    let open: Vec<&Route> = routes
        .iter()
        .copied()
        .filter(|r| !reviews.routes.contains_key(&r.name))
        .collect();
    if open.is_empty() {
        show_summary(&review, &reviews);
        ui::note(&format!(
            "  Every route is reviewed. {} starts over.",
            crate::environment::command("review --again")
        ));
        return Ok(true);
    }
    introduce(&review, open.len());
    // Build every route while the learner reads the first one.
    let mut build = prebuild(&cargo, &open);
    for (i, route) in open.iter().enumerate() {
        let source = read_route(wb, route)?;
        show_route(route, &source);
        let answers = ask(&review, route, &source)?;
        reviews.routes.insert(
            route.name.clone(),
            RouteReview {
                answers: answers.clone(),
                score: None,
                reviewed_at: now(),
            },
        );
        state.save_reviews(&reviews)?;

        let mut spinner = Spinner::new();
        if let Some(mut child) = build.take() {
            spinner.phase("Finishing the build of the routes (started while you read)");
            let _ = child.wait();
        }
        let run = run_route(&cargo, &state, route, options.timeout, &mut spinner);
        spinner.finish();
        let run = run?;
        let evidence = Evidence::of(&review, &run);
        let score = show_verdicts(&review, route, &source, &answers, &evidence);
        if let Some(entry) = reviews.routes.get_mut(&route.name) {
            entry.score = Some(score);
        }
        state.save_reviews(&reviews)?;
        if i + 1 < open.len() && !ui::confirm("Next route?", "the next route")? {
            break;
        }
    }
    show_summary(&review, &reviews);
    Ok(true)
}

fn selected<'a>(review: &'a Review, name: Option<&str>) -> Result<Vec<&'a Route>, Error> {
    match name {
        None => Ok(review.routes.iter().collect()),
        Some(name) => review
            .routes
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
            .map(|r| vec![r])
            .ok_or_else(|| Error::NoRoute {
                name: name.to_owned(),
                available: review
                    .routes
                    .iter()
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
    }
}

fn read_route(wb: &Workbook, route: &Route) -> Result<String, Error> {
    let path = wb.root.join(&route.file);
    std::fs::read_to_string(&path).map_err(|source| Error::Read { path, source })
}

/// `cargo test --no-run` of the routes' review tests, in the background: its
/// output is not needed, only what it leaves in the target directory.
fn prebuild(cargo: &Cargo, routes: &[&Route]) -> Option<Child> {
    let manifest = cargo.root.join("Cargo.toml");
    let mut command = cargo.command(&["test", "--no-run", "--quiet"]);
    command.arg("--manifest-path").arg(&manifest);
    for route in routes {
        command.args(["-p", &route.package]);
    }
    command
        .args(["--test", TEST_TARGET])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command.spawn().ok()
}

fn run_route(
    cargo: &Cargo,
    state: &State,
    route: &Route,
    timeout: Duration,
    spinner: &mut Spinner,
) -> Result<PackageRun, Error> {
    let file = state.run_file(&format!("review-{}", route.name))?;
    build_and_run(
        cargo,
        Targets::Test {
            package: &route.package,
            target: TEST_TARGET,
        },
        file.path(),
        timeout,
        spinner,
        &format!("route {} against the checklist's tests", route.name),
        None,
    )
}

fn introduce(review: &Review, count: usize) {
    println!(
        "{}",
        console::style("Review a route · the capstone")
            .bold()
            .cyan()
    );
    println!(
        "{}",
        ui::wrap(
            &format!(
                "{count} route{} of `POST /payments`, one at a time. Read each as a reviewer \
                 would, and say of each item below whether the route gets it right \
                 (correct), gets it wrong (incorrect: say the line), or does not do it at \
                 all (absent). Then the route runs for real, on PostgreSQL, and its tests \
                 say what really happens.",
                if count == 1 { "" } else { "s" }
            ),
            2
        )
    );
    for item in &review.items {
        println!("{}", ui::wrap(&format!("· {}", item.question), 4));
    }
}

fn show_route(route: &Route, source: &str) {
    println!();
    ui::heading(&format!("Route {} ({})", route.name, route.file.display()));
    show_lines(source, 0, usize::MAX);
}

/// Lines `from..from + count` of `source`, numbered from 1.
fn show_lines(source: &str, from: usize, count: usize) {
    let width = source.lines().count().to_string().len();
    for (i, line) in source.lines().enumerate().skip(from).take(count) {
        println!(
            "{} {line}",
            console::style(format!("{:>width$}", i + 1)).dim()
        );
    }
}

fn ask(
    review: &Review,
    route: &Route,
    source: &str,
) -> Result<BTreeMap<String, ReviewAnswer>, Error> {
    println!();
    ui::heading(&format!("Your review of route {}", route.name));
    let labels: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| match v {
            Verdict::Correct => "correct: it does this, and right".to_owned(),
            Verdict::Incorrect => "incorrect: it does this, wrong (you give the line)".to_owned(),
            Verdict::Absent => "absent: nothing in it does this".to_owned(),
            Verdict::NotApplicable => "not applicable: the question does not arise here".to_owned(),
        })
        .collect();
    let mut answers = BTreeMap::new();
    for (i, item) in review.items.iter().enumerate() {
        let number = format!("{}/{} ", i + 1, review.items.len());
        println!(
            "{}",
            console::style(ui::hanging(&number, &item.question)).bold()
        );
        // "Not applicable" is offered only where it may be the answer.
        let offered = if item.may_not_apply { 4 } else { 3 };
        let verdict = Verdict::ALL[ui::select("Route's answer", &labels[..offered])?];
        let line = if verdict == Verdict::Incorrect {
            ask_line(item, source)?
        } else {
            None
        };
        answers.insert(item.id.clone(), ReviewAnswer { verdict, line });
    }
    Ok(answers)
}

/// Asks which line is wrong, with the route on screen a page at a time (a
/// page fits the terminal, whatever its height): `m` shows the next page, `b`
/// the one before.
fn ask_line(item: &Item, source: &str) -> Result<Option<usize>, Error> {
    let total = source.lines().count();
    let rows = usize::from(console::Term::stdout().size().0);
    // The question, the page's heading and the prompt stay on screen too.
    let page = rows.saturating_sub(8).max(10);
    let mut from = 0;
    loop {
        let to = (from + page).min(total);
        println!();
        ui::note(&format!(
            "Route, lines {}–{to} of {total} ({}):",
            from + 1,
            item.label
        ));
        show_lines(source, from, page);
        let more = if total > page {
            "; m: more lines, b: back"
        } else {
            ""
        };
        let Some(text) = ui::line(&format!("Which line? (a number; Enter to skip{more})"))? else {
            return Ok(None);
        };
        match text.as_str() {
            "m" => from = if to >= total { 0 } else { to },
            "b" => from = from.saturating_sub(page),
            _ => match text.parse::<usize>() {
                Ok(line) if (1..=total).contains(&line) => return Ok(Some(line)),
                _ => ui::note(&format!(
                    "  {text:?} is not a line of the route (1 to {total})."
                )),
            },
        }
    }
}

/// The review beside the evidence, item by item; returns (points, out of).
fn show_verdicts(
    review: &Review,
    route: &Route,
    source: &str,
    answers: &BTreeMap<String, ReviewAnswer>,
    evidence: &BTreeMap<String, Evidence>,
) -> (u32, u32) {
    ui::heading(&format!(
        "Route {}: your review, and what really happened",
        route.name
    ));
    let mut table = ui::table(["item", "you said", "what happened", ""]);
    ui::at_least(&mut table, 2, 55);
    let (mut points, mut out_of) = (0, 0);
    for item in &review.items {
        let key = route.broken.get(&item.id);
        let said = answers
            .get(&item.id)
            .map_or("(not asked)".to_owned(), |a| match a.line {
                Some(line) => format!("{}, line {line}", a.verdict.word()),
                None => a.verdict.word().to_owned(),
            });
        let happened = match (evidence.get(&item.id), key) {
            (Some(Evidence::Broken(seen)), Some(fault)) => {
                let place = lines(source, fault)
                    .map(|(a, b)| format!(" (lines {a}–{b})"))
                    .unwrap_or_default();
                format!(
                    "{}{place}: {seen}\n{}\nFix: {} Stage {} teaches it.",
                    fault.verdict.word(),
                    fault.why,
                    item.fix,
                    item.stage
                )
            }
            (Some(Evidence::Broken(seen)), None) => format!("broken: {seen}"),
            (Some(Evidence::Holds), _) if !route.applies(item) => {
                "not applicable: the route calls nothing outside the database".to_owned()
            }
            (Some(Evidence::Holds), _) => "correct: its test passes".to_owned(),
            (Some(Evidence::Unknown(why)), _) => format!("unknown: {why}"),
            (None, _) => "unknown: not run".to_owned(),
        };
        let mark = match answers.get(&item.id) {
            Some(answer) => {
                let grade = Grade::of(answer, key, route.applies(item), source);
                let (p, of) = grade.points();
                points += p;
                out_of += of;
                match (grade.verdict_right, grade.line_right) {
                    (true, Some(false)) => format!("{} (line {})", ui::PASS, ui::FAIL),
                    (true, _) => ui::PASS.to_owned(),
                    (false, _) => ui::FAIL.to_owned(),
                }
            }
            None => String::new(),
        };
        table.add_row([item.label.clone(), said, happened, mark]);
    }
    ui::print_table(table);
    ui::note(&ui::wrap(
        &format!(
            "{points} of {out_of} points for route {} (one per item judged right; one more \
             for the line of each fault that is in the code).",
            route.name
        ),
        2,
    ));
    (points, out_of)
}

fn show_summary(review: &Review, reviews: &crate::review::Reviews) {
    ui::heading("Your reviews");
    let mut table = ui::table(["route", "points"]);
    for route in &review.routes {
        let shown = match reviews.routes.get(&route.name).map(|r| r.score) {
            Some(Some((p, of))) => format!("{p} of {of}"),
            Some(None) => "not run yet".to_owned(),
            None => "not reviewed".to_owned(),
        };
        table.add_row([route.name.clone(), shown]);
    }
    let (_, points, out_of) = reviews.totals(review);
    ui::print_table(table);
    if out_of > 0 {
        ui::note(&format!("  In all: {points} of {out_of} points."));
    }
}

/// Every route run, and what its tests find broken, beside the answer key.
fn evidence_table(
    wb: &Workbook,
    review: &Review,
    routes: &[&Route],
    cargo: &Cargo,
    timeout: Duration,
) -> Result<bool, Error> {
    let state = State::new(&wb.state_dir);
    let mut spinner = Spinner::new();
    let mut rows = Vec::new();
    for route in routes {
        let run = run_route(cargo, &state, route, timeout, &mut spinner);
        let run = match run {
            Ok(run) => run,
            Err(e) => {
                spinner.finish();
                return Err(e);
            }
        };
        rows.push((*route, Evidence::of(review, &run)));
    }
    spinner.finish();
    ui::heading("The routes, run: what their tests find broken");
    let mut table = ui::table([
        "route",
        "broken, by the evidence",
        "what was observed",
        "key",
    ]);
    let mut agree = true;
    for (route, evidence) in &rows {
        let broken: Vec<&str> = evidence
            .iter()
            .filter(|(_, e)| e.is_broken())
            .map(|(id, _)| id.as_str())
            .collect();
        let observed: Vec<String> = evidence
            .values()
            .filter_map(|e| match e {
                Evidence::Broken(seen) | Evidence::Unknown(seen) => Some(seen.clone()),
                Evidence::Holds => None,
            })
            .collect();
        let problems = disagreements(route, evidence);
        agree &= problems.is_empty();
        table.add_row([
            route.name.clone(),
            if broken.is_empty() {
                "none".to_owned()
            } else {
                broken.join("\n")
            },
            if observed.is_empty() {
                "every test passes".to_owned()
            } else {
                observed.join("\n")
            },
            if problems.is_empty() {
                format!("{} agrees", ui::PASS)
            } else {
                format!("{} {}", ui::FAIL, problems.join("\n"))
            },
        ]);
    }
    ui::print_table(table);
    Ok(agree)
}
