//! Known wrong: the model answer's layer, which waits for the route for as long
//! as it runs. The lease says when a duplicate may take the key over; nothing
//! ends the route's time at the lease, so a slow route and the duplicate's run
//! of it both make their effect.

pub use stage12_answer::*;
include!("../../stage12-layer.rs");

// ANCHOR: no_lease_deadline
pub async fn answer_within(
    _deadline: tokio::time::Instant,
    route: Route,
    request: axum::extract::Request,
) -> Result<(axum::http::response::Parts, axum::body::Bytes), axum::response::Response> {
    // The mistake: no deadline.
    let (head, body) = run_route(route, request).await.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(body) => Ok((head, body)),
        Err(e) => Err(internal_error("reading the route's answer", &e)),
    }
}
// ANCHOR_END: no_lease_deadline
