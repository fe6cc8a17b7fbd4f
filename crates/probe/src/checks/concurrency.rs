//! Concurrency: a burst of requests with one key released together, and bursts
//! larger than a typical pool. Both are spread across every instance given.

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::Value;

use super::{Finding, Probe, SHOWN, id_of, retry_after_missing, seen, tally, without_retry_after};
use crate::error::ProbeError;
use crate::http::{self, Answer, NoAnswer};
use crate::outcome::{Role, Verdict};
use crate::words::{List, Said, Seconds};

impl Probe<'_> {
    /// Refuses to go on when the first answers say the probe is misconfigured.
    fn misconfigured(
        &self,
        answers: &[Result<Answer, NoAnswer>],
        trace: &timeline::Trace,
    ) -> Result<(), ProbeError> {
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
                timeline: Box::new(trace.clone()),
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

    pub(super) async fn burst(&self, stuck: &mut Option<Vec<Said>>) -> Result<Finding, ProbeError> {
        let n = self.fresh();
        let key = self.key(n);
        let request = self.request(Some(&key), self.options.body_for(n));
        let size = self.options.burst;
        let started = Instant::now();
        let timed =
            http::send_together_timed(self.spread(&request, size), self.options.timeout).await;
        let spread = started.elapsed();
        let trace = crate::client_trace::of_burst(&timed);
        let first: Vec<_> = timed.into_iter().map(|(answer, _)| answer).collect();
        self.misconfigured(&first, &trace)?;
        let mut answers_seen: Vec<_> = first.iter().map(|a| seen(Role::Burst, a)).collect();
        let (tally_first, ms) = (tally(&first), spread.as_millis());
        let mut evidence = vec![match self.targets.len() {
            1 => Said::BurstSent {
                size,
                key: key.clone(),
                tally: tally_first,
                ms,
            },
            instances => Said::BurstSentAcross {
                size,
                key: key.clone(),
                instances,
                tally: tally_first,
                ms,
            },
        }];
        let unanswered = first.iter().filter(|a| a.is_err()).count();
        if unanswered > 0 {
            let (answered, bound) = (size - unanswered, Seconds(self.options.timeout));
            evidence.push(Said::BurstUnanswered {
                answered,
                size,
                bound,
                unanswered,
            });
            *stuck = Some(vec![Said::BurstLeftUnanswered {
                size,
                answered,
                bound,
                unanswered,
            }]);
            return Ok(Finding::new(
                Verdict::Fail,
                Said::BurstDeadlock { unanswered, size },
                evidence,
            )
            .seen(answers_seen)
            .drawn_from(trace));
        }
        let mut finals = Vec::with_capacity(size);
        let mut in_flight = Vec::new();
        for answer in first {
            let (answer, retried) = self.until_not_in_flight(&request, answer).await;
            if !retried.is_empty() {
                answers_seen.push(seen(Role::InFlightRetry, &answer));
            }
            in_flight.extend(retried);
            finals.push(answer);
        }
        if !in_flight.is_empty() {
            evidence.push(Said::InFlightRetried {
                count: in_flight.len(),
                tally: tally(&finals),
            });
        }
        let answers: Vec<&Answer> = finals.iter().filter_map(|a| a.as_ref().ok()).collect();
        let no_retry_after = retry_after_missing(&without_retry_after(
            in_flight.iter().chain(answers.iter().copied()),
        ));
        if let Some(line) = &no_retry_after {
            evidence.push(line.clone());
        }
        let finding = |verdict, why: Vec<Said>, evidence: Vec<Said>| {
            Ok(Finding::because(verdict, why, evidence)
                .seen(answers_seen.clone())
                .drawn_from(trace.clone()))
        };
        if answers.len() < size || answers.iter().any(|a| a.status == 409) {
            return finding(Verdict::Fail, vec![Said::NoFinalAnswer], evidence);
        }
        let ids: BTreeSet<String> = answers
            .iter()
            .filter_map(|a| a.json().and_then(|b| id_of(&b, &self.options.id_pointer)))
            .collect();
        let mut shown: Vec<String> = ids.iter().take(5).cloned().collect();
        if ids.len() > 5 {
            shown.push("…".to_owned());
        }
        evidence.push(Said::Ids { ids: List(shown) });
        let statuses: BTreeSet<u16> = answers.iter().map(|a| a.status).collect();
        let bodies: Vec<Option<Value>> = answers.iter().map(|a| a.json()).collect();
        let same_bodies = bodies.iter().all(|b| b == &bodies[0]);
        let same_bytes = answers.iter().all(|a| a.body == answers[0].body);
        evidence.push(match (same_bodies, same_bytes) {
            (true, true) => Said::BodiesIdentical,
            (true, false) => Said::BodiesSameJson,
            _ => Said::BodiesDifferent,
        });
        if ids.len() > 1 {
            return finding(
                Verdict::Fail,
                vec![Said::ManyIds { ids: ids.len() }],
                evidence,
            );
        }
        if statuses.len() > 1 || !same_bodies {
            return finding(Verdict::Fail, vec![Said::AnswersDiffer], evidence);
        }
        let status = answers[0].status;
        if !(200..300).contains(&status) {
            return finding(Verdict::Fail, vec![Said::NoSuccess { status }], evidence);
        }
        let passed = Said::BurstPassed { size, status };
        match no_retry_after {
            Some(_) => finding(
                Verdict::Warn,
                vec![passed, Said::InFlightWithoutRetryAfter],
                evidence,
            ),
            None => finding(Verdict::Pass, vec![passed], evidence),
        }
    }

    pub(super) async fn hang(&self) -> Finding {
        let mut evidence = Vec::new();
        let mut answers_seen = Vec::new();
        let mut stuck = None;
        let mut errors = 0;
        let mut no_retry_after = Vec::new();
        for &size in &self.options.hang_bursts {
            let n = self.fresh();
            let key = self.key(n);
            let request = self.request(Some(&key), self.options.body_for(n));
            let started = Instant::now();
            let answers =
                http::send_together(self.spread(&request, size), self.options.timeout).await;
            answers_seen.extend(answers.iter().map(|a| seen(Role::Hang, a)));
            let answered = answers.iter().filter(|a| a.is_ok()).count();
            errors += answers
                .iter()
                .filter(|a| matches!(a, Ok(a) if a.status >= 500))
                .count();
            no_retry_after.extend(without_retry_after(
                answers.iter().filter_map(|a| a.as_ref().ok()),
            ));
            evidence.push(Said::HangBurst {
                size,
                tally: tally(&answers),
                ms: started.elapsed().as_millis(),
            });
            if answered < size {
                let bound = Seconds(self.options.timeout);
                evidence.push(Said::HangUnanswered {
                    answered,
                    size,
                    bound,
                });
                stuck = Some(Said::HangDeadlock {
                    answered,
                    size,
                    bound,
                });
                // The server is stuck: a larger burst would only wait as long again.
                break;
            }
        }
        if let Some(why) = stuck {
            return Finding::new(Verdict::Fail, why, evidence).seen(answers_seen);
        }
        let no_retry_after = retry_after_missing(&no_retry_after);
        if let Some(line) = &no_retry_after {
            evidence.push(line.clone());
        }
        let finding = if errors > 0 {
            Finding::new(Verdict::Warn, Said::HangGaveUp { errors }, evidence)
        } else if no_retry_after.is_some() {
            Finding::new(Verdict::Warn, Said::HangNoRetryAfter, evidence)
        } else {
            Finding::new(Verdict::Pass, Said::HangAnswered, evidence)
        };
        finding.seen(answers_seen)
    }
}
