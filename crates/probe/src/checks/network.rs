//! The network: an answer lost after the server answered, a request lost
//! before it, and an answer held past the client's patience, each through
//! [`fault_proxy`], then retried with the same key.

use std::time::Duration;

use fault_proxy::{Fault, FaultyProxy};
use serde_json::Value;

use super::{Finding, Probe, describe, seen};
use crate::error::ProbeError;
use crate::http::{self, Target};
use crate::outcome::{Role, Verdict};
use crate::words::{ClientSaw, Fault as Lost, Said, ServerSaw};

/// The client's patience in the "late answer" scenario: the proxy holds the answer past it.
const LATE_ANSWER_PATIENCE: Duration = Duration::from_millis(300);

impl Probe<'_> {
    pub(super) async fn lost_answer(&self) -> Result<Finding, ProbeError> {
        // In front of one instance; the retries go round the others.
        let behind = self.target().clone();
        let proxy = FaultyProxy::bind(behind.addr).await.map_err(|e| {
            ProbeError::Options(crate::words::mistake(
                "probe-mistake-no-proxy-port",
                &[("error", l10n::Arg::from(e.to_string()))],
            ))
        })?;
        let through_proxy = Target {
            addr: proxy.addr(),
            ..behind
        };
        let mut evidence = Vec::new();
        let mut failures = Vec::new();
        let mut answers = Vec::new();
        for (name, fault, patience, role) in [
            (
                Lost::AnswerLost,
                Fault::DropResponse,
                self.options.timeout,
                Role::AnswerLostRetry,
            ),
            (
                Lost::RequestLost,
                Fault::DropRequest,
                self.options.timeout,
                Role::RequestLostRetry,
            ),
            (
                Lost::AnswerLate,
                Fault::HoldResponseUntilClientGivesUp,
                LATE_ANSWER_PATIENCE,
                Role::AnswerLateRetry,
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
            answers.push(seen(role, &retry));
            evidence.push(Said::LostExchange {
                fault: name,
                client: match &lost {
                    Ok(a) => ClientSaw::Status(a.status),
                    Err(e) => ClientSaw::NoAnswer(e.clone()),
                },
                server: ServerSaw(server_status),
                retry: describe(&retry),
            });
            let Ok(retry) = retry else {
                failures.push(Said::LostRetryUnanswered { fault: name });
                continue;
            };
            if !(200..300).contains(&retry.status) {
                failures.push(Said::LostRetryGot {
                    fault: name,
                    status: retry.status,
                });
            } else if fault != Fault::DropRequest
                && (server_status != Some(retry.status) || lost_body != retry.json())
            {
                failures.push(Said::LostRetryDiffers { fault: name });
            }
        }
        let finding = if failures.is_empty() {
            Finding::new(Verdict::Pass, Said::LostAnswersReplayed, evidence)
        } else {
            Finding::because(Verdict::Fail, failures, evidence)
        };
        Ok(finding.seen(answers))
    }
}
