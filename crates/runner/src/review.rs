//! `review/review.toml`: the checklist items, the routes to review, and the answer
//! key that `just verify` holds against the routes' tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::run::{PackageRun, TestStatus};
use l10n::t;
use l10n::{Lang, Localiser};

/// The test target every route package defines (tests/review_routes.rs).
pub const TEST_TARGET: &str = "review";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    #[serde(rename = "item")]
    pub items: Vec<Item>,
    #[serde(rename = "route")]
    pub routes: Vec<Route>,
}

/// One question of the checklist.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub id: String,
    /// Its name in tables.
    pub label: String,
    pub question: String,
    /// The test a route passes exactly when it gets this item right.
    pub test: String,
    /// The stage that teaches the fix.
    pub stage: u32,
    pub fix: String,
    /// Asked only of what some routes do (calls outside the database): a route
    /// that does not do it answers "not applicable", and its test passes.
    #[serde(default)]
    pub may_not_apply: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    pub name: String,
    pub package: String,
    pub file: PathBuf,
    /// The answer key: the items this route gets wrong.
    #[serde(default)]
    pub broken: BTreeMap<String, Fault>,
    /// Whether the route calls outside the database (the items that
    /// `may_not_apply` are not applicable to a route that does not).
    #[serde(default)]
    pub calls_outside: bool,
}

impl Route {
    /// Whether `item` is a question for this route at all.
    pub fn applies(&self, item: &Item) -> bool {
        !item.may_not_apply || self.calls_outside
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    pub verdict: Verdict,
    /// Where an "incorrect" fault is: the first line holding `from`, through the
    /// first line after it holding `to`.
    pub from: Option<String>,
    pub to: Option<String>,
    pub why: String,
}

/// What a reviewer says of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The route does it, and right.
    Correct,
    /// The route does it, wrong.
    Incorrect,
    /// Nothing in the route does it.
    Absent,
    /// The question is not one for this route (it calls nothing outside).
    #[serde(rename = "not applicable")]
    NotApplicable,
}

impl Verdict {
    pub const ALL: [Verdict; 4] = [
        Verdict::Correct,
        Verdict::Incorrect,
        Verdict::Absent,
        Verdict::NotApplicable,
    ];

    /// The verdict's word as the learner reads it.
    pub fn said(self, l: &Localiser) -> String {
        match self {
            Self::Correct => t!(l, "verdict-correct"),
            Self::Incorrect => t!(l, "verdict-incorrect"),
            Self::Absent => t!(l, "verdict-absent"),
            Self::NotApplicable => t!(l, "verdict-not-applicable"),
        }
    }

    pub fn is_broken(self) -> bool {
        matches!(self, Self::Incorrect | Self::Absent)
    }
}

impl Review {
    pub fn file(root: &Path) -> PathBuf {
        root.join("review").join("review.toml")
    }

    pub fn load(root: &Path) -> Result<Self, Error> {
        let path = Self::file(root);
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| Error::ReviewToml { path, source })
    }

    /// The checklist in `lang`: the twin's texts (`review/review.pt-BR.toml`)
    /// where it has them, English where it does not (verify names the gaps).
    pub fn load_in(root: &Path, lang: Lang) -> Result<Self, Error> {
        let mut review = Self::load(root)?;
        if lang != Lang::English
            && let Some(twin) = ReviewTwin::load(root, lang)?
        {
            twin.apply(&mut review);
        }
        if lang == Lang::Pseudo {
            review.pseudo();
        }
        Ok(review)
    }

    /// The checklist as the pseudo-locale says it (l10n's `pseudo`).
    fn pseudo(&mut self) {
        for item in &mut self.items {
            for text in [&mut item.label, &mut item.question, &mut item.fix] {
                *text = l10n::pseudo::say(text);
            }
        }
        for route in &mut self.routes {
            for fault in route.broken.values_mut() {
                fault.why = l10n::pseudo::say(&fault.why);
            }
        }
    }

    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id == id)
    }

    /// What is wrong with the file itself: unknown items, faults without a place,
    /// places not found in the route's file.
    pub fn problems(&self, root: &Path) -> Vec<String> {
        let mut problems = Vec::new();
        for route in &self.routes {
            let source = match std::fs::read_to_string(root.join(&route.file)) {
                Ok(source) => source,
                Err(e) => {
                    problems.push(format!(
                        "route {}: {}: {e}",
                        route.name,
                        route.file.display()
                    ));
                    continue;
                }
            };
            for (id, fault) in &route.broken {
                match self.item(id) {
                    None => problems.push(format!("route {}: no item `{id}`", route.name)),
                    Some(item) if !route.applies(item) => problems.push(format!(
                        "route {}: `{id}` is broken, but does not apply to a route that calls \
                         nothing outside (calls_outside = true?)",
                        route.name
                    )),
                    Some(_) => {}
                }
                match (fault.verdict, lines(&source, fault)) {
                    (Verdict::Incorrect, None) => problems.push(format!(
                        "route {}, {id}: `from` {:?} then `to` {:?} are not found in {}",
                        route.name,
                        fault.from,
                        fault.to,
                        route.file.display()
                    )),
                    (Verdict::Absent, Some(_)) => problems.push(format!(
                        "route {}, {id}: an absent fault has no lines (`from`/`to`)",
                        route.name
                    )),
                    (Verdict::Correct | Verdict::NotApplicable, _) => problems.push(format!(
                        "route {}, {id}: a broken item is incorrect or absent",
                        route.name
                    )),
                    _ => {}
                }
            }
        }
        problems
    }
}

/// The lines (1-based, inclusive) of an "incorrect" fault in `source`.
pub fn lines(source: &str, fault: &Fault) -> Option<(usize, usize)> {
    let (from, to) = (fault.from.as_deref()?, fault.to.as_deref()?);
    let all: Vec<&str> = source.lines().collect();
    let start = all.iter().position(|l| l.contains(from))?;
    let end = start + all[start..].iter().position(|l| l.contains(to))?;
    Some((start + 1, end + 1))
}

/// What one route's run of the review tests says of each item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// The item's test passed.
    Holds,
    /// It failed: the first line of its message (what was observed).
    Broken(String),
    /// It did not pass or fail (not run, still running when stopped, missing).
    Unknown(String),
}

impl Evidence {
    /// The evidence of each item, from a run of the route's tests. An item's test
    /// may have cases (`name::case_1_...`): one failing case breaks the item.
    pub fn of(review: &Review, run: &PackageRun) -> BTreeMap<String, Evidence> {
        let mut out = BTreeMap::new();
        for item in &review.items {
            let tests: Vec<_> = run
                .tests
                .iter()
                .filter(|t| t.name == item.test || t.name.starts_with(&format!("{}::", item.test)))
                .collect();
            let evidence = if let Some(failed) =
                tests.iter().find(|t| t.status == TestStatus::Failed)
            {
                Evidence::Broken(observed(failed.first_line()))
            } else if !tests.is_empty() && tests.iter().all(|t| t.status == TestStatus::Passed) {
                Evidence::Holds
            } else if tests.is_empty() {
                Evidence::Unknown(t!(
                    crate::messages::RUNNER,
                    "evidence-no-test-ran",
                    test = &item.test
                ))
            } else {
                Evidence::Unknown(t!(crate::messages::RUNNER, "evidence-test-did-not-finish"))
            };
            out.insert(item.id.clone(), evidence);
        }
        out
    }

    pub fn is_broken(&self) -> bool {
        matches!(self, Self::Broken(_))
    }
}

/// What a test's failure observed: its message up to the first `;` (the tests of
/// tests/review_routes.rs say what happened first, then why it matters).
fn observed(message: &str) -> String {
    let message = message
        .strip_prefix("assertion failed: ")
        .unwrap_or(message);
    message
        .split(';')
        .next()
        .unwrap_or(message)
        .trim()
        .to_owned()
}

/// The items the evidence says are broken, against those the key says: empty when
/// they are the same.
pub fn disagreements(route: &Route, evidence: &BTreeMap<String, Evidence>) -> Vec<String> {
    let declared: BTreeSet<&str> = route.broken.keys().map(String::as_str).collect();
    let mut out = Vec::new();
    for (id, e) in evidence {
        match (declared.contains(id.as_str()), e) {
            (true, Evidence::Holds) => out.push(format!(
                "route {}: the key says `{id}` is broken, but its test passes",
                route.name
            )),
            (false, Evidence::Broken(seen)) => out.push(format!(
                "route {}: the key says `{id}` is correct, but its test fails: {seen}",
                route.name
            )),
            (_, Evidence::Unknown(why)) => out.push(format!("route {}: `{id}`: {why}", route.name)),
            _ => {}
        }
    }
    out
}

/// A learner's review of one route, kept in `.workbook/review.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RouteReview {
    pub answers: BTreeMap<String, ReviewAnswer>,
    /// Points, and out of how many, once the evidence came in.
    #[serde(default)]
    pub score: Option<(u32, u32)>,
    #[serde(default)]
    pub reviewed_at: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReviewAnswer {
    pub verdict: Verdict,
    #[serde(default)]
    pub line: Option<usize>,
}

/// Every route's review: `.workbook/review.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Reviews {
    #[serde(default)]
    pub routes: BTreeMap<String, RouteReview>,
}

impl Reviews {
    /// The routes of `review` whose review was graded, and their points: (routes,
    /// points, out of).
    pub fn totals(&self, review: &Review) -> (usize, u32, u32) {
        review
            .routes
            .iter()
            .filter_map(|r| self.routes.get(&r.name).and_then(|x| x.score))
            .fold((0, 0, 0), |(n, p, o), (points, of)| {
                (n + 1, p + points, o + of)
            })
    }
}

/// One item's grade: the verdict is right when it says "correct" of a correct item
/// or "incorrect"/"absent" of a broken one (a point); the line of an "incorrect"
/// fault is a second point when it falls in the fault's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grade {
    pub verdict_right: bool,
    /// None when there is no line to grade.
    pub line_right: Option<bool>,
}

impl Grade {
    pub fn of(answer: &ReviewAnswer, key: Option<&Fault>, applies: bool, source: &str) -> Grade {
        let broken = key.is_some();
        let verdict_right = if applies {
            answer.verdict != Verdict::NotApplicable && answer.verdict.is_broken() == broken
        } else {
            answer.verdict == Verdict::NotApplicable
        };
        let line_right = key
            .and_then(|f| lines(source, f))
            .map(|(start, end)| answer.line.is_some_and(|l| (start..=end).contains(&l)));
        Grade {
            verdict_right,
            line_right,
        }
    }

    pub fn points(&self) -> (u32, u32) {
        let verdict = u32::from(self.verdict_right);
        match self.line_right {
            Some(right) => (verdict + u32::from(right), 2),
            None => (verdict, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(from: &str, to: &str) -> Fault {
        Fault {
            verdict: Verdict::Incorrect,
            from: Some(from.into()),
            to: Some(to.into()),
            why: String::new(),
        }
    }

    #[test]
    fn a_fault_spans_from_its_first_text_to_the_next_line_holding_the_second() {
        let source = "a\nto\nfrom here\nb\nto there\nto again\n";
        assert_eq!(lines(source, &fault("from", "to")), Some((3, 5)));
        assert_eq!(lines(source, &fault("from", "nowhere")), None);
    }

    #[test]
    fn a_line_inside_the_fault_earns_the_second_point() {
        let source = "x\nfrom\ny\nto\n";
        let key = fault("from", "to");
        let answer = |verdict, line| ReviewAnswer { verdict, line };
        let grade = |a: &ReviewAnswer| Grade::of(a, Some(&key), true, source).points();
        assert_eq!(grade(&answer(Verdict::Incorrect, Some(3))), (2, 2));
        assert_eq!(grade(&answer(Verdict::Incorrect, Some(1))), (1, 2));
        assert_eq!(grade(&answer(Verdict::Absent, None)), (1, 2));
        assert_eq!(grade(&answer(Verdict::Correct, None)), (0, 2));
        let correct = Grade::of(&answer(Verdict::Correct, None), None, true, source);
        assert_eq!(correct.points(), (1, 1));
        let not_applicable = |verdict| Grade::of(&answer(verdict, None), None, false, source);
        assert_eq!(not_applicable(Verdict::NotApplicable).points(), (1, 1));
        assert_eq!(not_applicable(Verdict::Correct).points(), (0, 1));
        assert_eq!(
            Grade::of(&answer(Verdict::NotApplicable, None), None, true, source).points(),
            (0, 1),
            "an item that applies is not answered by \"not applicable\""
        );
    }

    #[test]
    fn the_totals_count_only_graded_reviews_of_known_routes() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let review = Review::load(&root).expect("review/review.toml loads");
        let graded = |score| RouteReview {
            answers: BTreeMap::new(),
            score,
            reviewed_at: 0,
        };
        let mut reviews = Reviews::default();
        reviews.routes.insert("A".into(), graded(Some((5, 8))));
        reviews.routes.insert("B".into(), graded(Some((7, 7))));
        reviews.routes.insert("C".into(), graded(None));
        reviews.routes.insert("Z".into(), graded(Some((1, 1))));
        assert_eq!(reviews.totals(&review), (2, 12, 15));
    }

    #[test]
    fn the_workbooks_answer_key_names_known_items_and_lines_that_exist() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let review = Review::load(&root).expect("review/review.toml loads");
        assert!(review.routes.len() >= 6, "at least six routes to review");
        assert_eq!(review.problems(&root), Vec::<String>::new());
        assert!(
            review.routes.iter().any(|r| r.broken.is_empty()),
            "one route is the model answer"
        );
        assert!(
            review.routes.iter().any(|r| r.broken.len() >= 2),
            "some routes break two items"
        );
    }
}

/// review.toml's learner texts in another language, beside it
/// (`review/review.pt-BR.toml`): each item's label, question and fix by its
/// `id`, and each route's faults' explanations (`why`) by route `name` and item.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewTwin {
    #[serde(rename = "item", default)]
    pub items: Vec<ItemTwin>,
    #[serde(rename = "route", default)]
    pub routes: Vec<RouteTwin>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemTwin {
    pub id: String,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub question: String,
    #[serde(default)]
    pub fix: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteTwin {
    pub name: String,
    /// The `why` of each broken item, by the item's id.
    #[serde(default)]
    pub why: BTreeMap<String, String>,
}

impl ReviewTwin {
    pub fn file(root: &Path, lang: Lang) -> PathBuf {
        root.join("review")
            .join(format!("review.{}.toml", lang.tag()))
    }

    /// The twin in `lang`; `None` when there is no such file.
    pub fn load(root: &Path, lang: Lang) -> Result<Option<Self>, Error> {
        let path = Self::file(root, lang);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(Error::Read { path, source }),
        };
        toml::from_str(&text)
            .map(Some)
            .map_err(|source| Error::TwinToml { path, source })
    }

    fn apply(&self, review: &mut Review) {
        let given = |text: &str| (!text.trim().is_empty()).then(|| text.to_owned());
        for item in &mut review.items {
            if let Some(t) = self.items.iter().find(|t| t.id == item.id) {
                item.label = given(&t.label).unwrap_or_else(|| item.label.clone());
                item.question = given(&t.question).unwrap_or_else(|| item.question.clone());
                item.fix = given(&t.fix).unwrap_or_else(|| item.fix.clone());
            }
        }
        for route in &mut review.routes {
            let Some(t) = self.routes.iter().find(|t| t.name == route.name) else {
                continue;
            };
            for (id, fault) in &mut route.broken {
                if let Some(why) = t.why.get(id).and_then(|w| given(w)) {
                    fault.why = why;
                }
            }
        }
    }

    /// Where the twin (`file`, as shown) does not mirror `review`: one line
    /// each, naming the file, the item or route, and the field.
    pub fn problems(&self, review: &Review, file: &str) -> Vec<String> {
        let mut out = Vec::new();
        for item in &review.items {
            let Some(t) = self.items.iter().find(|t| t.id == item.id) else {
                out.push(format!("{file}: item {:?} has no twin", item.id));
                continue;
            };
            for (field, text) in [
                ("label", &t.label),
                ("question", &t.question),
                ("fix", &t.fix),
            ] {
                if text.trim().is_empty() {
                    out.push(format!("{file}: item {:?}: `{field}` is missing", item.id));
                }
            }
        }
        for t in &self.items {
            if review.item(&t.id).is_none() {
                out.push(format!("{file}: item {:?} is not in review.toml", t.id));
            }
        }
        for route in &review.routes {
            let twin = self.routes.iter().find(|t| t.name == route.name);
            for id in route.broken.keys() {
                if twin
                    .and_then(|t| t.why.get(id))
                    .is_none_or(|w| w.trim().is_empty())
                {
                    out.push(format!(
                        "{file}: route {}: the `why` of {id:?} is missing",
                        route.name
                    ));
                }
            }
            for id in twin
                .map(|t| t.why.keys().collect::<Vec<_>>())
                .unwrap_or_default()
            {
                if !route.broken.contains_key(id) {
                    out.push(format!(
                        "{file}: route {}: {id:?} is not one of its broken items",
                        route.name
                    ));
                }
            }
        }
        for t in &self.routes {
            if !review.routes.iter().any(|r| r.name == t.name) {
                out.push(format!("{file}: route {} is not in review.toml", t.name));
            }
        }
        out
    }
}

#[cfg(test)]
mod twin_tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn the_workbooks_review_has_a_complete_pt_br_twin() {
        let review = Review::load(&root()).expect("review.toml loads");
        let twin = ReviewTwin::load(&root(), Lang::BrazilianPortuguese)
            .expect("review.pt-BR.toml parses")
            .expect("review.pt-BR.toml exists");
        assert_eq!(
            twin.problems(&review, "review/review.pt-BR.toml"),
            Vec::<String>::new()
        );
        let shown = Review::load_in(&root(), Lang::BrazilianPortuguese).expect("loads");
        assert_ne!(shown.items[0].question, review.items[0].question);
    }

    #[test]
    fn a_missing_review_text_is_named_with_its_item_or_route_and_field() {
        let review = Review::load(&root()).expect("review.toml loads");
        let mut twin = ReviewTwin::load(&root(), Lang::BrazilianPortuguese)
            .expect("parses")
            .expect("exists");
        twin.items[0].fix.clear();
        let first = twin.items[0].id.clone();
        let route = review
            .routes
            .iter()
            .find(|r| !r.broken.is_empty())
            .expect("a broken route");
        let (id, _) = route.broken.iter().next().expect("a fault");
        if let Some(t) = twin.routes.iter_mut().find(|t| t.name == route.name) {
            t.why.remove(id);
        }
        let problems = twin.problems(&review, "review.pt-BR.toml");
        assert!(
            problems.contains(&format!(
                "review.pt-BR.toml: item {first:?}: `fix` is missing"
            )),
            "{problems:?}"
        );
        assert!(
            problems.contains(&format!(
                "review.pt-BR.toml: route {}: the `why` of {id:?} is missing",
                route.name
            )),
            "{problems:?}"
        );
    }
}
