//! The load: a fixed number of requests from a fixed number of HTTP clients.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use payment_model::PaymentRequest;

use crate::BenchError;

/// Which key each request carries.
#[derive(Debug, Clone, Copy)]
pub enum Keys {
    /// No `Idempotency-Key` header (the plain route).
    None,
    /// A new key per request: every request pays.
    Distinct,
    /// One key for all: the first pays, the others replay.
    Hot,
}

/// Sends `requests` requests from `clients` clients; returns requests per second.
/// Every answer must be a success: a failure stops the bench with its reason.
pub async fn load(
    route: SocketAddr,
    keys: Keys,
    tag: String,
    requests: usize,
    clients: usize,
) -> Result<f64, BenchError> {
    let url = format!("http://{route}/payments");
    let next = Arc::new(AtomicUsize::new(0));
    let tag = Arc::new(tag);
    let body = PaymentRequest {
        order_id: 1,
        amount: 100,
    }
    .to_body();
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (next, tag, url, body) = (next.clone(), tag.clone(), url.clone(), body.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= requests {
                        return Ok(());
                    }
                    let mut request = http
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body.clone());
                    match keys {
                        Keys::None => {}
                        Keys::Distinct => {
                            request = request.header("idempotency-key", format!("{tag}-{i}"))
                        }
                        Keys::Hot => request = request.header("idempotency-key", tag.as_str()),
                    }
                    let response = request.send().await?;
                    if !response.status().is_success() {
                        let status = response.status();
                        let text = response.text().await.unwrap_or_default();
                        return Err(BenchError::Refused(format!(
                            "{url}: request {i}: {status} {text}"
                        )));
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker
            .await
            .map_err(|e| BenchError::Task(e.to_string()))??;
    }
    Ok(requests as f64 / started.elapsed().as_secs_f64())
}
