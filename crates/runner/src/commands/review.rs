//! `workbook review`: the capstone. The learner reads a route, says of each item
//! of the checklist whether the route gets it right, and the route then runs for
//! real: its tests' evidence is shown beside the review, with the fix.

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::cargo::{Cargo, Targets};
use crate::error::Error;
use crate::review::{
    Evidence, Grade, Item, Review, ReviewAnswer, Reviews, Route, RouteReview, TEST_TARGET, Verdict,
    disagreements, lines,
};
use crate::run::{PackageRun, build_and_run};
use crate::state::{State, now};
use crate::ui::{self, Spinner};
use crate::workbook::Workbook;
use l10n::{Localiser, t};

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
    let l = &wb.l10n;
    let review = Review::load_in(&wb.root, l.lang())?;
    let routes = selected(&review, options.route.as_deref())?;
    let cargo = Cargo::new(&wb.root, crate::environment::stdout_is_terminal());
    if options.evidence_only || !crate::environment::can_ask() {
        if !options.evidence_only {
            ui::note(&t!(l, "review-evidence-only"));
        }
        return evidence_table(wb, &review, &routes, &cargo, options.timeout);
    }
    let state = State::new(&wb.state_dir);
    let mut reviews: Reviews = state.reviews()?;
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
        show_summary(l, &review, &reviews);
        ui::note(&format!(
            "  {}",
            t!(
                l,
                "review-all-reviewed",
                again = crate::environment::command("review --again")
            )
        ));
        return Ok(true);
    }
    introduce(l, &review, open.len());
    // Build every route while the learner reads the first one.
    let mut build = prebuild(&cargo, &open);
    for (i, route) in open.iter().enumerate() {
        let source = read_route(wb, route)?;
        show_route(l, route, &source);
        let answers = ask(l, &review, route, &source)?;
        reviews.routes.insert(
            route.name.clone(),
            RouteReview {
                answers: answers.clone(),
                score: None,
                reviewed_at: now(),
            },
        );
        state.save_reviews(&reviews)?;

        let mut spinner = Spinner::speaking(l);
        if let Some(mut child) = build.take() {
            spinner.phase(&t!(l, "review-finishing-build"));
            let _ = child.wait();
        }
        let run = run_route(&cargo, &state, route, options.timeout, &mut spinner);
        spinner.finish();
        let run = run?;
        let evidence = Evidence::of(&review, &run);
        let score = show_verdicts(l, &review, route, &source, &answers, &evidence);
        if let Some(entry) = reviews.routes.get_mut(&route.name) {
            entry.score = Some(score);
        }
        state.save_reviews(&reviews)?;
        if i + 1 < open.len() && !ui::confirm(&t!(l, "review-next-route"), "the next route")? {
            break;
        }
    }
    show_summary(l, &review, &reviews);
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
        &t!(spinner.l10n(), "review-running-route", name = &route.name),
        None,
    )
}

fn introduce(l: &Localiser, review: &Review, count: usize) {
    println!("{}", console::style(t!(l, "review-title")).bold().cyan());
    println!(
        "{}",
        ui::wrap(&t!(l, "review-introduction", count = count), 2)
    );
    for item in &review.items {
        println!("{}", ui::hanging("    · ", &item.question));
    }
}

fn show_route(l: &Localiser, route: &Route, source: &str) {
    println!();
    ui::heading(&t!(
        l,
        "review-route-heading",
        name = &route.name,
        file = route.file.display().to_string()
    ));
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
    l: &Localiser,
    review: &Review,
    route: &Route,
    source: &str,
) -> Result<BTreeMap<String, ReviewAnswer>, Error> {
    println!();
    ui::heading(&t!(l, "review-yours-heading", name = &route.name));
    let labels: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| match v {
            Verdict::Correct => t!(l, "review-choice-correct"),
            Verdict::Incorrect => t!(l, "review-choice-incorrect"),
            Verdict::Absent => t!(l, "review-choice-absent"),
            Verdict::NotApplicable => t!(l, "review-choice-not-applicable"),
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
        let verdict = Verdict::ALL[ui::select(&t!(l, "review-prompt"), &labels[..offered])?];
        let line = if verdict == Verdict::Incorrect {
            ask_line(l, item, source)?
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
fn ask_line(l: &Localiser, item: &Item, source: &str) -> Result<Option<usize>, Error> {
    let total = source.lines().count();
    let rows = usize::from(console::Term::stdout().size().0);
    // The question, the page's heading and the prompt stay on screen too.
    let page = rows.saturating_sub(8).max(10);
    let mut from = 0;
    loop {
        let to = (from + page).min(total);
        println!();
        ui::note(&t!(
            l,
            "review-lines",
            from = from + 1,
            to = to,
            total = total,
            item = &item.label
        ));
        show_lines(source, from, page);
        let prompt = if total > page {
            t!(l, "review-which-line-paged")
        } else {
            t!(l, "review-which-line")
        };
        let Some(text) = ui::line(&prompt)? else {
            return Ok(None);
        };
        match text.as_str() {
            "m" => from = if to >= total { 0 } else { to },
            "b" => from = from.saturating_sub(page),
            _ => match text.parse::<usize>() {
                Ok(line) if (1..=total).contains(&line) => return Ok(Some(line)),
                _ => ui::note(&format!(
                    "  {}",
                    t!(
                        l,
                        "review-not-a-line",
                        text = format!("{text:?}"),
                        total = total
                    )
                )),
            },
        }
    }
}

/// The review beside the evidence, item by item; returns (points, out of).
fn show_verdicts(
    l: &Localiser,
    review: &Review,
    route: &Route,
    source: &str,
    answers: &BTreeMap<String, ReviewAnswer>,
    evidence: &BTreeMap<String, Evidence>,
) -> (u32, u32) {
    ui::heading(&t!(l, "review-verdicts-heading", name = &route.name));
    let mut table = ui::table([
        t!(l, "column-item"),
        t!(l, "column-you-said"),
        t!(l, "column-what-happened"),
        String::new(),
    ]);
    ui::at_least(&mut table, 2, 55);
    let (mut points, mut out_of) = (0, 0);
    for item in &review.items {
        let key = route.broken.get(&item.id);
        let said = answers
            .get(&item.id)
            .map_or(t!(l, "predictions-not-asked"), |a| match a.line {
                Some(line) => t!(
                    l,
                    "review-said-line",
                    verdict = a.verdict.said(l),
                    line = line
                ),
                None => a.verdict.said(l),
            });
        let happened = match (evidence.get(&item.id), key) {
            (Some(Evidence::Broken(seen)), Some(fault)) => {
                let place = lines(source, fault)
                    .map(|(a, b)| {
                        format!(" {}", t!(l, "review-lines-between", first = a, last = b))
                    })
                    .unwrap_or_default();
                format!(
                    "{}{place}: {seen}\n{}\n{}",
                    fault.verdict.said(l),
                    fault.why,
                    t!(l, "review-fix", fix = &item.fix, stage = item.stage)
                )
            }
            (Some(Evidence::Broken(seen)), None) => t!(l, "review-broken", seen = seen),
            (Some(Evidence::Holds), _) if !route.applies(item) => {
                t!(l, "review-holds-not-applicable")
            }
            (Some(Evidence::Holds), _) => t!(l, "review-holds"),
            (Some(Evidence::Unknown(why)), _) => t!(l, "review-unknown", why = why),
            (None, _) => t!(l, "review-not-run"),
        };
        let mark = match answers.get(&item.id) {
            Some(answer) => {
                let grade = Grade::of(answer, key, route.applies(item), source);
                let (p, of) = grade.points();
                points += p;
                out_of += of;
                match (grade.verdict_right, grade.line_right) {
                    (true, Some(false)) => {
                        format!(
                            "{} ({})",
                            ui::PASS,
                            t!(l, "review-line-wrong", mark = ui::FAIL)
                        )
                    }
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
        &t!(
            l,
            "review-points",
            points = points,
            out_of = out_of,
            name = &route.name
        ),
        2,
    ));
    (points, out_of)
}

fn show_summary(l: &Localiser, review: &Review, reviews: &Reviews) {
    ui::heading(&t!(l, "review-summary-heading"));
    let mut table = ui::table([t!(l, "column-route"), t!(l, "column-points")]);
    for route in &review.routes {
        let shown = match reviews.routes.get(&route.name).map(|r| r.score) {
            Some(Some((p, of))) => t!(l, "review-score", points = p, out_of = of),
            Some(None) => t!(l, "review-not-run-yet"),
            None => t!(l, "review-not-reviewed"),
        };
        table.add_row([route.name.clone(), shown]);
    }
    let (_, points, out_of) = reviews.totals(review);
    ui::print_table(table);
    if out_of > 0 {
        ui::note(&format!(
            "  {}",
            t!(l, "review-in-all", points = points, out_of = out_of)
        ));
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
    let l = &wb.l10n;
    let state = State::new(&wb.state_dir);
    let mut spinner = Spinner::speaking(l);
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
    ui::heading(&t!(l, "evidence-heading"));
    let mut table = ui::table([
        t!(l, "column-route"),
        t!(l, "evidence-column-broken"),
        t!(l, "evidence-column-observed"),
        t!(l, "evidence-column-key"),
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
                t!(l, "evidence-none")
            } else {
                broken.join("\n")
            },
            if observed.is_empty() {
                t!(l, "evidence-every-test-passes")
            } else {
                observed.join("\n")
            },
            if problems.is_empty() {
                format!("{} {}", ui::PASS, t!(l, "evidence-agrees"))
            } else {
                format!("{} {}", ui::FAIL, problems.join("\n"))
            },
        ]);
    }
    ui::print_table(table);
    Ok(agree)
}
