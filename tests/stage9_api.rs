//! `cargo workbook api --stage 9`: stage 9's service served for real
//! (tests/api_server.rs says how), with one client whose token the printed
//! commands send: the route, and the background reaper beside it, as the book
//! describes the stage's server. Shared by stage 9's exercise and model answer
//! (`--solution`), like their tests; stage 9's test file includes it, to check
//! that the reaper runs.

#[path = "api_server.rs"]
pub(crate) mod api_server;

use harness::Schema;

#[allow(dead_code)] // the tests that include this file call api() alone
fn main() -> std::process::ExitCode {
    api_server::main(api())
}

/// Stage 9's service, with its default settings: keys kept 24 hours, the reaper
/// every minute.
pub fn api() -> api_server::Api {
    api_server::Api {
        stage: 9,
        schema: Schema::new(stage9::MIGRATION_SOURCE, stage9::MIGRATION),
        keys_table: "idempotency_keys",
        token: Some(api_server::TOKEN),
        router: |pool| stage9::router_with(pool, stage9::Config::default()),
        background: Some(api_server::Background {
            start: |pool| match stage9::spawn_reaper(pool, stage9::Config::default()) {
                Ok(reaper) => Box::new(reaper),
                // The default settings are valid: stage 9's tests check them.
                Err(e) => panic!("stage 9's default settings: {e}"),
            },
            describe: || {
                let config = stage9::Config::default();
                harness::t!(
                    api_server::MESSAGES,
                    "api-the-reaper",
                    every = config.reap_every.as_secs(),
                    hours = config.retention.as_secs() / 3600
                )
            },
        }),
    }
}

impl api_server::Running for stage9::Reaper {
    fn is_running(&self) -> bool {
        stage9::Reaper::is_running(self)
    }
}
