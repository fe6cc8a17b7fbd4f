//! Runs built test executables ahead of the checks that read them, a few at once.
//!
//! `verify` reads about eighty package runs in a fixed order, one after the other.
//! Most of a run is waiting: on PostgreSQL, on a lock a test holds on purpose, on
//! a bound a known-wrong package must wait out. Those waits do not add up when the
//! runs overlap, so verify queues every run it will read, in the order it reads
//! them, and a few threads work through the queue while verify builds what is left
//! and reads the runs that are done. Each run is the same as if it ran alone: its
//! own test process, its own observations file, its own databases on the shared
//! server.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::cargo::{Build, Executable, Targets};
use crate::error::Error;
use crate::run::{PackageRun, run_built};
use crate::state::State;
use crate::ui::Spinner;

/// Which run: what `Targets::Test` or `Targets::Package` names, owned.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RunOf {
    Test { package: String, target: String },
    Package(String),
}

impl RunOf {
    pub fn of(targets: Targets<'_>) -> Option<Self> {
        match targets {
            Targets::Test { package, target } => Some(Self::Test {
                package: package.to_owned(),
                target: target.to_owned(),
            }),
            Targets::Package(package) => Some(Self::Package(package.to_owned())),
            Targets::Default | Targets::WorkspaceExcept(_) => None,
        }
    }

    fn targets(&self) -> Targets<'_> {
        match self {
            Self::Test { package, target } => Targets::Test { package, target },
            Self::Package(package) => Targets::Package(package),
        }
    }
}

/// One queued run: what to run, with the executables the workspace build made.
struct Job {
    run: RunOf,
    executables: Vec<Executable>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Job>,
    /// Queued or running: `take` waits for these.
    pending: Vec<RunOf>,
    done: HashMap<RunOf, Result<PackageRun, Error>>,
}

/// The runs under way. Dropping it stops taking new jobs and waits for the
/// running ones (each is bounded by verify's timeout).
pub struct Ahead {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    workers: Vec<JoinHandle<()>>,
}

impl Ahead {
    /// Starts `jobs` threads on `runs`, taken in the order given.
    pub fn start(
        jobs: usize,
        runs: Vec<RunOf>,
        build: &Build,
        state: &State,
        bound: Duration,
    ) -> Self {
        let mut queue = Queue::default();
        for run in runs {
            let executables = build.executables_of(run.targets());
            if executables.is_empty() || queue.pending.contains(&run) {
                continue;
            }
            queue.pending.push(run.clone());
            queue.waiting.push(Job { run, executables });
        }
        // Taken from the end: reversed, the first given runs first.
        queue.waiting.reverse();
        let queue = Arc::new((Mutex::new(queue), Condvar::new()));
        let workers = (0..jobs.max(1))
            .map(|_| {
                let queue = Arc::clone(&queue);
                let build = build.clone();
                let state = state.clone();
                std::thread::spawn(move || work(&queue, &build, &state, bound))
            })
            .collect();
        Self { queue, workers }
    }

    /// The run of `targets`, waiting for it if it is queued or running; `None`
    /// when it was never queued (the caller runs it itself).
    pub fn take(&self, targets: Targets<'_>) -> Option<Result<PackageRun, Error>> {
        let run = RunOf::of(targets)?;
        let (lock, changed) = &*self.queue;
        let mut queue = lock.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(result) = queue.done.remove(&run) {
                queue.pending.retain(|p| p != &run);
                return Some(result);
            }
            if !queue.pending.contains(&run) {
                return None;
            }
            queue = changed.wait(queue).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        let (lock, changed) = &*self.queue;
        lock.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .waiting
            .clear();
        changed.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

fn work(queue: &(Mutex<Queue>, Condvar), build: &Build, state: &State, bound: Duration) {
    let (lock, changed) = queue;
    loop {
        let Some(job) = lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .waiting
            .pop()
        else {
            return;
        };
        let result = run_one(&job, build, state, bound);
        lock.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .done
            .insert(job.run, result);
        changed.notify_all();
    }
}

fn run_one(job: &Job, build: &Build, state: &State, bound: Duration) -> Result<PackageRun, Error> {
    let file = state.run_file("verify")?;
    // Nothing is drawn from here: verify's own spinner says what it waits for.
    let mut quiet = Spinner::quiet();
    let targets = job.run.targets();
    run_built(
        build.clone(),
        targets.command(),
        &job.executables,
        file.path(),
        bound,
        &mut quiet,
        &targets.command(),
    )
}
