//! The same key with another body while the first request is still in flight.
//!
//! The draft (section 2.7) answers a key reused with another payload with 422, and
//! a request retried while the original is still being processed with 409; a
//! request that is both gets whichever the server checks first (its open issue
//! #42). The probe holds both requests back by their bodies' last byte, then
//! releases the first's and at once the second's, so that a server that reads a
//! whole body before it handles a request gets them a few microseconds apart: the
//! second arrives while the first is being handled. Whatever it answers, one of
//! the two bodies may be paid, never both, and never the one refused.

use std::time::Instant;

use super::{Finding, Probe, describe, id_of, seen};
use crate::http::{self, Answer, NoAnswer, Request};
use crate::outcome::{Role, Verdict};
use crate::words::Said;

impl Probe<'_> {
    pub(super) async fn concurrent_body(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let with_body = self.request(Some(&key), self.options.body_for(n));
        let with_other = self.request(Some(&key), self.options.other_body_for(n));
        // Both to one instance: the check asks what the API answers; whether its
        // instances share the key is the burst's question.
        let target = self.target().clone();
        let started = Instant::now();
        let (first, second) = http::send_held_pair(
            (target.clone(), with_body.clone()),
            (target, with_other.clone()),
            self.options.timeout,
        )
        .await;
        let mut answers = vec![
            seen(Role::PairBody, &first),
            seen(Role::PairOtherBody, &second),
        ];
        let mut evidence = vec![
            Said::PairSent {
                ms: started.elapsed().as_millis(),
            },
            Said::PairBodyAnswer {
                answer: describe(&first),
            },
            Said::PairOtherBodyAnswer {
                answer: describe(&second),
            },
        ];
        let (Ok(first), Ok(second)) = (first, second) else {
            return Finding::new(Verdict::Fail, Said::NoAnswerToARequest, evidence).seen(answers);
        };
        let accepted = |a: &Answer| (200..300).contains(&a.status);
        let (refused_request, refused) = match (accepted(&first), accepted(&second)) {
            (true, true) => {
                let id = |a: &Answer| {
                    a.json()
                        .and_then(|body| id_of(&body, &self.options.id_pointer))
                };
                let why = if id(&first) == id(&second) {
                    Said::PairPassedOff
                } else {
                    Said::PairBothAccepted
                };
                return Finding::new(Verdict::Fail, why, evidence).seen(answers);
            }
            (false, false) => {
                return Finding::new(Verdict::Fail, Said::PairNoneAccepted, evidence).seen(answers);
            }
            (true, false) => (&with_other, second),
            (false, true) => (&with_body, first),
        };
        let (verdict, why) = match refused.status {
            422 => (Verdict::Pass, Said::PairRefused { status: 422 }),
            409 => {
                let (verdict, why, retried) = self.after_conflict(refused_request, refused).await;
                answers.push(seen(Role::PairRetry, &retried.0));
                evidence.push(Said::PairRetriedAfter409 {
                    count: retried.1,
                    answer: describe(&retried.0),
                });
                (verdict, why)
            }
            status @ 400..=499 => (Verdict::Warn, Said::PairRefusedOther { status }),
            status => (Verdict::Fail, Said::AnsweredError { status }),
        };
        Finding::new(verdict, why, evidence).seen(answers)
    }

    /// A 409 asks the client to come back: the refused body is sent again until it
    /// gets another answer, which must not be a success (the first body was paid).
    async fn after_conflict(
        &self,
        request: &Request,
        conflict: Answer,
    ) -> (Verdict, Said, (Result<Answer, NoAnswer>, usize)) {
        let (last, conflicts) = self.until_not_in_flight(request, Ok(conflict)).await;
        let (verdict, why) = match &last {
            Err(_) => (Verdict::Fail, Said::NoAnswerToARequest),
            Ok(a) if (200..300).contains(&a.status) => (
                Verdict::Fail,
                Said::PairAcceptedAfterConflict { status: a.status },
            ),
            Ok(a) if a.status == 409 => (Verdict::Fail, Said::NoFinalAnswer),
            Ok(a) if (400..500).contains(&a.status) => {
                (Verdict::Pass, Said::PairConflictThen { then: a.status })
            }
            Ok(a) => (Verdict::Fail, Said::AnsweredError { status: a.status }),
        };
        (verdict, why, (last, conflicts.len()))
    }
}
