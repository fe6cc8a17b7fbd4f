//! The tower plumbing of [`IdempotencyLayer`]: a `Layer` that wraps a route in an
//! [`Idempotent`] service, whose every request goes through a handler function
//! (`routes::handle`, handed to it by `routes::idempotency_layer`). What the
//! layer does with a request is in `idempotency.rs`; this file only connects it to
//! tower and axum, and depends on nothing else of the crate.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::response::Response;
use sqlx::PgPool;
use tokio::sync::Notify;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service, ServiceExt};

/// The route a layer wraps, boxed: any axum handler or service that answers a
/// request with a response and never fails (axum's routes are all like that).
pub type Route = BoxCloneSyncService<Request, Response, Infallible>;

/// A boxed future, for the handler function's result.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What the layer does with one request: given its state, the route it wraps and
/// the request, the response to send.
pub type Handle = fn(LayerState, Route, Request) -> BoxFuture<Response>;

/// How the layer waits, buffers and is tested.
#[derive(Debug, Clone)]
pub struct Config {
    /// How long a request owns its key: the layer waits this long for the route,
    /// counted from the reservation, then stops waiting and answers that the
    /// outcome is unknown (and keeps that answer). A reservation older than this,
    /// still without an answer, is taken to belong to a request that died, and the
    /// next request with its key takes it over. Longer than any route should run.
    pub lease: Duration,
    /// The largest request body the layer reads (it must read the whole body to
    /// fingerprint it): a larger one is refused with 413 before anything runs.
    pub max_body_bytes: usize,
    /// The largest answer the layer keeps for replay. A larger one is still sent
    /// (the effect is done, the answer is true), and the key is kept as answered
    /// without a body: its retries are told that the answer cannot be replayed.
    pub max_answer_bytes: usize,
    /// Where a test stops a request: after the route returned, before the layer
    /// stores its answer. `None` in production.
    pub after_route: Option<CrashPoint>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(60),
            max_body_bytes: 64 * 1024,
            max_answer_bytes: 64 * 1024,
            after_route: None,
        }
    }
}

impl Config {
    /// `lease` as a PostgreSQL interval.
    pub fn lease_interval(&self) -> String {
        format!("{} milliseconds", self.lease.as_millis())
    }
}

// ANCHOR: lease
/// The fencing token of a reservation: the `lease` number of the key's row when
/// this request reserved it or took it over. Every later write of the request
/// names it, and changes nothing once another request has taken the key over
/// (the row's number has moved on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease(pub i64);
// ANCHOR_END: lease

// ANCHOR: nothing_done
/// What a route says, in its answer's extensions, when it knows that it did
/// nothing: it refused the request before acting (a body that fails
/// validation), or its statement was refused by PostgreSQL (an ERROR rolls it
/// back) or never sent. The layer then frees the key, so a retry runs the route
/// again, where it would otherwise keep the answer. A route that cannot tell (its
/// connection failed mid-statement) must not say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NothingDone;
// ANCHOR_END: nothing_done

/// What every request handled by the layer shares.
#[derive(Debug, Clone)]
pub struct LayerState {
    pub pool: PgPool,
    pub config: Config,
}

// ANCHOR: layer
/// Gives the routes it wraps idempotency: `post(route).route_layer(idempotency.clone())`.
#[derive(Clone)]
pub struct IdempotencyLayer {
    state: LayerState,
    handle: Handle,
}

impl IdempotencyLayer {
    /// A layer whose requests go through `handle`: the stage's own
    /// (`routes::idempotency_layer`), or a known-wrong variant's.
    pub fn with_handle(pool: PgPool, config: Config, handle: Handle) -> Self {
        Self {
            state: LayerState { pool, config },
            handle,
        }
    }
}

impl<S> Layer<S> for IdempotencyLayer
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + Sync + 'static,
    S::Future: Send + 'static,
{
    type Service = Idempotent;

    fn layer(&self, route: S) -> Idempotent {
        Idempotent {
            state: self.state.clone(),
            handle: self.handle,
            route: BoxCloneSyncService::new(route),
        }
    }
}

/// A route wrapped by [`IdempotencyLayer`].
#[derive(Clone)]
pub struct Idempotent {
    state: LayerState,
    handle: Handle,
    route: Route,
}

impl Service<Request> for Idempotent {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Always ready: the route is made ready when it is called (`run_route`).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let answer = (self.handle)(self.state.clone(), self.route.clone(), request);
        Box::pin(async move { Ok(answer.await) })
    }
}
// ANCHOR_END: layer

/// Runs the wrapped route on `request`: its response.
pub async fn run_route(route: Route, request: Request) -> Response {
    match route.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

// ANCHOR: crash_point
/// A point where a test stops a request: the first request to reach it stops
/// there until the test resumes it (a request slower than its lease), or for good
/// (the test then drops it, as a crash would); every later request passes.
#[derive(Debug, Clone)]
pub struct CrashPoint(Arc<CrashPointState>);

#[derive(Debug)]
struct CrashPointState {
    armed: AtomicBool,
    reached: Notify,
    resumed: Notify,
}

impl CrashPoint {
    /// A crash point that stops the next request to reach it.
    pub fn armed() -> Self {
        Self(Arc::new(CrashPointState {
            armed: AtomicBool::new(true),
            reached: Notify::new(),
            resumed: Notify::new(),
        }))
    }

    /// Called where the crash may happen: the first request waits here until
    /// `resume` (forever, if the test drops it instead).
    pub async fn pass(&self) {
        if self.0.armed.swap(false, Ordering::SeqCst) {
            self.0.reached.notify_one();
            self.0.resumed.notified().await;
        }
    }

    /// Returns once a request has stopped at this point.
    pub async fn reached(&self) {
        self.0.reached.notified().await;
    }

    /// Lets the request stopped at this point go on.
    pub fn resume(&self) {
        self.0.resumed.notify_one();
    }
}
// ANCHOR_END: crash_point
