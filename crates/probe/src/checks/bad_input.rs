//! Bad input: keys a route that pays must refuse, and bodies it may refuse.

use super::{Finding, Probe, describe};
use crate::Verdict;
use crate::http::{Answer, NoAnswer};

/// One request of a family and what came back.
type Case = (String, Result<Answer, NoAnswer>);

/// The cases not answered with a 4xx, and those answered with a 4xx that is not
/// `application/problem+json`.
fn sort_refusals(cases: &[Case]) -> (Vec<&str>, Vec<&str>) {
    let not_refused = cases
        .iter()
        .filter(|(_, a)| !matches!(a, Ok(a) if (400..500).contains(&a.status)))
        .map(|(case, _)| case.as_str())
        .collect();
    let not_problems = cases
        .iter()
        .filter(|(_, a)| {
            matches!(a, Ok(a) if (400..500).contains(&a.status)
                && a.media_type() != "application/problem+json")
        })
        .map(|(case, _)| case.as_str())
        .collect();
    (not_refused, not_problems)
}

fn evidence(cases: &[Case]) -> Vec<String> {
    cases
        .iter()
        .map(|(case, answer)| format!("{case}: {}", describe(answer)))
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
            ("missing", None),
            ("empty", Some("")),
            ("too long", Some(long.as_str())),
        ] {
            let case = if key.is_some_and(|k| k.len() > 1) {
                format!("{case} ({} characters)", self.options.long_key_length)
            } else {
                case.to_owned()
            };
            cases.push((case, self.send(&self.request(key, body.clone())).await));
        }
        let evidence = evidence(&cases);
        let (not_refused, not_problems) = sort_refusals(&cases);
        if !not_refused.is_empty() {
            return Finding::new(
                Verdict::Fail,
                format!("not refused with a 4xx: {}", not_refused.join(", ")),
                evidence,
            );
        }
        if !not_problems.is_empty() {
            return Finding::new(
                Verdict::Warn,
                format!(
                    "refused, but not as application/problem+json: {}",
                    not_problems.join(", ")
                ),
                evidence,
            );
        }
        Finding::new(
            Verdict::Pass,
            "missing, empty and too long keys: each refused with a 4xx problem",
            evidence,
        )
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
            ("not JSON".to_owned(), not_json),
            (
                format!("over the limit ({} bytes)", self.options.big_body_bytes),
                over_limit,
            ),
        ];
        let evidence = evidence(&cases);
        let accepted: Vec<&str> = cases
            .iter()
            .filter(|(_, a)| matches!(a, Ok(a) if (200..300).contains(&a.status)))
            .map(|(case, _)| case.as_str())
            .collect();
        let (not_refused, not_problems) = sort_refusals(&cases);
        let others: Vec<&str> = not_refused
            .iter()
            .filter(|case| !accepted.contains(case))
            .copied()
            .collect();
        let mut warnings = Vec::new();
        if !accepted.is_empty() {
            warnings.push(format!(
                "accepted: {} (no limit, or no validation: hygiene, not idempotency)",
                accepted.join(", ")
            ));
        }
        if !others.is_empty() {
            warnings.push(format!(
                "neither accepted nor refused with a 4xx: {}",
                others.join(", ")
            ));
        }
        if !not_problems.is_empty() {
            warnings.push(format!(
                "refused, but not as application/problem+json: {}",
                not_problems.join(", ")
            ));
        }
        let mut finding = if warnings.is_empty() {
            Finding::new(
                Verdict::Pass,
                "a body that is not JSON and one too large: each refused with a 4xx problem",
                evidence,
            )
        } else {
            Finding::new(Verdict::Warn, warnings.join("; "), evidence)
        };
        finding.accepted = accepted.len() as i64;
        finding
    }
}
