//! The checks, run one after the other so that every effect counted belongs to
//! the check that caused it. Each uses keys and `{n}` of its own.
//!
//! [`CHECKS`] (`catalogue.rs`) is the one list of them: id, name and the effects
//! each should leave (their titles, like every word of a report, are in
//! [`crate::words`]).
//! The checks themselves live one family to a file: [`concurrency`] (burst,
//! hang), [`in_flight`] (another body while the first is in flight), [`replays`]
//! (replay, another body, two keys, a rewritten body), [`bad_input`] (bad keys,
//! bad bodies) and [`network`] (lost answers).

mod bad_input;
mod concurrency;
mod in_flight;
mod network;
mod profile;
mod replays;

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::catalogue::{CHECKS, CheckId, Expected};
use crate::effects::Effects;
use crate::error::ProbeError;
use crate::http::{self, Answer, NoAnswer, Request, Target};
use crate::options::{Options, parse_url};
use crate::outcome::{Role, Verdict};
use crate::profile::Profile;
use crate::results::{CheckResult, EffectCount, Report, Seen, SeenAnswer};
use crate::words::{Said, Tallied, Tally};

/// How long a request answered `409 in flight` is retried, and how often.
const IN_FLIGHT_RETRY_FOR: Duration = Duration::from_secs(3);
const IN_FLIGHT_RETRY_EVERY: Duration = Duration::from_millis(20);
/// Bodies and answers shown in the evidence are cut to this many characters.
pub(crate) const SHOWN: usize = 160;

/// A finished check, before it gets its id and timing.
struct Finding {
    verdict: Verdict,
    why: Vec<Said>,
    evidence: Vec<Said>,
    answers: Vec<Seen>,
    effects: Option<EffectCount>,
    /// How many requests the server accepted: the effects [`Expected::OnePerAccepted`] expects.
    accepted: i64,
    /// The burst's timeline, from the client's side (the burst check's).
    timeline: Option<timeline::Trace>,
}

impl Finding {
    fn new(verdict: Verdict, why: Said, evidence: Vec<Said>) -> Self {
        Self::because(verdict, vec![why], evidence)
    }

    /// A finding with several reasons.
    fn because(verdict: Verdict, why: Vec<Said>, evidence: Vec<Said>) -> Self {
        Self {
            verdict,
            why,
            evidence,
            answers: Vec::new(),
            effects: None,
            accepted: 0,
            timeline: None,
        }
    }

    /// The answers that decided it, each with why it was sent.
    fn seen(mut self, answers: Vec<Seen>) -> Self {
        self.answers = answers;
        self
    }

    /// The timeline of the burst that decided it.
    fn drawn_from(mut self, trace: timeline::Trace) -> Self {
        self.timeline = Some(trace);
        self
    }
}

/// An answer as the report keeps it, sent as `role`.
fn seen(role: Role, answer: &Result<Answer, NoAnswer>) -> Seen {
    Seen {
        role,
        answer: answer.as_ref().map(facts).map_err(Clone::clone),
    }
}

/// The facts of an answer the report keeps: `retry-after` and the headers that
/// name idempotency or a replay, whatever the server calls them.
fn facts(answer: &Answer) -> SeenAnswer {
    let matters = |name: &str| {
        let name = name.to_ascii_lowercase();
        name == "retry-after" || name.contains("idempot") || name.contains("replay")
    };
    SeenAnswer {
        status: answer.status,
        media_type: answer.media_type(),
        body: answer.body_excerpt(SHOWN),
        headers: answer
            .headers
            .iter()
            .filter(|(name, _)| matters(name))
            .cloned()
            .collect(),
        elapsed: answer.elapsed,
    }
}

/// The state of one run.
struct Probe<'a> {
    options: &'a Options,
    /// One per URL: the burst is spread across them, and one request after
    /// another goes to the next.
    targets: Vec<Target>,
    next_target: AtomicUsize,
    effects: Option<Effects>,
    next: AtomicU64,
    /// A run-unique prefix for keys and `{n}`, so that two runs against one
    /// database never share a key.
    run_id: u64,
}

pub async fn run(options: &Options) -> Result<Report, ProbeError> {
    options.validate()?;
    let started = Instant::now();
    let mut targets = Vec::with_capacity(options.urls.len());
    for url in &options.urls {
        targets.push(target(url, options).await?);
    }
    let effects = match (&options.database_url, &options.count_sql) {
        (Some(url), Some(sql)) => Some(Effects::connect(url, sql).await?),
        _ => None,
    };
    let run_id = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64 % 1_000_000_000)
        .unwrap_or_default();
    let probe = Probe {
        options,
        targets,
        next_target: AtomicUsize::new(0),
        effects,
        next: AtomicU64::new(0),
        run_id,
    };
    let mut checks = Vec::new();
    // After a burst that left requests unanswered, the server's answers would only
    // show its stuck pool: the later checks are skipped, the hang check reports it.
    let mut stuck: Option<Vec<Said>> = None;
    for check in CHECKS {
        let id = check.id;
        let check_started = Instant::now();
        let finding = if options.skip.contains(&id) {
            Finding::new(Verdict::Skipped, Said::SkippedOnRequest, vec![])
        } else if let Some(evidence) = &stuck {
            if id == CheckId::Hang {
                Finding::new(Verdict::Fail, Said::StuckBurstDeadlock, evidence.clone())
            } else {
                Finding::new(Verdict::Skipped, Said::SkippedAfterStuckBurst, vec![])
            }
        } else {
            let before = probe.count().await?;
            let finding = probe.check(id, &mut stuck).await?;
            probe
                .with_effects(finding, before, check.expected_effects)
                .await?
        };
        checks.push(CheckResult {
            id,
            verdict: finding.verdict,
            why: finding.why,
            evidence: finding.evidence,
            answers: finding.answers,
            effects: finding.effects,
            timeline: finding.timeline,
            elapsed: check_started.elapsed(),
        });
    }
    Ok(Report {
        method: options.method.clone(),
        urls: options.urls.clone(),
        path: options.path.clone(),
        counted_effects: probe.effects.is_some(),
        profile: Profile::of(&checks),
        checks,
        elapsed: started.elapsed(),
    })
}

/// Where `url`'s requests go, once something there accepts a connection.
async fn target(url: &str, options: &Options) -> Result<Target, ProbeError> {
    let parsed = parse_url(url)?;
    let addr = resolve(&parsed.host, parsed.port, options.allow_remote).await?;
    let host = if parsed.host.contains(':') {
        format!("[{}]:{}", parsed.host, parsed.port)
    } else {
        format!("{}:{}", parsed.host, parsed.port)
    };
    // Before anything is sent: is anyone there?
    if let Err(e) = tokio::time::timeout(options.timeout, tokio::net::TcpStream::connect(addr))
        .await
        .unwrap_or_else(|_| Err(std::io::Error::other("no answer to the connection")))
    {
        return Err(ProbeError::Unreachable {
            addr: addr.to_string(),
            reason: e.to_string(),
        });
    }
    Ok(Target {
        addr,
        host,
        base_path: parsed.base_path,
    })
}

/// The address to send to; only this machine unless `allow_remote`.
async fn resolve(host: &str, port: u16, allow_remote: bool) -> Result<SocketAddr, ProbeError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| ProbeError::Resolve {
            host: host.to_owned(),
            reason: e.to_string(),
        })?
        .collect();
    let first = addrs.first().copied().ok_or_else(|| ProbeError::Resolve {
        host: host.to_owned(),
        reason: "no address".to_owned(),
    })?;
    if let Some(remote) = addrs.iter().find(|a| !is_loopback(a.ip()))
        && !allow_remote
    {
        return Err(ProbeError::Remote {
            host: host.to_owned(),
            addr: remote.ip().to_string(),
        });
    }
    Ok(first)
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// The id at `pointer` in a JSON body, as text (a string id or a number id).
fn id_of(body: &Value, pointer: &str) -> Option<String> {
    match body.pointer(pointer)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// One answer on one line: status, media type, the start of the body.
fn describe(answer: &Result<Answer, NoAnswer>) -> Box<Said> {
    Box::new(match answer {
        Ok(a) => Said::Answered {
            status: a.status,
            media_type: a.media_type(),
            body: a.body_excerpt(SHOWN),
        },
        Err(why) => Said::NotAnswered { why: why.clone() },
    })
}

/// A tally of answers: `201 ×19, 409 ×1`.
fn tally<'a>(answers: impl IntoIterator<Item = &'a Result<Answer, NoAnswer>>) -> Tally {
    Tally::of(answers.into_iter().map(status_of))
}

fn status_of(answer: &Result<Answer, NoAnswer>) -> Tallied {
    match answer {
        Ok(a) => Tallied::Status(a.status),
        Err(NoAnswer::Timeout(_)) => Tallied::Unanswered,
        Err(_) => Tallied::NoAnswer,
    }
}

/// Answers that tell the client to come back later (409 in flight, 502, 503)
/// without saying when: the draft and RFC 9110 give them a `Retry-After`.
fn without_retry_after<'a>(answers: impl IntoIterator<Item = &'a Answer>) -> Vec<u16> {
    answers
        .into_iter()
        .filter(|a| matches!(a.status, 409 | 502 | 503) && a.header("retry-after").is_none())
        .map(|a| a.status)
        .collect()
}

/// A warning about answers without `Retry-After`, for the evidence and the why.
fn retry_after_missing(statuses: &[u16]) -> Option<Said> {
    if statuses.is_empty() {
        return None;
    }
    Some(Said::NoRetryAfter {
        tally: Tally::of(statuses.iter().copied().map(Tallied::Status)),
    })
}

impl Probe<'_> {
    fn fresh(&self) -> u64 {
        self.run_id * 1000 + self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn key(&self, n: u64) -> String {
        format!("probe-{n}")
    }

    /// The next instance, round robin: a retry reaches another instance than its
    /// first request whenever there are several.
    fn target(&self) -> &Target {
        let at = self.next_target.fetch_add(1, Ordering::Relaxed);
        &self.targets[at % self.targets.len()]
    }

    /// `size` copies of `request`, spread round robin across the instances.
    fn spread(&self, request: &Request, size: usize) -> Vec<(Target, Request)> {
        (0..size)
            .map(|i| {
                (
                    self.targets[i % self.targets.len()].clone(),
                    request.clone(),
                )
            })
            .collect()
    }

    fn request(&self, key: Option<&str>, body: impl Into<Vec<u8>>) -> Request {
        let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
        if let Some(key) = key {
            headers.push((self.options.key_header.clone(), key.to_owned()));
        }
        headers.extend(self.options.headers.iter().cloned());
        Request {
            method: self.options.method.clone(),
            path: self.options.path.clone(),
            headers,
            body: body.into(),
        }
    }

    async fn send(&self, request: &Request) -> Result<Answer, NoAnswer> {
        http::send(self.target(), request, self.options.timeout).await
    }

    /// Sends `request` until its answer is not `409` (a duplicate in flight), for
    /// at most [`IN_FLIGHT_RETRY_FOR`]. Returns the last answer and every 409 seen.
    async fn until_not_in_flight(
        &self,
        request: &Request,
        first: Result<Answer, NoAnswer>,
    ) -> (Result<Answer, NoAnswer>, Vec<Answer>) {
        let started = Instant::now();
        let mut answer = first;
        let mut in_flight = Vec::new();
        while let Ok(a) = &answer
            && a.status == 409
            && started.elapsed() < IN_FLIGHT_RETRY_FOR
        {
            in_flight.push(a.clone());
            // Not a test's sleep: a client's pause before retrying, as the draft asks.
            tokio::time::sleep(IN_FLIGHT_RETRY_EVERY).await;
            answer = self.send(request).await;
        }
        (answer, in_flight)
    }

    async fn count(&self) -> Result<Option<i64>, ProbeError> {
        match &self.effects {
            Some(effects) => effects.count().await.map(Some),
            None => Ok(None),
        }
    }

    /// Adds the effect count to a check: more or fewer new effects than
    /// `expected` fails it.
    async fn with_effects(
        &self,
        mut finding: Finding,
        before: Option<i64>,
        expected: Expected,
    ) -> Result<Finding, ProbeError> {
        let Some(before) = before else {
            return Ok(finding);
        };
        let Some(after) = self.count().await? else {
            return Ok(finding);
        };
        let created = after - before;
        let expected = match expected {
            Expected::Exactly(n) => n,
            Expected::OnePerAccepted => finding.accepted,
            Expected::NotJudged => {
                finding.evidence.push(Said::Effects { created });
                finding.effects = Some(EffectCount {
                    created,
                    expected: None,
                });
                return Ok(finding);
            }
        };
        finding
            .evidence
            .push(Said::EffectsExpected { created, expected });
        finding.effects = Some(EffectCount {
            created,
            expected: Some(expected),
        });
        if created == expected {
            return Ok(finding);
        }
        let mismatch = Said::EffectsMismatch { created, expected };
        if finding.verdict == Verdict::Fail {
            finding.why.push(mismatch);
        } else {
            finding.why = vec![mismatch];
        }
        finding.verdict = Verdict::Fail;
        Ok(finding)
    }

    /// Runs one check.
    async fn check(
        &self,
        id: CheckId,
        stuck: &mut Option<Vec<Said>>,
    ) -> Result<Finding, ProbeError> {
        Ok(match id {
            CheckId::Burst => self.burst(stuck).await?,
            CheckId::Replay => self.replay().await,
            CheckId::DifferentBody => self.different_body().await,
            CheckId::ConcurrentBody => self.concurrent_body().await,
            CheckId::DistinctKeys => self.distinct_keys().await,
            CheckId::RewrittenBody => self.rewritten_body().await,
            CheckId::BadKeys => self.bad_keys().await,
            CheckId::BadBodies => self.bad_bodies().await,
            CheckId::LostAnswer => self.lost_answer().await?,
            CheckId::Hang => self.hang().await,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_names_parse_back() {
        for &id in CheckId::ALL {
            assert_eq!(id.as_str().parse::<CheckId>(), Ok(id));
        }
        assert!("nope".parse::<CheckId>().is_err());
    }

    #[test]
    fn every_check_is_its_own_row_of_the_table() {
        for (at, check) in CHECKS.iter().enumerate() {
            assert_eq!(check.id as usize, at, "{} is out of place", check.name);
            assert_eq!(check.id.row().name, check.name);
        }
    }

    #[test]
    fn a_retry_asked_for_without_retry_after_is_named() {
        let answer = |status, retry_after: Option<&str>| Answer {
            status,
            headers: retry_after
                .map(|v| vec![("retry-after".to_owned(), v.to_owned())])
                .unwrap_or_default(),
            body: Vec::new(),
            elapsed: Duration::ZERO,
        };
        let answers = [
            answer(409, None),
            answer(409, Some("1")),
            answer(502, None),
            answer(201, None),
            answer(422, None),
        ];
        assert_eq!(without_retry_after(&answers), [409, 502]);
    }
}
