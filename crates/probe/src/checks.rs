//! The checks, run one after the other so that every effect counted belongs to
//! the check that caused it. Each uses keys and `{n}` of its own.

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fault_proxy::{Fault, FaultyProxy};
use serde::Serialize;
use serde_json::Value;

use crate::effects::Effects;
use crate::http::{self, Answer, NoAnswer, Request, Target, excerpt};
use crate::{CheckResult, Options, ProbeError, Report, Verdict, parse_url};

/// The checks, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckId {
    Burst,
    Replay,
    DifferentBody,
    DistinctKeys,
    RewrittenBody,
    BadKeys,
    BadBodies,
    LostAnswer,
    Hang,
}

impl CheckId {
    pub const ALL: [CheckId; 9] = [
        Self::Burst,
        Self::Replay,
        Self::DifferentBody,
        Self::DistinctKeys,
        Self::RewrittenBody,
        Self::BadKeys,
        Self::BadBodies,
        Self::LostAnswer,
        Self::Hang,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Burst => "burst",
            Self::Replay => "replay",
            Self::DifferentBody => "different-body",
            Self::DistinctKeys => "distinct-keys",
            Self::RewrittenBody => "rewritten-body",
            Self::BadKeys => "bad-keys",
            Self::BadBodies => "bad-bodies",
            Self::LostAnswer => "lost-answer",
            Self::Hang => "hang",
        }
    }

    /// What the check asks, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            Self::Burst => "concurrent requests, one key: one effect, one answer",
            Self::Replay => "a later retry replays the answer",
            Self::DifferentBody => "same key, another body: refused",
            Self::DistinctKeys => "two keys, same body: two effects",
            Self::RewrittenBody => "same request written differently: replayed",
            Self::BadKeys => "missing, empty, too long key: refused",
            Self::BadBodies => "not JSON, over the size limit: refused",
            Self::LostAnswer => "answer lost, request lost, answer late: retry is safe",
            Self::Hang => "bursts larger than a pool: all answered",
        }
    }
}

impl std::str::FromStr for CheckId {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|id| id.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|id| id.as_str()).collect();
                format!("no check {text:?}; the checks are {}", names.join(", "))
            })
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How long a request answered `409 in flight` is retried, and how often.
const IN_FLIGHT_RETRY_FOR: Duration = Duration::from_secs(3);
const IN_FLIGHT_RETRY_EVERY: Duration = Duration::from_millis(20);
/// The client's patience in the "late answer" scenario: the proxy holds the answer past it.
const LATE_ANSWER_PATIENCE: Duration = Duration::from_millis(300);
/// Bodies and answers shown in the evidence are cut to this many characters.
const SHOWN: usize = 160;

/// A finished check, before it gets its id and timing.
struct Finding {
    verdict: Verdict,
    why: String,
    evidence: Vec<String>,
}

impl Finding {
    fn new(verdict: Verdict, why: impl Into<String>, evidence: Vec<String>) -> Self {
        Self {
            verdict,
            why: why.into(),
            evidence,
        }
    }
}

/// The state of one run.
struct Probe<'a> {
    options: &'a Options,
    target: Target,
    path: String,
    effects: Option<Effects>,
    next: AtomicU64,
    /// A run-unique prefix for keys and `{n}`, so that two runs against one
    /// database never share a key.
    run_id: u64,
}

pub async fn run(options: &Options) -> Result<Report, ProbeError> {
    options.validate()?;
    let started = Instant::now();
    let url = parse_url(&options.url)?;
    let addr = resolve(&url.host, url.port, options.allow_remote).await?;
    let host = if url.host.contains(':') {
        format!("[{}]:{}", url.host, url.port)
    } else {
        format!("{}:{}", url.host, url.port)
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
        target: Target { addr, host },
        path: format!("{}{}", url.base_path, options.path),
        effects,
        next: AtomicU64::new(0),
        run_id,
    };
    let mut checks = Vec::new();
    // After a burst that left requests unanswered, the server's answers would only
    // show its stuck pool: the later checks are skipped, the hang check reports it.
    let mut stuck: Option<Vec<String>> = None;
    for id in CheckId::ALL {
        let check_started = Instant::now();
        let finding = if options.skip.contains(&id) {
            Finding::new(Verdict::Skipped, "skipped on request (--skip)", vec![])
        } else if let Some(evidence) = &stuck {
            if id == CheckId::Hang {
                Finding::new(
                    Verdict::Fail,
                    "suspected pool deadlock: the burst left requests unanswered",
                    evidence.clone(),
                )
            } else {
                Finding::new(
                    Verdict::Skipped,
                    "the burst left requests unanswered (see hang): later answers would only \
                     show the stuck server",
                    vec![],
                )
            }
        } else {
            let before = probe.count().await?;
            let (finding, expected) = probe.check(id, &mut stuck).await?;
            probe.with_effects(finding, before, expected).await?
        };
        checks.push(CheckResult {
            id,
            title: id.title(),
            verdict: finding.verdict,
            why: finding.why,
            evidence: finding.evidence,
            elapsed: check_started.elapsed(),
        });
    }
    Ok(Report {
        target: format!(
            "{} {}{}",
            options.method,
            options.url.trim_end_matches('/'),
            options.path
        ),
        counted_effects: probe.effects.is_some(),
        checks,
        elapsed: started.elapsed(),
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

fn describe(answer: &Result<Answer, NoAnswer>) -> String {
    match answer {
        Ok(a) => format!("{} {} {}", a.status, a.media_type(), a.body_excerpt(SHOWN)),
        Err(e) => format!("no answer: {e}"),
    }
}

/// A tally of statuses: `201 ×19, 409 ×1`.
fn tally(statuses: impl IntoIterator<Item = String>) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for status in statuses {
        *counts.entry(status).or_default() += 1;
    }
    counts
        .iter()
        .map(|(status, n)| format!("{status} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn status_of(answer: &Result<Answer, NoAnswer>) -> String {
    match answer {
        Ok(a) => a.status.to_string(),
        Err(NoAnswer::Timeout(_)) => "unanswered".to_owned(),
        Err(_) => "no answer".to_owned(),
    }
}

/// The same JSON object written differently: its fields in reverse order and
/// with other spacing. `None` if the body is not an object of two fields or more.
pub fn rewritten(body: &str) -> Option<String> {
    let Value::Object(fields) = serde_json::from_str::<Value>(body).ok()? else {
        return None;
    };
    if fields.len() < 2 {
        return None;
    }
    // serde_json's map is sorted; of the sorted order and its reverse, use the one
    // that is not the original's order.
    let mut entries: Vec<(&String, &Value)> = fields.iter().collect();
    let original_first = body.find('"').map(|at| &body[at + 1..]);
    if original_first.is_some_and(|rest| rest.starts_with(entries[0].0.as_str())) {
        entries.reverse();
    }
    let inner: Vec<String> = entries
        .iter()
        .map(|(key, value)| format!("  {} :  {}", Value::String((*key).clone()), value))
        .collect();
    Some(format!("{{\n{}\n}}\n", inner.join(" ,\n")))
}

impl Probe<'_> {
    fn fresh(&self) -> u64 {
        self.run_id * 1000 + self.next.fetch_add(1, Ordering::Relaxed)
    }

    fn key(&self, n: u64) -> String {
        format!("probe-{n}")
    }

    fn request(&self, key: Option<&str>, body: impl Into<Vec<u8>>) -> Request {
        let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
        if let Some(key) = key {
            headers.push((self.options.key_header.clone(), key.to_owned()));
        }
        headers.extend(self.options.headers.iter().cloned());
        Request {
            method: self.options.method.clone(),
            path: self.path.clone(),
            headers,
            body: body.into(),
        }
    }

    async fn send(&self, request: &Request) -> Result<Answer, NoAnswer> {
        http::send(&self.target, request, self.options.timeout).await
    }

    /// Sends `request` until its answer is not `409` (a duplicate in flight), for
    /// at most [`IN_FLIGHT_RETRY_FOR`]. Returns the last answer and how many 409s.
    async fn until_not_in_flight(
        &self,
        request: &Request,
        first: Result<Answer, NoAnswer>,
    ) -> (Result<Answer, NoAnswer>, usize) {
        let started = Instant::now();
        let mut answer = first;
        let mut in_flight = 0;
        while matches!(&answer, Ok(a) if a.status == 409) && started.elapsed() < IN_FLIGHT_RETRY_FOR
        {
            in_flight += 1;
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

    /// Adds the effect count to a check: more or fewer than `expected` new effects fails it.
    async fn with_effects(
        &self,
        mut finding: Finding,
        before: Option<i64>,
        expected: Option<i64>,
    ) -> Result<Finding, ProbeError> {
        let Some(before) = before else {
            return Ok(finding);
        };
        let Some(after) = self.count().await? else {
            return Ok(finding);
        };
        let created = after - before;
        let Some(expected) = expected else {
            finding.evidence.push(format!("effects: {created} created"));
            return Ok(finding);
        };
        finding
            .evidence
            .push(format!("effects: {created} created (expected {expected})"));
        if created != expected && finding.verdict != Verdict::Fail {
            finding.verdict = Verdict::Fail;
            finding.why = format!("{created} effects where {expected} were expected");
        } else if created != expected {
            finding.why = format!(
                "{}; {created} effects where {expected} were expected",
                finding.why
            );
        }
        Ok(finding)
    }

    /// Runs one check; returns its finding and how many effects it should create.
    async fn check(
        &self,
        id: CheckId,
        stuck: &mut Option<Vec<String>>,
    ) -> Result<(Finding, Option<i64>), ProbeError> {
        Ok(match id {
            CheckId::Burst => (self.burst(stuck).await?, Some(1)),
            CheckId::Replay => (self.replay().await, Some(1)),
            CheckId::DifferentBody => (self.different_body().await, Some(1)),
            CheckId::DistinctKeys => (self.distinct_keys().await, Some(2)),
            CheckId::RewrittenBody => (self.rewritten_body().await, Some(1)),
            CheckId::BadKeys => (self.bad_keys().await, Some(0)),
            CheckId::BadBodies => (self.bad_bodies().await, Some(0)),
            CheckId::LostAnswer => (self.lost_answer().await?, Some(3)),
            // The burst judges effects; this check judges only whether every
            // request is answered (its count is shown, not judged).
            CheckId::Hang => (self.hang().await, None),
        })
    }

    /// Refuses to go on when the first answers say the probe is misconfigured.
    fn misconfigured(&self, answers: &[Result<Answer, NoAnswer>]) -> Result<(), ProbeError> {
        let target = format!("{}{}", self.target.host, self.path);
        let answered: Vec<&Answer> = answers.iter().filter_map(|a| a.as_ref().ok()).collect();
        if answered.is_empty() {
            if let Some(Err(NoAnswer::Connect(reason))) = answers.first() {
                return Err(ProbeError::Unreachable {
                    addr: self.target.addr.to_string(),
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

    async fn burst(&self, stuck: &mut Option<Vec<String>>) -> Result<Finding, ProbeError> {
        let n = self.fresh();
        let key = self.key(n);
        let request = self.request(Some(&key), self.options.body_for(n));
        let size = self.options.burst;
        let started = Instant::now();
        let first = http::send_together(
            &self.target,
            vec![request.clone(); size],
            self.options.timeout,
        )
        .await;
        let spread = started.elapsed();
        self.misconfigured(&first)?;
        let mut evidence = vec![format!(
            "{size} requests, key {key}, heads first then every body at once: {} in {} ms",
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
        let mut retried = 0;
        for answer in first {
            let (answer, in_flight) = self.until_not_in_flight(&request, answer).await;
            retried += in_flight;
            finals.push(answer);
        }
        if retried > 0 {
            evidence.push(format!(
                "{retried} answers of 409 (in flight) retried with the same key: then {}",
                tally(finals.iter().map(status_of))
            ));
        }
        let answers: Vec<&Answer> = finals.iter().filter_map(|a| a.as_ref().ok()).collect();
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
        Ok(Finding::new(
            Verdict::Pass,
            format!("{size} × {status}, one id, the same body"),
            evidence,
        ))
    }

    async fn replay(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let request = self.request(Some(&key), self.options.body_for(n));
        let first = self.send(&request).await;
        let again = self.send(&request).await;
        let mut evidence = vec![
            format!("first: {}", describe(&first)),
            format!("retry: {}", describe(&again)),
        ];
        let (Ok(first), Ok(again)) = (first, again) else {
            return Finding::new(Verdict::Fail, "a request got no answer", evidence);
        };
        let marker = again.header("idempotent-replayed");
        evidence.push(match marker {
            Some(value) => format!("the retry carries Idempotent-Replayed: {value}"),
            None => "no Idempotent-Replayed header on the retry (optional)".to_owned(),
        });
        if again.status != first.status || again.json() != first.json() {
            let why = if id_of(&again.json().unwrap_or_default(), &self.options.id_pointer)
                != id_of(&first.json().unwrap_or_default(), &self.options.id_pointer)
            {
                "the retry got another answer, with another id"
            } else {
                "the retry got another answer"
            };
            return Finding::new(Verdict::Fail, why, evidence);
        }
        let bytes = if again.body == first.body {
            "byte for byte"
        } else {
            "the same JSON, not the same bytes"
        };
        Finding::new(
            Verdict::Pass,
            format!("the retry got the same {} and body, {bytes}", first.status),
            evidence,
        )
    }

    async fn different_body(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let first = self
            .send(&self.request(Some(&key), self.options.body_for(n)))
            .await;
        let other = self
            .send(&self.request(Some(&key), self.options.other_body_for(n)))
            .await;
        let evidence = vec![
            format!("first: {}", describe(&first)),
            format!("other body: {}", describe(&other)),
        ];
        let Ok(other) = other else {
            return Finding::new(Verdict::Fail, "the second request got no answer", evidence);
        };
        match other.status {
            422 => Finding::new(
                Verdict::Pass,
                "refused with 422, as the IETF draft says",
                evidence,
            ),
            409 => Finding::new(
                Verdict::Warn,
                "refused with 409; the IETF draft answers a reused key with 422",
                evidence,
            ),
            400..=499 => Finding::new(
                Verdict::Warn,
                format!(
                    "refused with {}; the IETF draft answers a reused key with 422",
                    other.status
                ),
                evidence,
            ),
            200..=299 => Finding::new(
                Verdict::Fail,
                format!(
                    "accepted with {}: either a second effect, or the first answer passed off as this one",
                    other.status
                ),
                evidence,
            ),
            status => Finding::new(
                Verdict::Fail,
                format!("answered {status}: an error, not a refusal"),
                evidence,
            ),
        }
    }

    async fn distinct_keys(&self) -> Finding {
        let n = self.fresh();
        let body = self.options.body_for(n);
        let (one, two) = (self.key(n), format!("{}-other", self.key(n)));
        let first = self.send(&self.request(Some(&one), body.clone())).await;
        let second = self.send(&self.request(Some(&two), body)).await;
        let evidence = vec![
            format!("key {one}: {}", describe(&first)),
            format!("key {two}: {}", describe(&second)),
        ];
        let ids: Vec<Option<String>> = [&first, &second]
            .iter()
            .map(|a| {
                a.as_ref()
                    .ok()
                    .filter(|a| (200..300).contains(&a.status))
                    .and_then(|a| a.json())
                    .and_then(|b| id_of(&b, &self.options.id_pointer))
            })
            .collect();
        match (&ids[0], &ids[1]) {
            (Some(a), Some(b)) if a != b => {
                Finding::new(Verdict::Pass, "two keys, two ids", evidence)
            }
            (Some(_), Some(_)) => Finding::new(
                Verdict::Fail,
                "two keys got the same id: the server keys on the body, not the key",
                evidence,
            ),
            _ => Finding::new(
                Verdict::Fail,
                "a new key was not answered with a created resource",
                evidence,
            ),
        }
    }

    async fn rewritten_body(&self) -> Finding {
        let n = self.fresh();
        let key = self.key(n);
        let body = self.options.body_for(n);
        let Some(other_text) = rewritten(&body) else {
            return Finding::new(
                Verdict::Skipped,
                "the body is not a JSON object of two fields or more: nothing to reorder",
                vec![],
            );
        };
        let first = self.send(&self.request(Some(&key), body.clone())).await;
        let again = self
            .send(&self.request(Some(&key), other_text.clone()))
            .await;
        let evidence = vec![
            format!("first: {}", describe(&first)),
            format!("as {:?}: {}", excerpt(&other_text, 60), describe(&again)),
        ];
        let (Ok(first), Ok(again)) = (first, again) else {
            return Finding::new(Verdict::Fail, "a request got no answer", evidence);
        };
        if again.status == first.status && again.json() == first.json() {
            return Finding::new(
                Verdict::Pass,
                "replayed: the server compares requests, not bytes",
                evidence,
            );
        }
        match again.status {
            400..=499 => Finding::new(
                Verdict::Warn,
                format!(
                    "refused with {}: treats a reordered body as another request",
                    again.status
                ),
                evidence,
            ),
            200..=299 => Finding::new(
                Verdict::Fail,
                "accepted as a new request: a second effect",
                evidence,
            ),
            status => Finding::new(Verdict::Fail, format!("answered {status}"), evidence),
        }
    }

    /// Requests that must all be refused with a 4xx problem: fail on a success or
    /// an error, warn on a 4xx that is not `application/problem+json`.
    fn refusals(&self, cases: Vec<(String, Result<Answer, NoAnswer>)>, what: &str) -> Finding {
        let evidence: Vec<String> = cases
            .iter()
            .map(|(case, answer)| format!("{case}: {}", describe(answer)))
            .collect();
        let not_refused: Vec<&str> = cases
            .iter()
            .filter(|(_, a)| !matches!(a, Ok(a) if (400..500).contains(&a.status)))
            .map(|(case, _)| case.as_str())
            .collect();
        if !not_refused.is_empty() {
            return Finding::new(
                Verdict::Fail,
                format!("not refused with a 4xx: {}", not_refused.join(", ")),
                evidence,
            );
        }
        let not_problems: Vec<&str> = cases
            .iter()
            .filter(|(_, a)| !matches!(a, Ok(a) if a.media_type() == "application/problem+json"))
            .map(|(case, _)| case.as_str())
            .collect();
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
            format!("{what}: each refused with a 4xx problem"),
            evidence,
        )
    }

    async fn bad_keys(&self) -> Finding {
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
        self.refusals(cases, "missing, empty and too long keys")
    }

    async fn bad_bodies(&self) -> Finding {
        let n = self.fresh();
        let not_json = self
            .send(&self.request(Some(&self.key(n)), "this is not JSON"))
            .await;
        // A valid body padded with whitespace, which JSON allows: only its size is wrong.
        let mut big = self.options.body_for(n).into_bytes();
        big.resize(self.options.big_body_bytes, b' ');
        let big_key = format!("{}-big", self.key(n));
        let over_limit = self.send(&self.request(Some(&big_key), big)).await;
        let size = format!("over the limit ({} bytes)", self.options.big_body_bytes);
        self.refusals(
            vec![("not JSON".to_owned(), not_json), (size, over_limit)],
            "a body that is not JSON and one too large",
        )
    }

    async fn lost_answer(&self) -> Result<Finding, ProbeError> {
        let proxy = FaultyProxy::bind(self.target.addr).await.map_err(|e| {
            ProbeError::Options(format!("the fault proxy found no port on 127.0.0.1: {e}"))
        })?;
        let through_proxy = Target {
            addr: proxy.addr(),
            host: self.target.host.clone(),
        };
        let mut evidence = Vec::new();
        let mut failures = Vec::new();
        for (name, fault, patience) in [
            (
                "answer lost after the server answered",
                Fault::DropResponse,
                self.options.timeout,
            ),
            (
                "request lost before the server",
                Fault::DropRequest,
                self.options.timeout,
            ),
            (
                "answer held past the client's timeout",
                Fault::HoldResponseUntilClientGivesUp,
                LATE_ANSWER_PATIENCE,
            ),
        ] {
            let n = self.fresh();
            let key = self.key(n);
            let request = self.request(Some(&key), self.options.body_for(n));
            proxy.inject([fault]);
            let seen_before = proxy.exchanges().len();
            let lost = http::send(&through_proxy, &request, patience).await;
            let retry = self.send(&request).await;
            let server_saw = proxy.exchanges().get(seen_before).cloned();
            let lost_body: Option<Value> = server_saw
                .as_ref()
                .and_then(|e| e.server_body.as_deref())
                .and_then(|body| {
                    serde_json::from_str(body)
                        .ok()
                        .or_else(|| serde_json::from_slice(&http::dechunk(body.as_bytes())).ok())
                });
            let server_status = server_saw.as_ref().and_then(|e| e.server_status);
            evidence.push(format!(
                "{name}: client saw {}; the server had answered {}; retry: {}",
                match &lost {
                    Ok(a) => a.status.to_string(),
                    Err(e) => e.to_string(),
                },
                server_status.map_or("nothing".to_owned(), |s| s.to_string()),
                describe(&retry)
            ));
            let Ok(retry) = retry else {
                failures.push(format!("{name}: the retry got no answer"));
                continue;
            };
            if !(200..300).contains(&retry.status) {
                failures.push(format!("{name}: the retry got {}", retry.status));
            } else if fault != Fault::DropRequest
                && (server_status != Some(retry.status) || lost_body != retry.json())
            {
                failures.push(format!("{name}: the retry did not get the lost answer"));
            }
        }
        Ok(if failures.is_empty() {
            Finding::new(
                Verdict::Pass,
                "each retry with the same key got the answer the client missed",
                evidence,
            )
        } else {
            Finding::new(Verdict::Fail, failures.join("; "), evidence)
        })
    }

    async fn hang(&self) -> Finding {
        let mut evidence = Vec::new();
        let mut stuck = Vec::new();
        let mut errors = 0;
        for &size in &self.options.hang_bursts {
            let n = self.fresh();
            let key = self.key(n);
            let request = self.request(Some(&key), self.options.body_for(n));
            let started = Instant::now();
            let answers =
                http::send_together(&self.target, vec![request; size], self.options.timeout).await;
            let answered = answers.iter().filter(|a| a.is_ok()).count();
            errors += answers
                .iter()
                .filter(|a| matches!(a, Ok(a) if a.status >= 500))
                .count();
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
        if errors > 0 {
            return Finding::new(
                Verdict::Warn,
                format!(
                    "every request answered, but {errors} with a 5xx: the server gave up on them"
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_body_has_its_fields_in_another_order_and_other_spacing() {
        let body = r#"{"orderId": 7, "amount": 100}"#;
        let text = rewritten(body).expect("an object of two fields");
        assert_eq!(text, "{\n  \"amount\" :  100 ,\n  \"orderId\" :  7\n}\n");
        assert_eq!(
            serde_json::from_str::<Value>(&text).ok(),
            serde_json::from_str::<Value>(body).ok()
        );
    }

    #[test]
    fn a_body_already_in_sorted_order_is_reversed() {
        let text = rewritten(r#"{"amount":1,"orderId":2}"#).expect("an object");
        assert!(text.find("orderId") < text.find("amount"), "{text}");
    }

    #[test]
    fn check_names_parse_back() {
        for id in CheckId::ALL {
            assert_eq!(id.as_str().parse::<CheckId>(), Ok(id));
        }
        assert!("nope".parse::<CheckId>().is_err());
    }
}
