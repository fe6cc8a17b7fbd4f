//! The load: a fixed number of requests from a fixed number of HTTP clients.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::error::BenchError;

/// Where the load goes: a route's URL and the body every request carries (our
/// routes' `{"order_id": 1, "amount": 100}`, the article's `{"pedidoId": 1, "valor": 100}`).
#[derive(Debug, Clone)]
pub struct Target {
    pub url: String,
    pub body: String,
}

/// Which key each request carries.
#[derive(Debug, Clone, Copy)]
pub enum Keys {
    /// No `Idempotency-Key` header (the plain route).
    None,
    /// A new key per request: every request pays.
    Distinct,
    /// One key for all, paid before the clock starts: every timed request replays.
    Hot,
}

/// Sends `requests` requests from `clients` clients; returns requests per second.
/// Every answer must be a success: a failure stops the bench with its reason.
pub async fn load(
    target: &Target,
    keys: Keys,
    tag: String,
    requests: usize,
    clients: usize,
) -> Result<f64, BenchError> {
    let url = target.url.clone();
    let next = Arc::new(AtomicUsize::new(0));
    let tag = Arc::new(tag);
    let body = target.body.clone();
    if let Keys::Hot = keys {
        // The key is paid before the clock starts: every timed request is a
        // replay, and none is told 409 for arriving while the first one is still
        // in flight (on a busy machine that first one can outlast the bound).
        let paid = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("idempotency-key", tag.as_str())
            .body(body.clone())
            .send()
            .await?;
        succeeded(paid, &url, "the hot key's first request").await?;
    }
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (next, tag, url, body) = (next.clone(), tag.clone(), url.clone(), body.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= requests {
                        return Ok::<(), BenchError>(());
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
                    succeeded(request.send().await?, &url, &format!("request {i}")).await?;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.map_err(BenchError::Task)??;
    }
    Ok(requests as f64 / started.elapsed().as_secs_f64())
}

/// A failure stops the bench, with what the route answered.
async fn succeeded(response: reqwest::Response, url: &str, which: &str) -> Result<(), BenchError> {
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let text = response.text().await.unwrap_or_default();
    Err(BenchError::Refused(format!(
        "{url}: {which}: {status} {text}"
    )))
}
