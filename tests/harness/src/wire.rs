//! A relay between a pool and PostgreSQL that reads what the client sends.
//!
//! It forwards every byte both ways, unchanged, and parses the protocol's
//! messages on the way (PostgreSQL's frontend/backend protocol 3.0): the client's
//! simple queries (`Query`), the statements it prepares (`Parse`), how many times
//! it binds, executes and syncs, and the transaction status of every
//! `ReadyForQuery` the server sends (`I` idle, `T` in a transaction block, `E` in
//! a failed one). A test can so prove what went over the wire, e.g. "one
//! statement, and never inside a transaction block", for any server the harness
//! uses.
//!
//! It can also lose an answer ([`WireRelay::losing_the_answer_to`]): the server's
//! whole answer to one statement, read up to its `ReadyForQuery` (so the server
//! has finished the statement and, outside a transaction block, committed it) and
//! then dropped with both connections. The client is left with a broken
//! connection and no word of what the server did: a lost commit acknowledgement.
//!
//! The relay listens on a Unix socket in a directory of its own; a small
//! supervisor shell removes that directory when the relay is dropped, or when
//! the test process exits for any reason, even `kill -9` (as `local.rs` does for
//! the cluster).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use l10n::t;
use sqlx::postgres::{PgConnectOptions, PgPool, PgSslMode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpStream, UnixListener, UnixStream};

use crate::pool::{PoolSize, pool_on};

/// What the client sent, and the server's transaction status, message by message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WireLog {
    /// The text of every simple query (`Query` message), e.g. `BEGIN`.
    pub queries: Vec<String>,
    /// The text of every statement prepared (`Parse` message).
    pub parses: Vec<String>,
    pub binds: usize,
    pub executes: usize,
    pub syncs: usize,
    /// The transaction status of every `ReadyForQuery`, in order: `I`, `T` or `E`.
    pub ready: String,
}

impl WireLog {
    /// Whether a transaction block was open at any `ReadyForQuery`.
    pub fn saw_transaction_block(&self) -> bool {
        self.ready.contains(['T', 'E'])
    }
}

impl std::fmt::Display for WireLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = |text: &String| {
            let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            match one_line.char_indices().nth(60) {
                Some((at, _)) => format!("{:?}...", &one_line[..at]),
                None => format!("{one_line:?}"),
            }
        };
        let queries: Vec<String> = self.queries.iter().map(short).collect();
        let parses: Vec<String> = self.parses.iter().map(short).collect();
        write!(
            f,
            "simple queries [{}]; statements prepared [{}]; {} bind(s), {} execute(s), {} sync(s); \
             transaction status at each ReadyForQuery: {:?} (I idle, T in a transaction block)",
            queries.join(", "),
            parses.join(", "),
            self.binds,
            self.executes,
            self.syncs,
            self.ready
        )
    }
}

pub struct WireRelay {
    options: PgConnectOptions,
    /// Whether the answer the relay was told to lose has been lost.
    lost: Arc<AtomicBool>,
    log: Arc<Mutex<WireLog>>,
    /// Removes the socket's directory once its stdin closes.
    janitor: Option<Child>,
}

/// Removes the directory `$1` once stdin closes.
const JANITOR: &str = r#"trap '' INT TERM HUP; while read -r _; do :; done; rm -rf "$1""#;

/// A directory of this process's own in the temp dir (`<prefix>.<pid>.<nanos>`,
/// not created yet: the caller makes it), and the shell that removes it once
/// its stdin closes: when the `Child`'s stdin is dropped, or when this process
/// ends for any reason, even `kill -9`.
pub(crate) fn janitored_dir(prefix: &str) -> std::io::Result<(PathBuf, Child)> {
    use std::os::unix::process::CommandExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("{prefix}.{}.{nanos}", std::process::id()));
    let janitor = Command::new("sh")
        .arg("-c")
        .arg(JANITOR)
        .arg("sh")
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    Ok((dir, janitor))
}

impl WireRelay {
    /// Starts a relay to the server of `upstream`; connect through [`Self::options`].
    pub async fn start(upstream: &PgConnectOptions) -> WireRelay {
        Self::start_with(upstream, None).await
    }

    /// A relay that loses the server's answer to the first statement whose text
    /// starts with `statement` (e.g. `"INSERT INTO payments"`), once: it reads that
    /// answer up to its `ReadyForQuery`, so the server has finished the statement
    /// (and committed it, in autocommit), then closes both connections instead of
    /// forwarding it. Every other statement, before and after, passes unchanged.
    pub async fn losing_the_answer_to(
        upstream: &PgConnectOptions,
        statement: &'static str,
    ) -> WireRelay {
        Self::start_with(upstream, Some(statement)).await
    }

    /// Whether the answer this relay was told to lose has been lost.
    pub fn lost_an_answer(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    async fn start_with(upstream: &PgConnectOptions, lose: Option<&'static str>) -> WireRelay {
        let (dir, janitor) = match janitored_dir("workbook-wire") {
            Ok(made) => made,
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "wire-no-shell",
                    error = e.to_string()
                )
            ),
        };
        if let Err(e) = std::fs::create_dir(&dir) {
            panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "wire-no-directory",
                    dir = dir.display().to_string(),
                    error = e.to_string()
                )
            );
        }
        let port = upstream.get_port();
        let listener = match UnixListener::bind(dir.join(format!(".s.PGSQL.{port}"))) {
            Ok(listener) => listener,
            Err(e) => panic!(
                "{}",
                t!(
                    crate::messages::MESSAGES,
                    "wire-cannot-listen",
                    dir = dir.display().to_string(),
                    error = e.to_string()
                )
            ),
        };
        let log = Arc::new(Mutex::new(WireLog::default()));
        let lost = Arc::new(AtomicBool::new(false));
        let server = Upstream::of(upstream);
        let seen = log.clone();
        let loss = lose.map(|statement| Loss {
            statement,
            lost: lost.clone(),
        });
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(relay(client, server.clone(), seen.clone(), loss.clone()));
            }
        });
        WireRelay {
            options: upstream.clone().socket(&dir).ssl_mode(PgSslMode::Disable),
            lost,
            log,
            janitor: Some(janitor),
        }
    }

    /// `upstream`'s options, through the relay.
    pub fn options(&self) -> &PgConnectOptions {
        &self.options
    }

    /// A pool through the relay, with the harness's settings (no ping before an
    /// acquire: it would show on the wire).
    pub fn pool(&self, size: PoolSize) -> PgPool {
        pool_on(&self.options, size)
    }

    /// What was seen since the last call (or the start), and a fresh log.
    pub fn take(&self) -> WireLog {
        self.log
            .lock()
            .map(|mut log| std::mem::take(&mut *log))
            .unwrap_or_default()
    }
}

impl Drop for WireRelay {
    fn drop(&mut self) {
        if let Some(mut janitor) = self.janitor.take() {
            drop(janitor.stdin.take());
            let _ = janitor.wait();
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Upstream {
    Socket(PathBuf),
    Tcp(String, u16),
}

impl Upstream {
    pub(crate) fn of(options: &PgConnectOptions) -> Upstream {
        match options.get_socket() {
            Some(dir) => Upstream::Socket(dir.join(format!(".s.PGSQL.{}", options.get_port()))),
            None => Upstream::Tcp(options.get_host().to_owned(), options.get_port()),
        }
    }
}

/// The answer a relay loses: the first to a statement that starts with
/// `statement`, once for the whole relay.
#[derive(Clone)]
struct Loss {
    statement: &'static str,
    lost: Arc<AtomicBool>,
}

/// What one connection's two directions share: the statements the client
/// prepared (by name), and whether the answer now coming is the one to lose.
#[derive(Default)]
struct Exchange {
    prepared: HashMap<String, String>,
    losing: bool,
}

impl Exchange {
    /// Called for each message the client sends: arms the loss when the client
    /// runs the statement (a simple `Query`, or a `Bind` of the prepared one).
    fn sent(&mut self, loss: &Loss, kind: u8, body: &[u8]) {
        let runs = match kind {
            b'Q' => Some(text(body)),
            b'P' => {
                let (name, rest) = split_cstr(body);
                self.prepared.insert(name, text(rest));
                None
            }
            b'B' => {
                let (_portal, rest) = split_cstr(body);
                let (statement, _) = split_cstr(rest);
                self.prepared.get(&statement).cloned()
            }
            _ => None,
        };
        if runs.is_some_and(|sql| sql.trim_start().starts_with(loss.statement))
            && !loss.lost.load(Ordering::SeqCst)
        {
            self.losing = true;
        }
    }
}

/// A NUL-terminated string at the start of `bytes`, and what follows it.
pub(crate) fn split_cstr(bytes: &[u8]) -> (String, &[u8]) {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    (
        String::from_utf8_lossy(&bytes[..end]).into_owned(),
        bytes.get(end + 1..).unwrap_or(&[]),
    )
}

fn text(bytes: &[u8]) -> String {
    split_cstr(bytes).0
}

async fn relay(
    client: UnixStream,
    upstream: Upstream,
    log: Arc<Mutex<WireLog>>,
    loss: Option<Loss>,
) {
    // Shared by the connection's two directions.
    let exchange = Arc::new(Mutex::new(Exchange::default()));
    relay_to(client, &upstream, move |side, kind, body| {
        record(&log, side, kind, body);
        let Some(loss) = &loss else {
            return Pass::On;
        };
        let Ok(mut exchange) = exchange.lock() else {
            return Pass::End;
        };
        match side {
            // Armed before the message reaches the server, so no part of the
            // answer can pass first.
            Side::Frontend => {
                exchange.sent(loss, kind, body);
                Pass::On
            }
            // Swallowed; at ReadyForQuery the server is done with the
            // statement: the connection goes, unanswered.
            Side::Backend if exchange.losing => {
                if kind == b'Z' {
                    loss.lost.store(true, Ordering::SeqCst);
                    Pass::End
                } else {
                    Pass::Swallow
                }
            }
            Side::Backend => Pass::On,
        }
    })
    .await;
}

/// What the relay does with a message its observer has seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Passes it on.
    On,
    /// Drops it.
    Swallow,
    /// Ends the relay, closing both connections.
    End,
}

/// Relays `client` to `upstream`, telling `observe` every message.
pub(crate) async fn relay_to(
    client: UnixStream,
    upstream: &Upstream,
    observe: impl Fn(Side, u8, &[u8]) -> Pass + Clone + Send,
) {
    match upstream {
        Upstream::Socket(path) => {
            if let Ok(server) = UnixStream::connect(path).await {
                relay_observed(client, server, observe).await;
            }
        }
        Upstream::Tcp(host, port) => {
            if let Ok(server) = TcpStream::connect((host.as_str(), *port)).await {
                let _ = server.set_nodelay(true);
                relay_observed(client, server, observe).await;
            }
        }
    }
}

/// Relays one connection, both ways, telling `observe` every typed message (its
/// side, its type byte, its body) before it is passed on: a message is always
/// seen before its answer.
pub(crate) async fn relay_observed<S>(
    mut client: UnixStream,
    mut server: S,
    observe: impl Fn(Side, u8, &[u8]) -> Pass + Clone + Send,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    if !startup(&mut client, &mut server).await {
        return;
    }
    let (client_read, client_write) = tokio::io::split(client);
    let (server_read, server_write) = tokio::io::split(server);
    // Buffered reads: a message's head and body cost one read, not two.
    let frontend = copy_parsed(
        BufReader::new(client_read),
        server_write,
        Side::Frontend,
        observe.clone(),
    );
    let backend = copy_parsed(
        BufReader::new(server_read),
        client_write,
        Side::Backend,
        observe,
    );
    // When one side ends, the other is ended too.
    tokio::select! {
        () = frontend => {}
        () = backend => {}
    }
}

/// Passes the client's startup message on. It has no type byte: a startup
/// message (or a cancel request), possibly after requests for encryption, which
/// the relay refuses itself (`N`, as a server without TLS does) so the rest can
/// be read. False when either side went away.
async fn startup<S>(client: &mut UnixStream, server: &mut S) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        let Some(length) = read_exact(client, 4).await else {
            return false;
        };
        let n = u32::from_be_bytes([length[0], length[1], length[2], length[3]]) as usize;
        let Some(rest) = read_exact(client, n.saturating_sub(4)).await else {
            return false;
        };
        let code = rest
            .get(..4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
        // 80877103 SSLRequest, 80877104 GSSENCRequest.
        if matches!(code, Some(80_877_103 | 80_877_104)) {
            if client.write_all(b"N").await.is_err() {
                return false;
            }
            continue;
        }
        return server.write_all(&[length, rest].concat()).await.is_ok();
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Frontend,
    Backend,
}

/// Copies typed messages (a type byte, a length, a body) from `from` to `to`,
/// telling `observe` each one first, which says whether it passes on, is
/// dropped, or ends the relay (returning closes both connections).
async fn copy_parsed<R, W>(
    mut from: R,
    mut to: W,
    side: Side,
    observe: impl Fn(Side, u8, &[u8]) -> Pass,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    // One buffer for every message of the connection: its head, then its body
    // read in after it, passed on as it came.
    let mut message = Vec::new();
    loop {
        message.clear();
        message.resize(5, 0);
        if from.read_exact(&mut message).await.is_err() {
            return;
        }
        let n = u32::from_be_bytes([message[1], message[2], message[3], message[4]]) as usize;
        message.resize(5 + n.saturating_sub(4), 0);
        if from.read_exact(&mut message[5..]).await.is_err() {
            return;
        }
        match observe(side, message[0], &message[5..]) {
            Pass::On => {}
            Pass::Swallow => continue,
            Pass::End => return,
        }
        if to.write_all(&message).await.is_err() {
            return;
        }
    }
}

pub(crate) async fn read_exact<R: AsyncRead + Unpin>(from: &mut R, n: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; n];
    from.read_exact(&mut buf).await.ok()?;
    Some(buf)
}

fn record(log: &Arc<Mutex<WireLog>>, side: Side, kind: u8, body: &[u8]) {
    let Ok(mut log) = log.lock() else {
        return;
    };
    match (side, kind) {
        (Side::Frontend, b'Q') => log.queries.push(text(body)),
        // The statement's name, then its text.
        (Side::Frontend, b'P') => log.parses.push(text(split_cstr(body).1)),
        (Side::Frontend, b'B') => log.binds += 1,
        (Side::Frontend, b'E') => log.executes += 1,
        (Side::Frontend, b'S') => log.syncs += 1,
        (Side::Backend, b'Z') => {
            if let Some(status) = body.first() {
                log.ready.push(char::from(*status));
            }
        }
        _ => {}
    }
}
