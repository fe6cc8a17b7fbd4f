//! `cargo workbook api --stage 12`: stage 12's routes served for real
//! (tests/api_server.rs says how), with one client whose token the printed
//! commands send. Shared by stage 12's exercise and model answer (`--solution`),
//! like their tests; stage 12's test file includes it, to check the table it
//! shows.

#[path = "api_server.rs"]
pub(crate) mod api_server;

use harness::Schema;

#[allow(dead_code)] // the tests that include this file call api() alone
fn main() -> std::process::ExitCode {
    api_server::main(api())
}

/// Stage 12's API: the layer's keys are in `idempotent_requests`.
pub fn api() -> api_server::Api {
    api_server::Api {
        stage: 12,
        schema: Schema::new(stage12::MIGRATION_SOURCE, stage12::MIGRATION),
        keys_table: "idempotent_requests",
        token: Some(api_server::TOKEN),
        router: stage12::router,
        background: None,
    }
}
