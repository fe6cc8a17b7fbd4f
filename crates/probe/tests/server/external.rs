//! A server in another language, started by a command (`servers/start.sh NAME
//! PORT DATABASE_URL`), probed like the others, and stopped with its whole
//! process group when dropped.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to listen (npm and Python start in about a second).
const READY_BOUND: Duration = Duration::from_secs(30);

pub struct ExternalServer {
    child: Child,
    pub port: u16,
}

impl ExternalServer {
    /// Runs `script NAME PORT DATABASE_URL` on a free port of 127.0.0.1 and waits
    /// until it accepts connections.
    pub fn start(script: &Path, name: &str, database_url: &str) -> Result<Self, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let mut command = Command::new(script);
        command
            .args([name, &port.to_string(), database_url])
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // A group of its own: stopping it stops the interpreter under the script.
            command.process_group(0);
        }
        let child = command
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        let mut server = Self { child, port };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "{} {name} exited before listening: {status}",
                    script.display()
                ));
            }
            if started.elapsed() > READY_BOUND {
                return Err(format!(
                    "{} {name} did not listen on {port} within {READY_BOUND:?}",
                    script.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }
}

impl Drop for ExternalServer {
    fn drop(&mut self) {
        // The negative pid names the process group (kill(1)).
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}
