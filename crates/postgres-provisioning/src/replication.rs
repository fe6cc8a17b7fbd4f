//! A primary and its streaming standby, both real PostgreSQL servers from the local
//! binaries: the servers stage 13's tests cut, crash and promote.
//!
//! - Each is a [`LocalCluster`]: a copy of the cached, initialised data directory
//!   (`initdb` runs once per version), in memory when it can be, run as `postgres`
//!   when we are root, with its own supervisor. Both are gone after a pass, a
//!   failure, a panic or `kill -9` of the process, crashed or promoted or not.
//! - The standby is a second copy of the same data directory, cleanly shut down,
//!   with `standby.signal`: it has the primary's system identifier and starts at the
//!   primary's first WAL position, so no base backup is taken. A copy in memory
//!   costs tens of milliseconds, and runs while the primary's does;
//!   `pg_basebackup` would need the primary running first, and a checkpoint. The primary keeps `wal_keep_size` of WAL, so the
//!   standby always finds the segments it streams from.
//! - The standby streams from the primary's socket directory as
//!   `application_name = standby1` ([`STANDBY_NAME`]), the name
//!   `synchronous_standby_names` gives it. Both servers start at once; the
//!   standby's `primary_conninfo` is then set with `ALTER SYSTEM` and a reload,
//!   as cutting and restoring the stream are.
//! - Every operation waits for a server state or a WAL position, never for a set
//!   time, and gives up after [`OPERATION_BOUND`] with what it saw last.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, Executor, PgConnection, Row};

use crate::error::LocalError;
use crate::local::{ClusterSettings, LocalCluster};

/// The standby's `application_name`: the name `synchronous_standby_names` gives it,
/// e.g. `synchronous_standby_names = 'FIRST 1 (standby1)'`.
pub const STANDBY_NAME: &str = "standby1";

/// How long one operation may wait for the servers: a start, a stream that stops,
/// a promotion, a standby that catches up. Each takes tens of milliseconds here;
/// only a fault (or a machine stalled for seconds) reaches the bound.
pub const OPERATION_BOUND: Duration = Duration::from_secs(15);

/// How often a wait looks at the servers again.
const LOOK_EVERY: Duration = Duration::from_millis(5);

/// Settings every primary of a pair gets, before the caller's (which win).
const PRIMARY_DEFAULTS: &[(&str, &str)] = &[
    // The segments the standby streams from stay until it has them, even when a
    // checkpoint comes first (1 MB segments: see local.rs).
    ("wal_keep_size", "32MB"),
];

/// Which of the two servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    Primary,
    Standby,
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Server::Primary => "the primary",
            Server::Standby => "the standby",
        })
    }
}

/// A position in the write-ahead log (PostgreSQL's `pg_lsn`): bytes since its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

impl fmt::Display for Lsn {
    /// As PostgreSQL prints it: `0/3000148`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }
}

impl Lsn {
    fn read(value: Option<i64>) -> Option<Lsn> {
        value.and_then(|v| u64::try_from(v).ok()).map(Lsn)
    }
}

/// What the primary says of one standby (a row of `pg_stat_replication`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalSender {
    pub application_name: String,
    /// `startup`, `catchup`, `streaming`, ...
    pub state: String,
    /// `async`, `potential`, `sync` or `quorum`.
    pub sync_state: String,
    /// The last WAL position sent, written, flushed and replayed by the standby.
    pub sent: Option<Lsn>,
    pub written: Option<Lsn>,
    pub flushed: Option<Lsn>,
    pub replayed: Option<Lsn>,
}

/// The primary's side of replication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimaryState {
    /// `pg_current_wal_lsn()`: where the primary has written its WAL to.
    pub written: Lsn,
    /// `pg_current_wal_flush_lsn()`: what is on its disk; every commit that returned
    /// (with `synchronous_commit` not `off`) is at or before it.
    pub flushed: Lsn,
    /// The standbys streaming from it.
    pub standbys: Vec<WalSender>,
    /// Sessions whose COMMIT waits for a standby (`wait_event = 'SyncRep'`).
    pub commits_waiting: i64,
}

/// The standby's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandbyState {
    /// Still a standby (false once promoted).
    pub in_recovery: bool,
    /// `pg_last_wal_receive_lsn()`: received from the primary and flushed.
    pub received: Option<Lsn>,
    /// `pg_last_wal_replay_lsn()`: applied, and visible to its queries.
    pub replayed: Option<Lsn>,
    /// Its WAL receiver is streaming from the primary.
    pub streaming: bool,
    /// Replay is paused (`pg_wal_replay_pause()`).
    pub replay_paused: bool,
}

impl fmt::Display for PrimaryState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "primary at {} (flushed {})", self.written, self.flushed)?;
        for s in &self.standbys {
            let at = |lsn: Option<Lsn>| lsn.map(|l| l.to_string()).unwrap_or("-".to_owned());
            write!(
                f,
                "; {} {} {}: sent {}, flushed {}, replayed {}",
                s.application_name,
                s.state,
                s.sync_state,
                at(s.sent),
                at(s.flushed),
                at(s.replayed)
            )?;
        }
        if self.standbys.is_empty() {
            f.write_str("; no standby streaming")?;
        }
        write!(
            f,
            "; {} commit(s) waiting for a standby",
            self.commits_waiting
        )
    }
}

impl fmt::Display for StandbyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |lsn: Option<Lsn>| lsn.map(|l| l.to_string()).unwrap_or("-".to_owned());
        write!(
            f,
            "{}: received {}, replayed {}{}{}",
            if self.in_recovery {
                "standby"
            } else {
                "promoted"
            },
            at(self.received),
            at(self.replayed),
            if self.streaming {
                ", streaming"
            } else {
                ", not streaming"
            },
            if self.replay_paused {
                ", replay paused"
            } else {
                ""
            }
        )
    }
}

/// Why a pair could not be started, or an operation on it failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplicationError {
    #[error("could not start {server}: {source}")]
    Start { server: Server, source: LocalError },
    #[error("cannot connect to {server}: {source}")]
    Connect { server: Server, source: sqlx::Error },
    #[error("{server}: {doing} failed: {source}")]
    Query {
        server: Server,
        doing: &'static str,
        source: sqlx::Error,
    },
    #[error("waited {} s for {what}, in vain; last seen: {last_seen}", .bound.as_secs())]
    TimedOut {
        what: &'static str,
        bound: Duration,
        last_seen: String,
    },
    #[error("cannot read the primary's process id in {}: {source}", .path.display())]
    NoPid {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} does not start with a process id: {text:?}", .path.display())]
    BadPid { path: PathBuf, text: String },
    #[error("could not send SIGQUIT to the primary's postmaster (pid {pid}): {source}")]
    Signal { pid: i32, source: std::io::Error },
    #[error("the standby refused to be promoted: pg_promote() returned false")]
    NotPromoted,
}

/// A primary and its streaming standby, each stopped and deleted when this is
/// dropped (also while a panic unwinds; at exit; by its supervisor if the process
/// is killed).
pub struct StandbyPair {
    pub primary: LocalCluster,
    pub standby: LocalCluster,
    /// One line for humans: which PostgreSQL, where, and how long the pair took.
    pub description: String,
    /// The standby's `primary_conninfo` while it streams.
    conninfo: String,
}

impl StandbyPair {
    /// Starts a primary with `primary_settings` (`name = value`, as in
    /// `postgresql.conf`; see [`ClusterSettings::server_settings`]), then its
    /// standby, and returns once the standby streams from it.
    pub async fn start(
        primary_settings: Vec<(String, String)>,
    ) -> Result<StandbyPair, ReplicationError> {
        let started = Instant::now();
        let mut server_settings: Vec<(String, String)> = PRIMARY_DEFAULTS
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        server_settings.extend(primary_settings);
        // Both start at once: the standby starts with no primary to stream from,
        // which it is told once both run (a copy and a start each take about as
        // long as the other).
        let (primary, standby) = tokio::join!(
            LocalCluster::start(ClusterSettings {
                server_settings,
                ..ClusterSettings::default()
            }),
            LocalCluster::start_prepared(ClusterSettings::default(), &write_standby_files)
        );
        let primary = primary.map_err(|source| ReplicationError::Start {
            server: Server::Primary,
            source,
        })?;
        let standby = standby.map_err(|source| ReplicationError::Start {
            server: Server::Standby,
            source,
        })?;
        let conninfo = format!(
            "host={} port=5432 user=postgres application_name={STANDBY_NAME}",
            primary.run_dir.display()
        );
        let mut pair = StandbyPair {
            description: String::new(),
            primary,
            standby,
            conninfo,
        };
        pair.restore_stream().await?;
        // The primary's own description (where it comes from, how long it took to
        // start), then how long the pair took to stream.
        pair.description = l10n::t!(
            crate::messages::MESSAGES,
            "described-standby-pair",
            primary = pair.primary.backend.description.as_str(),
            seconds = crate::messages::seconds(started.elapsed().as_secs_f64())
        );
        Ok(pair)
    }

    /// How to connect to `server`'s maintenance database (`postgres`).
    pub fn options(&self, server: Server) -> &PgConnectOptions {
        match server {
            Server::Primary => &self.primary.backend.admin,
            Server::Standby => &self.standby.backend.admin,
        }
    }

    /// A connection of its own to `server`, bounded.
    pub async fn connect(&self, server: Server) -> Result<PgConnection, ReplicationError> {
        let connecting = PgConnection::connect_with(self.options(server));
        match tokio::time::timeout(OPERATION_BOUND, connecting).await {
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(source)) => Err(ReplicationError::Connect { server, source }),
            Err(_) => Err(ReplicationError::Connect {
                server,
                source: sqlx::Error::PoolTimedOut,
            }),
        }
    }

    /// The primary's side of replication now.
    pub async fn primary_state(&self) -> Result<PrimaryState, ReplicationError> {
        let mut conn = self.connect(Server::Primary).await?;
        let state = read_primary(&mut conn).await;
        let _ = conn.close().await;
        state
    }

    /// The standby's side of replication now.
    pub async fn standby_state(&self) -> Result<StandbyState, ReplicationError> {
        let mut conn = self.connect(Server::Standby).await?;
        let state = read_standby(&mut conn).await;
        let _ = conn.close().await;
        state
    }

    /// Stops the standby's WAL receiver: `primary_conninfo = ''` and a reload
    /// (PostgreSQL 13 and later apply it without a restart). Returns once the
    /// primary has no WAL sender for it and the standby no receiver. The primary
    /// must be running.
    pub async fn cut_stream(&self) -> Result<(), ReplicationError> {
        self.set_primary_conninfo("").await?;
        let mut primary = self.connect(Server::Primary).await?;
        let mut standby = self.connect(Server::Standby).await?;
        let cut = until("the stream to the standby to stop", async || {
            let sent = read_primary(&mut primary).await?;
            let got = read_standby(&mut standby).await?;
            let sender = sent
                .standbys
                .iter()
                .any(|s| s.application_name == STANDBY_NAME);
            Ok(if sender || got.streaming {
                Err(format!("{sent}; {got}"))
            } else {
                Ok(())
            })
        })
        .await;
        let _ = primary.close().await;
        let _ = standby.close().await;
        cut
    }

    /// Starts the standby's WAL receiver again, and returns once it streams.
    pub async fn restore_stream(&self) -> Result<(), ReplicationError> {
        self.set_primary_conninfo(&self.conninfo).await?;
        self.until_streaming("the standby to stream from the primary")
            .await
    }

    /// `ALTER SYSTEM SET primary_conninfo` on the standby, and a reload.
    async fn set_primary_conninfo(&self, conninfo: &str) -> Result<(), ReplicationError> {
        let mut standby = self.connect(Server::Standby).await?;
        // ALTER SYSTEM takes no parameter: the value is a quoted literal.
        let set = format!(
            "ALTER SYSTEM SET primary_conninfo = '{}'",
            conninfo.replace('\'', "''")
        );
        let done = match standby.execute(sqlx::AssertSqlSafe(set)).await {
            Ok(_) => standby
                .execute("SELECT pg_reload_conf()")
                .await
                .map_err(|source| ReplicationError::Query {
                    server: Server::Standby,
                    doing: "pg_reload_conf()",
                    source,
                }),
            Err(source) => Err(ReplicationError::Query {
                server: Server::Standby,
                doing: "ALTER SYSTEM SET primary_conninfo",
                source,
            }),
        };
        let _ = standby.close().await;
        done.map(|_| ())
    }

    /// Crashes the primary as `pg_ctl stop -m immediate` does: SIGQUIT to its
    /// postmaster, which ends every server process at once, without a checkpoint
    /// and without sending the WAL its standby has not received yet (a smart or
    /// fast shutdown would send it first). Returns once the postmaster is gone
    /// (it removes `postmaster.pid` last).
    pub async fn crash_primary(&self) -> Result<(), ReplicationError> {
        let pid_file = self.primary.data_dir().join("postmaster.pid");
        let text =
            std::fs::read_to_string(&pid_file).map_err(|source| ReplicationError::NoPid {
                path: pid_file.clone(),
                source,
            })?;
        let pid = text
            .lines()
            .next()
            .and_then(|line| line.trim().parse::<i32>().ok())
            .filter(|pid| *pid > 0)
            .ok_or_else(|| ReplicationError::BadPid {
                path: pid_file.clone(),
                text: text.chars().take(40).collect(),
            })?;
        // SAFETY: kill has no memory effects; `pid` is a positive process id read
        // from the postmaster's own pid file, never 0 or -1 (a group or everyone).
        #[allow(unsafe_code)]
        let sent = unsafe { libc::kill(pid, libc::SIGQUIT) };
        if sent != 0 {
            return Err(ReplicationError::Signal {
                pid,
                source: std::io::Error::last_os_error(),
            });
        }
        until("the primary's postmaster to exit", async || {
            Ok(if pid_file.exists() {
                Err(format!("{} still exists", pid_file.display()))
            } else {
                Ok(())
            })
        })
        .await
    }

    /// Promotes the standby (`pg_promote()`), and returns once it accepts writes.
    pub async fn promote_standby(&self) -> Result<(), ReplicationError> {
        let mut standby = self.connect(Server::Standby).await?;
        let signalled: Result<bool, sqlx::Error> = sqlx::query_scalar("SELECT pg_promote(false)")
            .fetch_one(&mut standby)
            .await;
        let promoted = match signalled {
            Ok(true) => {
                until("the standby to finish its promotion", async || {
                    let state = read_standby(&mut standby).await?;
                    Ok(if state.in_recovery {
                        Err(state.to_string())
                    } else {
                        Ok(())
                    })
                })
                .await
            }
            Ok(false) => Err(ReplicationError::NotPromoted),
            Err(source) => Err(ReplicationError::Query {
                server: Server::Standby,
                doing: "pg_promote()",
                source,
            }),
        };
        let _ = standby.close().await;
        promoted
    }

    /// Returns once the standby has replayed the WAL up to `lsn`: what was
    /// committed before it is visible there.
    pub async fn until_replayed(&self, lsn: Lsn) -> Result<StandbyState, ReplicationError> {
        let mut standby = self.connect(Server::Standby).await?;
        let replayed = until("the standby to replay up to the primary", async || {
            let state = read_standby(&mut standby).await?;
            Ok(if state.replayed >= Some(lsn) {
                Ok(state)
            } else {
                Err(format!("{state}, waiting for {lsn}"))
            })
        })
        .await;
        let _ = standby.close().await;
        replayed
    }

    /// Returns once the standby has replayed everything the primary has flushed:
    /// every commit that returned so far is visible on the standby.
    pub async fn catch_up(&self) -> Result<StandbyState, ReplicationError> {
        let flushed = self.primary_state().await?.flushed;
        self.until_replayed(flushed).await
    }

    /// Pauses the standby's replay (`pg_wal_replay_pause()`): it goes on receiving
    /// WAL, and shows none of it to its queries. Returns once replay has stopped.
    pub async fn pause_replay(&self) -> Result<(), ReplicationError> {
        self.replay("SELECT pg_wal_replay_pause()", true).await
    }

    /// Resumes the standby's replay; returns once it runs again.
    pub async fn resume_replay(&self) -> Result<(), ReplicationError> {
        self.replay("SELECT pg_wal_replay_resume()", false).await
    }

    /// Returns once at least `n` sessions of the primary have waited in their
    /// COMMIT for a standby (`pg_stat_activity.wait_event = 'SyncRep'`) for
    /// `longer_than` or more, measured from the start of the COMMIT.
    pub async fn until_commits_wait(
        &self,
        n: i64,
        longer_than: Duration,
    ) -> Result<PrimaryState, ReplicationError> {
        let mut primary = self.connect(Server::Primary).await?;
        let micros = i64::try_from(longer_than.as_micros()).unwrap_or(i64::MAX);
        let waiting = until("COMMITs to wait for the standby", async || {
            let long: Result<i64, sqlx::Error> = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'
                   AND clock_timestamp() - query_start >= make_interval(secs => $1 / 1e6)",
            )
            .bind(micros)
            .fetch_one(&mut primary)
            .await;
            let long = long.map_err(|source| ReplicationError::Query {
                server: Server::Primary,
                doing: "reading pg_stat_activity",
                source,
            })?;
            let state = read_primary(&mut primary).await?;
            Ok(if long >= n {
                Ok(state)
            } else {
                Err(format!(
                    "{state}; {long} of them for {} ms or more",
                    longer_than.as_millis()
                ))
            })
        })
        .await;
        let _ = primary.close().await;
        waiting
    }

    /// Returns once no session of the primary waits for a standby in its COMMIT.
    pub async fn until_no_commit_waits(&self) -> Result<PrimaryState, ReplicationError> {
        let mut primary = self.connect(Server::Primary).await?;
        let done = until("every COMMIT's wait for the standby to end", async || {
            let state = read_primary(&mut primary).await?;
            Ok(if state.commits_waiting == 0 {
                Ok(state)
            } else {
                Err(state.to_string())
            })
        })
        .await;
        let _ = primary.close().await;
        done
    }

    /// Cancels the wait of every COMMIT that waits for a standby
    /// (`pg_cancel_backend`): each returns, committed on the primary. Returns how
    /// many were cancelled.
    pub async fn cancel_waiting_commits(&self) -> Result<i64, ReplicationError> {
        let mut primary = self.connect(Server::Primary).await?;
        let cancelled = sqlx::query_scalar(
            "SELECT count(*) FILTER (WHERE pg_cancel_backend(pid))
             FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
        )
        .fetch_one(&mut primary)
        .await
        .map_err(|source| ReplicationError::Query {
            server: Server::Primary,
            doing: "pg_cancel_backend()",
            source,
        });
        let _ = primary.close().await;
        cancelled
    }

    async fn replay(&self, sql: &'static str, paused: bool) -> Result<(), ReplicationError> {
        let mut standby = self.connect(Server::Standby).await?;
        let done = match standby.execute(sql).await {
            Ok(_) => {
                until("the standby's replay to pause or resume", async || {
                    let state = read_standby(&mut standby).await?;
                    Ok(if state.replay_paused == paused {
                        Ok(())
                    } else {
                        Err(state.to_string())
                    })
                })
                .await
            }
            Err(source) => Err(ReplicationError::Query {
                server: Server::Standby,
                doing: sql,
                source,
            }),
        };
        let _ = standby.close().await;
        done
    }

    async fn until_streaming(&self, what: &'static str) -> Result<(), ReplicationError> {
        let mut primary = self.connect(Server::Primary).await?;
        let streaming = until(what, async || {
            let state = read_primary(&mut primary).await?;
            let streams = state
                .standbys
                .iter()
                .any(|s| s.application_name == STANDBY_NAME && s.state == "streaming");
            Ok(if streams {
                Ok(())
            } else {
                Err(state.to_string())
            })
        })
        .await;
        let _ = primary.close().await;
        streaming
    }
}

/// Makes a copied data directory a standby. It has no primary to stream from
/// yet: `primary_conninfo` is set with `ALTER SYSTEM` once the primary runs, so
/// that cutting and restoring the stream are the same statement.
fn write_standby_files(data: &Path, owner: Option<(u32, u32)>) -> std::io::Result<()> {
    let signal = data.join("standby.signal");
    std::fs::write(&signal, "")?;
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(&signal, Some(uid), Some(gid))?;
    }
    // Appended: the last line naming a setting wins. How soon the standby tries
    // again when it has no WAL: at once, when its stream starts or is restored.
    let mut conf = std::fs::OpenOptions::new()
        .append(true)
        .open(data.join("postgresql.conf"))?;
    writeln!(conf, "wal_retrieve_retry_interval = '20ms'")?;
    Ok(())
}

/// Looks every [`LOOK_EVERY`] until `look` finds what it waits for (`Ok`), or
/// [`OPERATION_BOUND`] has passed; `Err(text)` is what it saw instead.
async fn until<T>(
    what: &'static str,
    mut look: impl AsyncFnMut() -> Result<Result<T, String>, ReplicationError>,
) -> Result<T, ReplicationError> {
    let deadline = Instant::now() + OPERATION_BOUND;
    loop {
        match look().await? {
            Ok(found) => return Ok(found),
            Err(last_seen) if Instant::now() >= deadline => {
                return Err(ReplicationError::TimedOut {
                    what,
                    bound: OPERATION_BOUND,
                    last_seen,
                });
            }
            Err(_) => tokio::time::sleep(LOOK_EVERY).await,
        }
    }
}

async fn read_primary(conn: &mut PgConnection) -> Result<PrimaryState, ReplicationError> {
    let failed = |source| ReplicationError::Query {
        server: Server::Primary,
        doing: "reading pg_stat_replication",
        source,
    };
    let row = sqlx::query(
        "SELECT (pg_current_wal_lsn() - '0/0')::bigint AS written,
                (pg_current_wal_flush_lsn() - '0/0')::bigint AS flushed,
                (SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep') AS waiting",
    )
    .fetch_one(&mut *conn)
    .await
    .map_err(failed)?;
    let senders = sqlx::query(
        "SELECT coalesce(application_name, '') AS name, coalesce(state, '') AS state,
                coalesce(sync_state, '') AS sync_state,
                (sent_lsn - '0/0')::bigint AS sent, (write_lsn - '0/0')::bigint AS written,
                (flush_lsn - '0/0')::bigint AS flushed, (replay_lsn - '0/0')::bigint AS replayed
         FROM pg_stat_replication ORDER BY application_name",
    )
    .fetch_all(&mut *conn)
    .await
    .map_err(failed)?;
    Ok(PrimaryState {
        written: Lsn::read(row.get("written")).unwrap_or(Lsn(0)),
        flushed: Lsn::read(row.get("flushed")).unwrap_or(Lsn(0)),
        commits_waiting: row.get("waiting"),
        standbys: senders
            .iter()
            .map(|s| WalSender {
                application_name: s.get("name"),
                state: s.get("state"),
                sync_state: s.get("sync_state"),
                sent: Lsn::read(s.get("sent")),
                written: Lsn::read(s.get("written")),
                flushed: Lsn::read(s.get("flushed")),
                replayed: Lsn::read(s.get("replayed")),
            })
            .collect(),
    })
}

async fn read_standby(conn: &mut PgConnection) -> Result<StandbyState, ReplicationError> {
    let row = sqlx::query(
        "SELECT pg_is_in_recovery() AS in_recovery,
                (pg_last_wal_receive_lsn() - '0/0')::bigint AS received,
                (pg_last_wal_replay_lsn() - '0/0')::bigint AS replayed,
                EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming') AS streaming,
                CASE WHEN pg_is_in_recovery()
                     THEN pg_get_wal_replay_pause_state() = 'paused' ELSE false END AS paused",
    )
    .fetch_one(&mut *conn)
    .await
    .map_err(|source| ReplicationError::Query {
        server: Server::Standby,
        doing: "reading its WAL positions",
        source,
    })?;
    Ok(StandbyState {
        in_recovery: row.get("in_recovery"),
        received: Lsn::read(row.get("received")),
        replayed: Lsn::read(row.get("replayed")),
        streaming: row.get("streaming"),
        replay_paused: row.get("paused"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_lsn_prints_as_postgresql_prints_it() {
        assert_eq!(Lsn(0x3000148).to_string(), "0/3000148");
        assert_eq!(Lsn((1 << 32) + 0x10).to_string(), "1/10");
    }
}
