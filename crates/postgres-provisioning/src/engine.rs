//! The container engine (Docker, Podman, Colima, ...), found where learners have it,
//! and the few calls of its HTTP API the harness makes itself.
//!
//! testcontainers creates and waits for the container; everything around it (is an
//! image here, pull it with a bound, list and remove containers by label) is a
//! plain blocking HTTP/1.0 request on the engine's socket. Plain calls need no
//! async runtime, so they also work in an `atexit` hook, after every runtime is gone.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::endpoint::{Endpoint, Engine};
use crate::error::EngineError;

/// What the search reads from the environment, as a value: tests give a fake home
/// and fake system directory.
#[derive(Debug, Clone, Default)]
pub struct Places {
    pub docker_host: Option<String>,
    pub home: Option<PathBuf>,
    pub xdg_runtime_dir: Option<PathBuf>,
    /// Where the system-wide sockets live: `/` except in tests.
    pub root: PathBuf,
}

impl Places {
    pub fn from_env() -> Self {
        let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        Self {
            docker_host: non_empty("DOCKER_HOST").map(|v| v.to_string_lossy().into_owned()),
            home: non_empty("HOME").map(PathBuf::from),
            xdg_runtime_dir: non_empty("XDG_RUNTIME_DIR").map(PathBuf::from),
            root: PathBuf::from("/"),
        }
    }
}

/// Every place an engine may answer, in the order they are tried. `DOCKER_HOST`,
/// when set, is the only one: it says where the engine is.
pub fn candidates(places: &Places) -> Result<Vec<Engine>, EngineError> {
    if let Some(host) = &places.docker_host {
        let endpoint = if let Some(path) = host.strip_prefix("unix://") {
            Endpoint::Unix(PathBuf::from(path))
        } else if let Some(address) = host.strip_prefix("tcp://") {
            Endpoint::Tcp(address.trim_end_matches('/').to_owned())
        } else {
            return Err(EngineError::UnknownScheme { host: host.clone() });
        };
        return Ok(vec![Engine {
            endpoint,
            kind: "DOCKER_HOST",
        }]);
    }
    let mut found = vec![(places.root.join("var/run/docker.sock"), "Docker")];
    if let Some(home) = &places.home {
        found.push((home.join(".docker/run/docker.sock"), "Docker Desktop"));
        found.push((home.join(".docker/desktop/docker.sock"), "Docker Desktop"));
    }
    if let Some(runtime) = &places.xdg_runtime_dir {
        found.push((runtime.join("docker.sock"), "rootless Docker"));
        found.push((runtime.join("podman/podman.sock"), "Podman"));
    }
    found.push((places.root.join("run/podman/podman.sock"), "Podman"));
    if let Some(home) = &places.home {
        found.push((home.join(".colima/default/docker.sock"), "Colima"));
        found.push((home.join(".rd/docker.sock"), "Rancher Desktop"));
        found.push((home.join(".orbstack/run/docker.sock"), "OrbStack"));
    }
    Ok(found
        .into_iter()
        .map(|(path, kind)| Engine {
            endpoint: Endpoint::Unix(path),
            kind,
        })
        .collect())
}

/// The first engine that answers its ping. A socket file alone proves nothing:
/// Docker Desktop leaves its socket behind when it quits.
pub fn find_engine(places: &Places) -> Result<Engine, EngineError> {
    let all = candidates(places)?;
    let mut silent = Vec::new();
    for engine in all.iter() {
        if let Endpoint::Unix(path) = &engine.endpoint
            && places.docker_host.is_none()
            && !is_socket(path)
        {
            continue;
        }
        match engine.ping() {
            Ok(()) => return Ok(engine.clone()),
            Err(why) => silent.push(why),
        }
    }
    if silent.is_empty() {
        let looked = all.iter().map(|e| e.endpoint.to_string()).collect();
        Err(EngineError::NoSocket { looked })
    } else {
        Err(EngineError::NoneAnswers(silent))
    }
}

/// The engine of this machine, as the tests would find it.
pub fn engine() -> Result<Engine, EngineError> {
    find_engine(&Places::from_env())
}

/// An answer of the engine's API.
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// The engine's own words for an error (`{"message": ...}`), or the raw body.
    pub fn message(&self) -> String {
        match self.json().get("message").and_then(|m| m.as_str()) {
            Some(message) => message.to_owned(),
            None => String::from_utf8_lossy(&self.body).trim().to_owned(),
        }
    }
}

/// Short enough that a hung engine fails a run in seconds.
const CALL_BOUND: Duration = Duration::from_secs(10);

/// The longest silence of a pull in progress before the harness gives up on it.
const PULL_SILENCE: Duration = Duration::from_secs(60);

/// A connection to the engine, Unix or TCP.
trait Stream: Read + Write {
    /// How long one read may wait.
    fn bound_reads(&self, bound: Duration) -> std::io::Result<()>;
}

impl Stream for UnixStream {
    fn bound_reads(&self, bound: Duration) -> std::io::Result<()> {
        self.set_read_timeout(Some(bound))
    }
}

impl Stream for TcpStream {
    fn bound_reads(&self, bound: Duration) -> std::io::Result<()> {
        self.set_read_timeout(Some(bound))
    }
}

impl Engine {
    fn connect(&self, bound: Duration) -> std::io::Result<Box<dyn Stream>> {
        let stream: Box<dyn Stream> = match &self.endpoint {
            Endpoint::Unix(path) => {
                let stream = UnixStream::connect(path)?;
                stream.set_read_timeout(Some(bound))?;
                stream.set_write_timeout(Some(bound))?;
                Box::new(stream)
            }
            Endpoint::Tcp(address) => {
                // A remote engine that does not answer must not hang the run.
                let mut last = std::io::Error::other(format!("{address} resolves to nothing"));
                let mut connected = None;
                for ip in address.to_socket_addrs()? {
                    match TcpStream::connect_timeout(&ip, bound) {
                        Ok(stream) => {
                            connected = Some(stream);
                            break;
                        }
                        Err(e) => last = e,
                    }
                }
                let stream = connected.ok_or(last)?;
                stream.set_read_timeout(Some(bound))?;
                stream.set_write_timeout(Some(bound))?;
                Box::new(stream)
            }
        };
        Ok(stream)
    }

    /// Sends one request; HTTP/1.0, so the engine closes the connection after its answer.
    fn send(&self, method: &str, path: &str, bound: Duration) -> std::io::Result<Box<dyn Stream>> {
        let mut stream = self.connect(bound)?;
        let request =
            format!("{method} {path} HTTP/1.0\r\nHost: engine\r\nContent-Length: 0\r\n\r\n");
        stream.write_all(request.as_bytes())?;
        Ok(stream)
    }

    pub(crate) fn call(&self, method: &str, path: &str) -> Result<Reply, EngineError> {
        let read = || -> std::io::Result<Vec<u8>> {
            let mut stream = self.send(method, path, CALL_BOUND)?;
            let mut raw = Vec::new();
            stream.read_to_end(&mut raw)?;
            Ok(raw)
        };
        let raw = read().map_err(|source| EngineError::Call {
            engine: self.clone(),
            call: format!("{method} {path}"),
            source,
        })?;
        parse_reply(&raw).ok_or_else(|| EngineError::NotHttp {
            engine: self.clone(),
            call: format!("{method} {path}"),
            start: String::from_utf8_lossy(&raw[..raw.len().min(80)]).into_owned(),
        })
    }

    /// `GET /_ping`, bounded at 2 s.
    pub fn ping(&self) -> Result<(), EngineError> {
        let answer = (|| -> std::io::Result<Vec<u8>> {
            let mut stream = self.send("GET", "/_ping", Duration::from_secs(2))?;
            let mut raw = Vec::new();
            stream.read_to_end(&mut raw)?;
            Ok(raw)
        })();
        let raw = answer.map_err(|source| EngineError::Silent {
            endpoint: self.endpoint.clone(),
            source,
        })?;
        match parse_reply(&raw) {
            Some(reply) if reply.status == 200 => Ok(()),
            Some(reply) => Err(EngineError::PingRefused {
                engine: self.clone(),
                status: reply.status,
            }),
            None => Err(EngineError::PingNotHttp {
                engine: self.clone(),
            }),
        }
    }

    /// Whether the engine has the image locally (it never pulls for this).
    pub fn has_image(&self, image: &str) -> Result<bool, EngineError> {
        let reply = self.call("GET", &format!("/images/{image}/json"))?;
        match reply.status {
            200 => Ok(true),
            404 => Ok(false),
            other => Err(self.refused(
                l10n::t!(
                    crate::messages::MESSAGES,
                    "engine-looking-for-image",
                    image = image
                ),
                other,
                &reply,
            )),
        }
    }

    /// Pulls an image. A registry that does not answer within `first_word` ends
    /// the pull: without a registry (offline, a firewall) the harness moves on in
    /// seconds rather than waiting for a network timeout.
    ///
    /// When nothing has come after `patience`, `still_waiting` is called once (to
    /// say so: the wait is not a hang).
    pub fn pull(
        &self,
        image: &str,
        first_word: Duration,
        patience: Duration,
        still_waiting: impl FnOnce(),
    ) -> Result<(), EngineError> {
        let (name, tag) = split_image(image);
        let path = format!("/images/create?fromImage={name}&tag={tag}");
        let started = Instant::now();
        let stream = self
            .send("POST", &path, patience.min(first_word))
            .map_err(|source| EngineError::PullNotSent {
                engine: self.clone(),
                image: image.to_owned(),
                source,
            })?;
        let mut lines = BufReader::new(stream);
        let mut status_line = String::new();
        let silent = |source| EngineError::NoRegistry {
            bound: first_word,
            source,
        };
        if let Err(e) = lines.read_line(&mut status_line) {
            let timed_out = matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            );
            let left = first_word.saturating_sub(started.elapsed());
            if !timed_out || left.is_zero() {
                return Err(silent(e));
            }
            still_waiting();
            lines.get_ref().bound_reads(left).map_err(silent)?;
            lines.read_line(&mut status_line).map_err(silent)?;
        }
        let status = status_line.split_whitespace().nth(1).unwrap_or("");
        // A registry answered: from now on only a long silence ends the pull (a big
        // layer may be extracted for a while between two progress lines).
        let _ = lines.get_ref().bound_reads(PULL_SILENCE);
        let mut line = String::new();
        // Headers, then one JSON object per line of progress.
        loop {
            line.clear();
            match lines.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) if line.trim().is_empty() => break,
                Ok(_) => {}
                Err(source) => {
                    return Err(EngineError::PullStalled {
                        after: None,
                        source,
                    });
                }
            }
        }
        let started = Instant::now();
        let mut last = String::new();
        loop {
            line.clear();
            match lines.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {
                    let event: serde_json::Value =
                        serde_json::from_str(line.trim()).unwrap_or(serde_json::Value::Null);
                    if let Some(error) = event.get("error").and_then(|e| e.as_str()) {
                        return Err(EngineError::PullFailed(error.to_owned()));
                    }
                    if let Some(message) = event.get("message").and_then(|e| e.as_str()) {
                        last = message.to_owned();
                    }
                }
                Err(source) => {
                    return Err(EngineError::PullStalled {
                        after: Some(started.elapsed().as_secs_f64()),
                        source,
                    });
                }
            }
        }
        if status == "200" {
            Ok(())
        } else {
            Err(EngineError::PullStatus {
                status: status.to_owned(),
                last,
            })
        }
    }

    /// How the engine places containers in cgroups: `cgroupfs` or `systemd`
    /// (`GET /info`; Podman answers it too).
    pub fn cgroup_driver(&self) -> Result<String, EngineError> {
        let reply = self.call("GET", "/info")?;
        match (reply.status, reply.json()["CgroupDriver"].as_str()) {
            (200, Some(driver)) => Ok(driver.to_owned()),
            (status, _) => Err(self.refused("GET /info".to_owned(), status, &reply)),
        }
    }

    /// Removes a container (by id or name) and its anonymous volumes, running or not.
    /// One already gone is not an error.
    pub fn remove(&self, container: &str) -> Result<(), EngineError> {
        let reply = self.call("DELETE", &format!("/containers/{container}?force=1&v=1"))?;
        match reply.status {
            204 | 404 => Ok(()),
            other => Err(self.refused(
                l10n::t!(
                    crate::messages::MESSAGES,
                    "engine-removing-container",
                    container = container
                ),
                other,
                &reply,
            )),
        }
    }

    /// The containers, running or not, that carry `label` (`key` or `key=value`).
    #[cfg_attr(not(feature = "containers"), allow(dead_code))]
    pub(crate) fn containers_labelled(
        &self,
        label: &str,
    ) -> Result<Vec<serde_json::Value>, EngineError> {
        let filter = serde_json::json!({ "label": [label] }).to_string();
        let reply = self.call(
            "GET",
            &format!("/containers/json?all=1&filters={}", percent_encode(&filter)),
        )?;
        match (reply.status, reply.json()) {
            (200, serde_json::Value::Array(list)) => Ok(list),
            (status, _) => Err(self.refused(
                l10n::t!(crate::messages::MESSAGES, "engine-listing-containers"),
                status,
                &reply,
            )),
        }
    }

    /// `docker inspect` of one container, or `None` when there is none of that name.
    #[cfg_attr(not(feature = "containers"), allow(dead_code))]
    pub(crate) fn inspect(
        &self,
        container: &str,
    ) -> Result<Option<serde_json::Value>, EngineError> {
        let reply = self.call("GET", &format!("/containers/{container}/json"))?;
        match reply.status {
            200 => Ok(Some(reply.json())),
            404 => Ok(None),
            other => Err(self.refused(
                l10n::t!(
                    crate::messages::MESSAGES,
                    "engine-inspecting-container",
                    container = container
                ),
                other,
                &reply,
            )),
        }
    }

    /// An error answer of the engine, in its own words.
    fn refused(&self, doing: String, status: u16, reply: &Reply) -> EngineError {
        EngineError::Refused {
            engine: self.clone(),
            doing,
            status,
            message: reply.message(),
        }
    }
}

fn parse_reply(raw: &[u8]) -> Option<Reply> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..split]).ok()?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some(Reply {
        status,
        body: raw[split + 4..].to_vec(),
    })
}

/// `name:tag` → (`name`, `tag`); no tag means `latest`. A registry's port
/// (`host:5000/name`) is not a tag.
pub fn split_image(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (image, "latest"),
    }
}

#[cfg_attr(not(feature = "containers"), allow(dead_code))]
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Whether `path` is a Unix socket file (what an engine listens on).
fn is_socket(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.file_type().is_socket())
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use std::os::unix::net::UnixListener;
    use std::path::Path;

    use super::*;

    /// A fake engine: answers every request on its socket with `reply` (`None`:
    /// reads the request and then says nothing, holding the connection open).
    fn fake_engine(path: &Path, reply: Option<&'static str>) {
        std::fs::create_dir_all(path.parent().expect("a socket path has a parent"))
            .expect("create the socket's directory");
        let listener = UnixListener::bind(path).expect("bind a fake engine socket");
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut request = [0u8; 512];
                let _ = stream.read(&mut request);
                match reply {
                    Some(reply) => {
                        let _ = stream.write_all(reply.as_bytes());
                    }
                    None => held.push(stream),
                }
            }
        });
    }

    /// Answers every request with `200 OK`, as `/_ping` does.
    fn answering_engine(path: &Path) {
        fake_engine(path, Some("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nOK"));
    }

    /// A socket file nobody listens on any more, as an engine that quit leaves behind.
    fn stale_socket(path: &Path) {
        std::fs::create_dir_all(path.parent().expect("a socket path has a parent"))
            .expect("create the socket's directory");
        drop(UnixListener::bind(path).expect("bind a socket"));
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "workbook-engine-test-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        dir
    }

    fn places(dir: &Path) -> Places {
        Places {
            docker_host: None,
            home: Some(dir.join("home")),
            xdg_runtime_dir: Some(dir.join("run/user/1000")),
            root: dir.join("sys"),
        }
    }

    #[test]
    fn the_usual_sockets_are_tried_in_order_system_docker_first() {
        let places = places(Path::new("/x"));
        let tried: Vec<(String, &str)> = candidates(&places)
            .expect("no DOCKER_HOST to reject")
            .into_iter()
            .map(|e| (e.endpoint.to_string(), e.kind))
            .collect();
        assert_eq!(
            tried,
            [
                ("unix:///x/sys/var/run/docker.sock", "Docker"),
                ("unix:///x/home/.docker/run/docker.sock", "Docker Desktop"),
                (
                    "unix:///x/home/.docker/desktop/docker.sock",
                    "Docker Desktop"
                ),
                ("unix:///x/run/user/1000/docker.sock", "rootless Docker"),
                ("unix:///x/run/user/1000/podman/podman.sock", "Podman"),
                ("unix:///x/sys/run/podman/podman.sock", "Podman"),
                ("unix:///x/home/.colima/default/docker.sock", "Colima"),
                ("unix:///x/home/.rd/docker.sock", "Rancher Desktop"),
                ("unix:///x/home/.orbstack/run/docker.sock", "OrbStack"),
            ]
            .map(|(e, k)| (e.to_owned(), k))
        );
    }

    #[test]
    fn docker_host_is_the_only_place_tried_when_set() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let mut places = places(Path::new("/x"));
        places.docker_host = Some("tcp://10.0.0.5:2375".to_owned());
        let tried = candidates(&places).expect("tcp:// is understood");
        assert_eq!(tried.len(), 1);
        assert_eq!(tried[0].endpoint, Endpoint::Tcp("10.0.0.5:2375".to_owned()));
        assert_eq!(tried[0].endpoint.published_host(), "10.0.0.5");

        places.docker_host = Some("unix:///somewhere/engine.sock".to_owned());
        let tried = candidates(&places).expect("unix:// is understood");
        assert_eq!(
            tried[0].endpoint,
            Endpoint::Unix(PathBuf::from("/somewhere/engine.sock"))
        );
        assert_eq!(tried[0].endpoint.published_host(), "127.0.0.1");

        places.docker_host = Some("ssh://me@box".to_owned());
        let refused = candidates(&places)
            .expect_err("ssh:// is not spoken")
            .to_string();
        assert!(refused.contains("DOCKER_HOST=ssh://me@box"), "{refused}");
    }

    #[test]
    fn colima_is_found_when_it_is_the_only_engine() {
        let dir = scratch("colima");
        answering_engine(&dir.join("home/.colima/default/docker.sock"));
        let engine = find_engine(&places(&dir)).expect("Colima's socket answers");
        assert_eq!(engine.kind, "Colima");
        assert_eq!(
            engine.endpoint.docker_host(),
            format!("unix://{}/home/.colima/default/docker.sock", dir.display())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rootless_podman_is_found_under_xdg_runtime_dir() {
        let dir = scratch("podman");
        answering_engine(&dir.join("run/user/1000/podman/podman.sock"));
        let engine = find_engine(&places(&dir)).expect("Podman's socket answers");
        assert_eq!(engine.kind, "Podman");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_socket_left_behind_by_a_stopped_engine_is_skipped() {
        let dir = scratch("stale");
        stale_socket(&dir.join("home/.docker/run/docker.sock"));
        answering_engine(&dir.join("home/.orbstack/run/docker.sock"));
        let engine = find_engine(&places(&dir)).expect("OrbStack answers");
        assert_eq!(engine.kind, "OrbStack");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_socket_at_all_says_where_it_looked() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let dir = scratch("none");
        let why = find_engine(&places(&dir))
            .expect_err("nothing listens")
            .to_string();
        assert!(
            why.starts_with("no engine: DOCKER_HOST is not set"),
            "{why}"
        );
        assert!(why.contains("/home/.colima/default/docker.sock"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stale_socket_alone_is_reported_as_not_answering() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let dir = scratch("only-stale");
        stale_socket(&dir.join("sys/var/run/docker.sock"));
        let why = find_engine(&places(&dir))
            .expect_err("nothing listens")
            .to_string();
        assert!(why.starts_with("no engine answers at unix://"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn engine_at(path: PathBuf) -> Engine {
        Engine {
            endpoint: Endpoint::Unix(path),
            kind: "a fake engine",
        }
    }

    #[test]
    fn a_registry_that_does_not_answer_ends_the_pull_within_its_bound() {
        // The words checked here are the English catalogue's.
        l10n::Lang::English.set_current();
        let dir = scratch("silent-registry");
        let socket = dir.join("engine.sock");
        fake_engine(&socket, None);
        let started = Instant::now();
        let mut said = None;
        let why = engine_at(socket)
            .pull(
                "postgres:15-alpine",
                Duration::from_millis(300),
                Duration::from_millis(100),
                || said = Some(started.elapsed()),
            )
            .expect_err("nothing answers")
            .to_string();
        let waited = started.elapsed();
        assert!(
            why.starts_with("no registry answered within 0.3 s"),
            "{why}"
        );
        assert!(waited < Duration::from_secs(2), "waited {waited:?}");
        let said = said.expect("the wait was announced while it lasted");
        assert!(
            said >= Duration::from_millis(100) && said < waited,
            "announced after {said:?} of {waited:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_pull_is_reported_in_the_engine_s_words() {
        let dir = scratch("no-registry");
        let socket = dir.join("engine.sock");
        fake_engine(
            &socket,
            Some(
                "HTTP/1.0 500 Internal Server Error\r\nContent-Type: application/json\r\n\r\n\
                 {\"message\":\"lookup registry-1.docker.io: no such host\"}\n",
            ),
        );
        let why = engine_at(socket)
            .pull(
                "postgres:15-alpine",
                Duration::from_secs(2),
                Duration::from_secs(1),
                || {},
            )
            .expect_err("the engine refused")
            .to_string();
        assert_eq!(why, "HTTP 500: lookup registry-1.docker.io: no such host");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn removing_a_container_that_is_already_gone_is_not_an_error() {
        let dir = scratch("gone");
        let socket = dir.join("engine.sock");
        fake_engine(
            &socket,
            Some("HTTP/1.0 404 Not Found\r\n\r\n{\"message\":\"No such container: x\"}"),
        );
        let engine = engine_at(socket);
        assert!(
            engine.remove("x").is_ok(),
            "removing a container the engine does not know failed"
        );
        assert!(
            matches!(engine.has_image("postgres:15-alpine"), Ok(false)),
            "an image the engine does not know was not reported as absent"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_image_name_splits_into_name_and_tag() {
        assert_eq!(split_image("postgres:15-alpine"), ("postgres", "15-alpine"));
        assert_eq!(
            split_image("workbook-postgres"),
            ("workbook-postgres", "latest")
        );
        assert_eq!(
            split_image("registry:5000/team/pg:15"),
            ("registry:5000/team/pg", "15")
        );
        assert_eq!(
            split_image("registry:5000/team/pg"),
            ("registry:5000/team/pg", "latest")
        );
    }
}
