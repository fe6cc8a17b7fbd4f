//! Bad input: keys a route that pays must refuse, and bodies it may refuse.

use super::{Finding, Probe, describe, seen};
use crate::http::{Answer, NoAnswer};
use crate::outcome::{Role, Verdict};
use crate::results::Seen;
use crate::words::{Case, List, Said};

/// One request of a family and what came back.
type Sent = (Case, Result<Answer, NoAnswer>);

/// The cases not answered with a 4xx, and those answered with a 4xx that is not
/// `application/problem+json`.
fn sort_refusals(cases: &[Sent]) -> (Vec<Case>, Vec<Case>) {
    let not_refused = cases
        .iter()
        .filter(|(_, a)| !matches!(a, Ok(a) if (400..500).contains(&a.status)))
        .map(|(case, _)| *case)
        .collect();
    let not_problems = cases
        .iter()
        .filter(|(_, a)| {
            matches!(a, Ok(a) if (400..500).contains(&a.status)
                && a.media_type() != "application/problem+json")
        })
        .map(|(case, _)| *case)
        .collect();
    (not_refused, not_problems)
}

fn evidence(cases: &[Sent]) -> Vec<Said> {
    cases
        .iter()
        .map(|(case, answer)| Said::CaseAnswer {
            case: *case,
            answer: describe(answer),
        })
        .collect()
}

fn answers(cases: &[Sent]) -> Vec<Seen> {
    cases
        .iter()
        .map(|(case, answer)| {
            let role = match case {
                Case::KeyMissing => Role::KeyMissing,
                Case::KeyEmpty => Role::KeyEmpty,
                Case::KeyTooLong { .. } => Role::KeyTooLong,
                Case::NotJson => Role::NotJson,
                Case::OverTheLimit { .. } => Role::OverTheLimit,
            };
            seen(role, answer)
        })
        .collect()
}

impl Probe<'_> {
    /// Keys a route that pays must refuse, each with a 4xx: a missing key would
    /// let a client pay without the protection it believes it has. Fails on a
    /// success or an error; warns on a 4xx that is not a problem.
    pub(super) async fn bad_keys(&self) -> Finding {
        let n = self.fresh();
        let body = self.options.body_for(n);
        let long = "k".repeat(self.options.long_key_length);
        let mut cases = Vec::new();
        for (case, key) in [
            (Case::KeyMissing, None),
            (Case::KeyEmpty, Some("")),
            (
                Case::KeyTooLong {
                    characters: self.options.long_key_length,
                },
                Some(long.as_str()),
            ),
        ] {
            cases.push((case, self.send(&self.request(key, body.clone())).await));
        }
        let (evidence, seen) = (evidence(&cases), answers(&cases));
        let (not_refused, not_problems) = sort_refusals(&cases);
        let (verdict, why) = if !not_refused.is_empty() {
            (
                Verdict::Fail,
                Said::NotRefused {
                    cases: List(not_refused),
                },
            )
        } else if !not_problems.is_empty() {
            (
                Verdict::Warn,
                Said::NotAProblem {
                    cases: List(not_problems),
                },
            )
        } else {
            (Verdict::Pass, Said::BadKeysRefused)
        };
        Finding::new(verdict, why, evidence).seen(seen)
    }

    /// Bodies a careful server refuses. Accepting one is hygiene, not a broken
    /// promise: a warning, and the effect it makes is expected. What fails is
    /// decided by the effects counted: a refused request (4xx or 5xx) must leave
    /// none.
    pub(super) async fn bad_bodies(&self) -> Finding {
        let n = self.fresh();
        let not_json = self
            .send(&self.request(Some(&self.key(n)), "this is not JSON"))
            .await;
        // A valid body padded with whitespace, which JSON allows: only its size is wrong.
        let mut big = self.options.body_for(n).into_bytes();
        big.resize(self.options.big_body_bytes, b' ');
        let big_key = format!("{}-big", self.key(n));
        let over_limit = self.send(&self.request(Some(&big_key), big)).await;
        let cases = vec![
            (Case::NotJson, not_json),
            (
                Case::OverTheLimit {
                    bytes: self.options.big_body_bytes,
                },
                over_limit,
            ),
        ];
        let (evidence, seen) = (evidence(&cases), answers(&cases));
        let accepted: Vec<Case> = cases
            .iter()
            .filter(|(_, a)| matches!(a, Ok(a) if (200..300).contains(&a.status)))
            .map(|(case, _)| *case)
            .collect();
        let (not_refused, not_problems) = sort_refusals(&cases);
        let others: Vec<Case> = not_refused
            .into_iter()
            .filter(|case| !accepted.contains(case))
            .collect();
        let accepted_count = accepted.len() as i64;
        let mut warnings = Vec::new();
        if !accepted.is_empty() {
            warnings.push(Said::BodiesAccepted {
                cases: List(accepted),
            });
        }
        if !others.is_empty() {
            warnings.push(Said::NeitherAcceptedNorRefused {
                cases: List(others),
            });
        }
        if !not_problems.is_empty() {
            warnings.push(Said::NotAProblem {
                cases: List(not_problems),
            });
        }
        let mut finding = if warnings.is_empty() {
            Finding::new(Verdict::Pass, Said::BadBodiesRefused, evidence)
        } else {
            Finding::because(Verdict::Warn, warnings, evidence)
        };
        finding.accepted = accepted_count;
        finding.seen(seen)
    }
}
