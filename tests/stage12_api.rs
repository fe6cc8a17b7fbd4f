//! `cargo workbook api --stage 12`: stage 12's routes served for real
//! (tests/api_server.rs says how), with one client whose token the printed
//! commands send. Shared by stage 12's exercise and model answer (`--solution`),
//! like their tests.

#[path = "api_server.rs"]
mod api_server;

use harness::Schema;

fn main() -> std::process::ExitCode {
    api_server::main(api_server::Api {
        stage: 12,
        schema: Schema::new(stage12::MIGRATION_SOURCE, stage12::MIGRATION),
        token: Some(api_server::TOKEN),
        router: stage12::router,
        background: None,
    })
}
