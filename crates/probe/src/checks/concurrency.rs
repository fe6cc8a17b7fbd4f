//! Concurrency: a burst of requests with one key released together, and bursts
//! larger than a typical pool. Both are spread across every instance given.

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::Value;

use super::{
    Finding, Probe, SHOWN, id_of, retry_after_missing, status_of, tally, without_retry_after,
};
use crate::http::{self, Answer, NoAnswer};
use crate::{ProbeError, Verdict};

impl Probe<'_> {
    /// Refuses to go on when the first answers say the probe is misconfigured.
    fn misconfigured(&self, answers: &[Result<Answer, NoAnswer>]) -> Result<(), ProbeError> {
        let first_target = &self.targets[0];
        let target = format!(
            "{}{}{}",
            first_target.host, first_target.base_path, self.options.path
        );
        let answered: Vec<&Answer> = answers.iter().filter_map(|a| a.as_ref().ok()).collect();
        if answered.is_empty() {
            if let Some(Err(NoAnswer::Connect(reason))) = answers.first() {
                return Err(ProbeError::Unreachable {
                    addr: first_target.addr.to_string(),
                    reason: reason.clone(),
                });
            }
            return Err(ProbeError::NoAnswer {
                target,
                sent: answers.len(),
                bound: self.options.timeout,
            });
        }
        let first = answered[0];
        let all_same_refusal = answered
            .iter()
            .all(|a| a.status == first.status && (400..500).contains(&a.status) && a.status != 409);
        if all_same_refusal {
            return Err(ProbeError::Refused {
                target,
                status: first.status,
                excerpt: first.body_excerpt(SHOWN),
            });
        }
        if let Some(bad) = answered
            .iter()
            .find(|a| (200..300).contains(&a.status) && a.json().is_none())
        {
            return Err(ProbeError::NotJson {
                target,
                status: bad.status,
                media_type: bad.media_type(),
                excerpt: bad.body_excerpt(SHOWN),
            });
        }
        if let Some(bad) = answered.iter().find(|a| {
            (200..300).contains(&a.status)
                && a.json()
                    .is_some_and(|body| id_of(&body, &self.options.id_pointer).is_none())
        }) {
            return Err(ProbeError::NoId {
                target,
                pointer: self.options.id_pointer.clone(),
                excerpt: bad.body_excerpt(SHOWN),
            });
        }
        Ok(())
    }

    pub(super) async fn burst(
        &self,
        stuck: &mut Option<Vec<String>>,
    ) -> Result<Finding, ProbeError> {
        let n = self.fresh();
        let key = self.key(n);
        let request = self.request(Some(&key), self.options.body_for(n));
        let size = self.options.burst;
        let started = Instant::now();
        let first = http::send_together(self.spread(&request, size), self.options.timeout).await;
        let spread = started.elapsed();
        self.misconfigured(&first)?;
        let instances = match self.targets.len() {
            1 => String::new(),
            k => format!(", spread across {k} instances"),
        };
        let mut evidence = vec![format!(
            "{size} requests, key {key}, heads first then every body at once{instances}: {} in {} ms",
            tally(first.iter().map(status_of)),
            spread.as_millis()
        )];
        let unanswered = first.iter().filter(|a| a.is_err()).count();
        if unanswered > 0 {
            let line = format!(
                "{} of {size} answered within {:?}; {unanswered} unanswered",
                size - unanswered,
                self.options.timeout
            );
            evidence.push(line.clone());
            *stuck = Some(vec![format!("burst of {size}, one key: {line}")]);
            return Ok(Finding::new(
                Verdict::Fail,
                format!("{unanswered} of {size} requests got no answer: suspected pool deadlock"),
                evidence,
            ));
        }
        let mut finals = Vec::with_capacity(size);
        let mut in_flight = Vec::new();
        for answer in first {
            let (answer, seen) = self.until_not_in_flight(&request, answer).await;
            in_flight.extend(seen);
            finals.push(answer);
        }
        if !in_flight.is_empty() {
            evidence.push(format!(
                "{} answers of 409 (in flight) retried with the same key: then {}",
                in_flight.len(),
                tally(finals.iter().map(status_of))
            ));
        }
        let answers: Vec<&Answer> = finals.iter().filter_map(|a| a.as_ref().ok()).collect();
        let no_retry_after = retry_after_missing(&without_retry_after(
            in_flight.iter().chain(answers.iter().copied()),
        ));
        if let Some(line) = &no_retry_after {
            evidence.push(line.clone());
        }
        if answers.len() < size || answers.iter().any(|a| a.status == 409) {
            return Ok(Finding::new(
                Verdict::Fail,
                "some requests never got a final answer (still 409, or none)",
                evidence,
            ));
        }
        let ids: BTreeSet<String> = answers
            .iter()
            .filter_map(|a| a.json().and_then(|b| id_of(&b, &self.options.id_pointer)))
            .collect();
        evidence.push(format!(
            "ids: {}",
            ids.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                + if ids.len() > 5 { ", …" } else { "" }
        ));
        let statuses: BTreeSet<u16> = answers.iter().map(|a| a.status).collect();
        let bodies: Vec<Option<Value>> = answers.iter().map(|a| a.json()).collect();
        let same_bodies = bodies.iter().all(|b| b == &bodies[0]);
        let same_bytes = answers.iter().all(|a| a.body == answers[0].body);
        evidence.push(format!(
            "bodies: {}",
            match (same_bodies, same_bytes) {
                (true, true) => "identical, byte for byte",
                (true, false) => "the same JSON, not the same bytes (keys reordered or spaced)",
                _ => "different",
            }
        ));
        if ids.len() > 1 {
            return Ok(Finding::new(
                Verdict::Fail,
                format!(
                    "{} different ids for one key: {} effects",
                    ids.len(),
                    ids.len()
                ),
                evidence,
            ));
        }
        if statuses.len() > 1 || !same_bodies {
            return Ok(Finding::new(
                Verdict::Fail,
                "the answers to one key differ",
                evidence,
            ));
        }
        let status = answers[0].status;
        if !(200..300).contains(&status) {
            return Ok(Finding::new(
                Verdict::Fail,
                format!("every request was answered {status}, not a success"),
                evidence,
            ));
        }
        let passed = format!("{size} × {status}, one id, the same body");
        Ok(match no_retry_after {
            Some(_) => Finding::new(
                Verdict::Warn,
                format!("{passed}; but a 409 in flight came without Retry-After"),
                evidence,
            ),
            None => Finding::new(Verdict::Pass, passed, evidence),
        })
    }

    pub(super) async fn hang(&self) -> Finding {
        let mut evidence = Vec::new();
        let mut stuck = Vec::new();
        let mut errors = 0;
        let mut no_retry_after = Vec::new();
        for &size in &self.options.hang_bursts {
            let n = self.fresh();
            let key = self.key(n);
            let request = self.request(Some(&key), self.options.body_for(n));
            let started = Instant::now();
            let answers =
                http::send_together(self.spread(&request, size), self.options.timeout).await;
            let answered = answers.iter().filter(|a| a.is_ok()).count();
            errors += answers
                .iter()
                .filter(|a| matches!(a, Ok(a) if a.status >= 500))
                .count();
            no_retry_after.extend(without_retry_after(
                answers.iter().filter_map(|a| a.as_ref().ok()),
            ));
            evidence.push(format!(
                "{size} requests, one key: {} in {} ms",
                tally(answers.iter().map(status_of)),
                started.elapsed().as_millis()
            ));
            if answered < size {
                stuck.push(format!(
                    "{answered} of {size} answered within {:?}",
                    self.options.timeout
                ));
                // The server is stuck: a larger burst would only wait as long again.
                break;
            }
        }
        if !stuck.is_empty() {
            return Finding::new(
                Verdict::Fail,
                format!("suspected pool deadlock: {}", stuck.join("; ")),
                evidence,
            );
        }
        let no_retry_after = retry_after_missing(&no_retry_after);
        if let Some(line) = &no_retry_after {
            evidence.push(line.clone());
        }
        if errors > 0 {
            return Finding::new(
                Verdict::Warn,
                format!(
                    "every request answered, but {errors} with a 5xx: the server gave up on them"
                ),
                evidence,
            );
        }
        if no_retry_after.is_some() {
            return Finding::new(
                Verdict::Warn,
                "every request answered, but some 409 or 5xx without Retry-After",
                evidence,
            );
        }
        Finding::new(
            Verdict::Pass,
            "every request of every burst answered",
            evidence,
        )
    }
}
