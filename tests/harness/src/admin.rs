//! The connections that create and drop the test databases, open for the whole
//! test process on a thread of their own.
//!
//! Every test creates a database and drops it. With a connection of its own for
//! each, that was two server process starts per test (a connection costs one:
//! 2 to 4 ms here, more on a busy machine). A test's runtime ends with its test,
//! and a connection cannot outlive the runtime that opened it, so these live on a
//! runtime of their own, which the tests send their statements to.

use std::sync::OnceLock;
use std::sync::mpsc as blocking;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Executor, PgConnection};
use tokio::sync::{mpsc, oneshot};

/// As many as the tests that create their databases at once (the runner runs
/// four at a time), so that none waits for another's connection.
const CONNECTIONS: u32 = 4;

/// What the tests ask of the server.
pub(crate) enum Statement {
    /// `CREATE DATABASE name TEMPLATE template`.
    Create { name: String, template: String },
    /// `DROP DATABASE name`, ending the sessions a failed test left open.
    Drop { name: String },
}

type Done = Result<(), sqlx::Error>;

enum Reply {
    /// To a test's async code.
    Awaited(oneshot::Sender<Done>),
    /// To a `Drop`, which cannot await.
    Blocking(blocking::Sender<Done>),
}

struct Job {
    statement: Statement,
    reply: Reply,
}

pub(crate) struct Admin {
    jobs: mpsc::UnboundedSender<Job>,
}

impl Admin {
    /// The admin connections of this process's server (`options`, the
    /// maintenance database), started on first use.
    pub(crate) fn of(options: &PgConnectOptions) -> &'static Admin {
        static ADMIN: OnceLock<Admin> = OnceLock::new();
        ADMIN.get_or_init(|| {
            let (jobs, queue) = mpsc::unbounded_channel();
            let options = options.clone();
            std::thread::spawn(move || serve(options, queue));
            Admin { jobs }
        })
    }

    pub(crate) async fn run(&self, statement: Statement) -> Done {
        let (reply, done) = oneshot::channel();
        self.send(statement, Reply::Awaited(reply))?;
        done.await.unwrap_or(Err(sqlx::Error::PoolClosed))
    }

    /// [`Admin::run`], for code that is not async: waits for the answer.
    pub(crate) fn run_blocking(&self, statement: Statement) -> Done {
        let (reply, done) = blocking::channel();
        self.send(statement, Reply::Blocking(reply))?;
        done.recv().unwrap_or(Err(sqlx::Error::PoolClosed))
    }

    fn send(&self, statement: Statement, reply: Reply) -> Done {
        // The thread is gone only when it could not start its runtime.
        self.jobs
            .send(Job { statement, reply })
            .map_err(|_| sqlx::Error::PoolClosed)
    }
}

fn serve(options: PgConnectOptions, mut queue: mpsc::UnboundedReceiver<Job>) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    runtime.block_on(async move {
        // Opened as needed and kept; the pool replaces a connection that broke.
        let pool = PgPoolOptions::new()
            .max_connections(CONNECTIONS)
            .idle_timeout(None)
            .connect_lazy_with(options);
        while let Some(job) = queue.recv().await {
            let pool = pool.clone();
            tokio::spawn(async move {
                let done = execute(&pool, job.statement).await;
                match job.reply {
                    Reply::Awaited(reply) => {
                        let _ = reply.send(done);
                    }
                    Reply::Blocking(reply) => {
                        let _ = reply.send(done);
                    }
                }
            });
        }
    });
}

async fn execute(pool: &PgPool, statement: Statement) -> Done {
    let mut conn = pool.acquire().await?;
    match statement {
        Statement::Create { name, template } => {
            let strategy = copy_strategy(&conn);
            let create = format!("CREATE DATABASE {name} TEMPLATE {template}{strategy}");
            conn.execute(AssertSqlSafe(create)).await.map(|_| ())
        }
        Statement::Drop { name } => {
            postgres_provisioning::drop_database(&mut conn, &name).await;
            Ok(())
        }
    }
}

/// How `CREATE DATABASE` copies its template. PostgreSQL 15 copies it block by
/// block through the WAL by default; copying its few small files is faster for
/// the small templates here (median 15 to 26 ms instead of 22 to 34 ms per
/// create, five interleaved runs of `just bench-harness` on a busy machine; the
/// template itself, from template1: first database 116 ms instead of 204, median
/// of six).
pub(crate) fn copy_strategy(admin: &PgConnection) -> &'static str {
    match admin.server_version_num() {
        Some(version) if version >= 150_000 => " STRATEGY FILE_COPY",
        _ => "",
    }
}
