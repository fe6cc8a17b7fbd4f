//! The burst seen from the client's side, as a timeline's trace (the
//! `timeline` crate's one format, [`Missing::ClientSide`]): for each request,
//! when its body went, when its answer had arrived (or that none came within the
//! bound), its status, and whether the answer said it was a replay. Nothing of
//! the server's locks, transactions or pool is in it: the probe cannot see them.

use std::time::Instant;

use timeline::trace::{self, End, FORMAT, Request, Seen, Trace};

use crate::http::{Answer, NoAnswer, Timed};

/// The trace of a burst: `answers` in the order the requests were made (request
/// `n` is the `n`th, from 1). Times are microseconds from the first body let go.
pub fn of_burst(answers: &[(Result<Answer, NoAnswer>, Timed)]) -> Trace {
    let zero = answers
        .iter()
        .map(|(_, timed)| timed.sent)
        .min()
        .unwrap_or_else(Instant::now);
    let micros = |at: Instant| at.saturating_duration_since(zero).as_micros() as u64;
    let marks_replays = answers
        .iter()
        .filter_map(|(answer, _)| answer.as_ref().ok())
        .any(|answer| replay_header(answer).is_some());
    let requests: Vec<Request> = answers
        .iter()
        .enumerate()
        .map(|(at, (answer, timed))| Request {
            n: at + 1,
            start_us: micros(timed.sent),
            end_us: Some(micros(timed.ended)),
            end: End::Answered {
                answer: match answer {
                    Ok(answer) => answer.status.to_string(),
                    Err(NoAnswer::Timeout(_)) => trace::UNANSWERED.to_owned(),
                    Err(_) => trace::NO_ANSWER.to_owned(),
                },
            },
            events: Vec::new(),
            replayed: match answer {
                Ok(answer) if marks_replays => Some(replayed(answer)),
                _ => None,
            },
        })
        .collect();
    Trace {
        format: FORMAT,
        id: format!("{}.burst", std::process::id()),
        test: None,
        seen: Seen::client_side(),
        end_us: requests.iter().filter_map(|r| r.end_us).max().unwrap_or(0),
        requests,
    }
}

/// The answer's header that speaks of a replay (`Idempotent-Replayed`,
/// `X-Idempotency-Replayed`...), as the replay check reads it.
fn replay_header(answer: &Answer) -> Option<&str> {
    answer
        .headers
        .iter()
        .find(|(name, _)| name.to_ascii_lowercase().contains("replay"))
        .map(|(_, value)| value.as_str())
}

/// Whether an answer of an API that marks replays says it is one: its replay
/// header is there and does not say no.
fn replayed(answer: &Answer) -> bool {
    replay_header(answer).is_some_and(|value| {
        !matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "false" | "0" | "no" | "?0"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use timeline::trace::Missing;

    fn answer(status: u16, replayed: Option<&str>) -> Result<Answer, NoAnswer> {
        Ok(Answer {
            status,
            headers: replayed
                .map(|v| vec![("Idempotent-Replayed".to_owned(), v.to_owned())])
                .unwrap_or_default(),
            body: Vec::new(),
            elapsed: Duration::ZERO,
        })
    }

    #[test]
    fn a_burst_becomes_a_client_side_trace_with_its_statuses_times_and_replays() {
        let zero = Instant::now();
        let at = |ms: u64| zero + Duration::from_millis(ms);
        let timed = |sent, ended| Timed {
            sent: at(sent),
            ended: at(ended),
        };
        let trace = of_burst(&[
            (answer(201, None), timed(1, 200)),
            (answer(201, Some("true")), timed(0, 210)),
            (answer(409, Some("false")), timed(2, 5)),
            (
                Err(NoAnswer::Timeout(Duration::from_secs(3))),
                timed(1, 3001),
            ),
            (Err(NoAnswer::Closed), timed(1, 4)),
        ]);
        assert_eq!(trace.seen.missing, [Missing::ClientSide]);
        assert!(!trace.seen.statements && trace.seen.lock_waits_from_us.is_none());
        let r = &trace.requests;
        assert_eq!(
            (r[0].n, r[0].start_us, r[0].end_us),
            (1, 1000, Some(200_000))
        );
        assert_eq!(r[1].start_us, 0);
        assert_eq!(trace.end_us, 3_001_000);
        let replayed: Vec<Option<bool>> = r.iter().map(|r| r.replayed).collect();
        assert_eq!(replayed, [Some(false), Some(true), Some(false), None, None]);
        let answers: Vec<Option<&str>> = r.iter().map(|r| r.answer()).collect();
        assert_eq!(
            answers,
            [
                Some("201"),
                Some("201"),
                Some("409"),
                Some(trace::UNANSWERED),
                Some(trace::NO_ANSWER)
            ]
        );
        assert!(r.iter().all(|r| r.events.is_empty()));
        // An API that marks no replay: not known, never "not replayed".
        let unmarked = of_burst(&[(answer(201, None), timed(0, 1))]);
        assert_eq!(unmarked.requests[0].replayed, None);
    }
}
