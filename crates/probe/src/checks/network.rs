//! The network: an answer lost after the server answered, a request lost
//! before it, and an answer held past the client's patience, each through
//! [`fault_proxy`], then retried with the same key.

use std::time::Duration;

use fault_proxy::{Fault, FaultyProxy};
use serde_json::Value;

use super::{Finding, Probe, describe};
use crate::http::{self, Target};
use crate::{ProbeError, Verdict};

/// The client's patience in the "late answer" scenario: the proxy holds the answer past it.
const LATE_ANSWER_PATIENCE: Duration = Duration::from_millis(300);

impl Probe<'_> {
    pub(super) async fn lost_answer(&self) -> Result<Finding, ProbeError> {
        // In front of one instance; the retries go round the others.
        let behind = self.target().clone();
        let proxy = FaultyProxy::bind(behind.addr).await.map_err(|e| {
            ProbeError::Options(format!("the fault proxy found no port on 127.0.0.1: {e}"))
        })?;
        let through_proxy = Target {
            addr: proxy.addr(),
            ..behind
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
}
