//! What to probe and how: the route, the bodies, the key header, the bounds.

use std::time::Duration;

use crate::catalogue::CheckId;
use crate::error::ProbeError;
use crate::words::mistake;
use l10n::Arg;

/// The defaults: the workbook's API. [`Options::new`] and the command line's
/// flags both take them from here.
pub mod defaults {
    pub const PATH: &str = "/payments";
    pub const METHOD: &str = "POST";
    pub const KEY_HEADER: &str = "Idempotency-Key";
    pub const BODY: &str = r#"{"orderId": {n}, "amount": 100}"#;
    pub const OTHER_BODY: &str = r#"{"orderId": {n}, "amount": 999}"#;
    pub const ID_POINTER: &str = "/id";
    pub const BURST: usize = 20;
    pub const HANG_BURSTS: [usize; 2] = [20, 50];
    pub const TIMEOUT_MS: u64 = 5000;
    pub const LONG_KEY_LENGTH: usize = 1000;
    pub const BIG_BODY_BYTES: usize = 3 * 1024 * 1024;
}

/// The probe's configuration; [`Options::new`] gives the workbook's defaults.
#[derive(Debug, Clone)]
pub struct Options {
    /// `http://host:port`, optionally with a base path: one per instance of the
    /// API (one database behind them all). Bursts are spread across them round
    /// robin, and one request after another goes to the next.
    pub urls: Vec<String>,
    /// Appended to the URL's path: the route that creates.
    pub path: String,
    pub method: String,
    /// The idempotency key's header name.
    pub key_header: String,
    /// The body, with `{n}` replaced by a fresh number for each scenario.
    pub body: String,
    /// Another body for the same `{n}`: what "the same key with another body" sends.
    pub other_body: String,
    /// RFC 6901 JSON pointer to the created resource's id in a 2xx answer.
    pub id_pointer: String,
    /// Sent with every request (e.g. `Authorization`), beside `content-type`.
    pub headers: Vec<(String, String)>,
    /// How many requests the burst sends with one key.
    pub burst: usize,
    /// The sizes of the hang check's bursts, in order.
    pub hang_bursts: Vec<usize>,
    /// The bound of every request.
    pub timeout: Duration,
    /// The length of the key the "too long" case sends.
    pub long_key_length: usize,
    /// The size of the body the "over the limit" case sends.
    pub big_body_bytes: usize,
    /// Where the effects are counted; with `count_sql`.
    pub database_url: Option<String>,
    /// A query returning one integer: how many effects exist (e.g. `select count(*) from payments`).
    pub count_sql: Option<String>,
    /// Allow a target that is not this machine.
    pub allow_remote: bool,
    /// Checks not to run.
    pub skip: Vec<CheckId>,
}

impl Options {
    /// The workbook's API at `url`: `POST /payments`, `{"orderId": N, "amount": 100}`.
    pub fn new(url: impl Into<String>) -> Self {
        Self::across(vec![url.into()])
    }

    /// The workbook's API served by several instances, one URL each.
    pub fn across(urls: Vec<String>) -> Self {
        Self {
            urls,
            path: defaults::PATH.to_owned(),
            method: defaults::METHOD.to_owned(),
            key_header: defaults::KEY_HEADER.to_owned(),
            body: defaults::BODY.to_owned(),
            other_body: defaults::OTHER_BODY.to_owned(),
            id_pointer: defaults::ID_POINTER.to_owned(),
            headers: Vec::new(),
            burst: defaults::BURST,
            hang_bursts: defaults::HANG_BURSTS.to_vec(),
            timeout: Duration::from_millis(defaults::TIMEOUT_MS),
            long_key_length: defaults::LONG_KEY_LENGTH,
            big_body_bytes: defaults::BIG_BODY_BYTES,
            database_url: None,
            count_sql: None,
            allow_remote: false,
            skip: Vec::new(),
        }
    }

    /// Counts effects in `database_url` with `count_sql`.
    pub fn counting(
        mut self,
        database_url: impl Into<String>,
        count_sql: impl Into<String>,
    ) -> Self {
        self.database_url = Some(database_url.into());
        self.count_sql = Some(count_sql.into());
        self
    }

    /// Checks the options that a run would otherwise trip on halfway.
    pub fn validate(&self) -> Result<(), ProbeError> {
        let bad = |id: &str, args: &[(&str, Arg)]| Err(ProbeError::Options(mistake(id, args)));
        let given = |value: &str| Arg::from(format!("{value:?}"));
        if self.urls.is_empty() {
            return bad("probe-mistake-no-url", &[]);
        }
        if !self.body.contains("{n}") {
            return bad(
                "probe-mistake-body-without-n",
                &[("body", given(&self.body))],
            );
        }
        if serde_json::from_str::<serde_json::Value>(&self.body.replace("{n}", "1")).is_err() {
            return bad(
                "probe-mistake-body-not-json",
                &[("body", given(&self.body))],
            );
        }
        if self.other_body.replace("{n}", "1") == self.body.replace("{n}", "1") {
            return bad("probe-mistake-same-bodies", &[]);
        }
        if !self.id_pointer.is_empty() && !self.id_pointer.starts_with('/') {
            return bad(
                "probe-mistake-id-pointer",
                &[("pointer", given(&self.id_pointer))],
            );
        }
        if !self.path.starts_with('/') {
            return bad("probe-mistake-path", &[("path", given(&self.path))]);
        }
        let sizes = 2..=200;
        if !sizes.contains(&self.burst) || self.hang_bursts.iter().any(|n| !sizes.contains(n)) {
            return bad("probe-mistake-burst-size", &[]);
        }
        if self.database_url.is_some() != self.count_sql.is_some() {
            return bad("probe-mistake-count-alone", &[]);
        }
        Ok(())
    }

    /// The body for scenario `n`.
    pub fn body_for(&self, n: u64) -> String {
        self.body.replace("{n}", &n.to_string())
    }

    /// The other body for scenario `n`.
    pub fn other_body_for(&self, n: u64) -> String {
        self.other_body.replace("{n}", &n.to_string())
    }
}

/// A URL the probe can send to: `http://host[:port][/base]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedUrl {
    /// As written, without brackets for IPv6.
    pub host: String,
    pub port: u16,
    /// Without a trailing slash; empty for none.
    pub base_path: String,
}

/// Parses `http://host[:port][/path]`.
pub fn parse_url(url: &str) -> Result<ParsedUrl, ProbeError> {
    let bad = |id: &str| ProbeError::BadUrl(mistake(id, &[("url", Arg::from(format!("{url:?}")))]));
    if url.starts_with("https://") {
        return Err(bad("probe-mistake-url-https"));
    }
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| bad("probe-mistake-url-scheme"))?;
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| bad("probe-mistake-url-bracket"))?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(bad("probe-mistake-url-no-host"));
    }
    let port = match port {
        Some(port) => port.parse().map_err(|_| bad("probe-mistake-url-port"))?,
        None => 80,
    };
    Ok(ParsedUrl {
        host: host.to_owned(),
        port,
        base_path: path.trim_end_matches('/').to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gives_host_port_and_base_path() {
        assert_eq!(
            parse_url("http://127.0.0.1:8080/api/").expect("valid"),
            ParsedUrl {
                host: "127.0.0.1".to_owned(),
                port: 8080,
                base_path: "/api".to_owned()
            }
        );
        assert_eq!(parse_url("http://[::1]:3000").expect("valid").host, "::1");
        assert_eq!(parse_url("http://localhost").expect("valid").port, 80);
    }

    #[test]
    fn https_and_other_schemes_are_refused_with_the_fix() {
        for url in [
            "https://127.0.0.1:8443",
            "127.0.0.1:8080",
            "http://:80",
            "http://h:x",
        ] {
            assert!(
                matches!(parse_url(url), Err(ProbeError::BadUrl(_))),
                "{url}"
            );
        }
    }

    #[test]
    fn the_default_options_are_valid() {
        assert!(Options::new("http://127.0.0.1:8080").validate().is_ok());
    }
}
