//! `cargo workbook api --stage 9`: stage 9's routes served for real
//! (tests/api_server.rs says how), with one client whose token the printed
//! commands send. Shared by stage 9's exercise and model answer (`--solution`),
//! like their tests.

#[path = "api_server.rs"]
mod api_server;

use harness::Schema;

fn main() -> std::process::ExitCode {
    api_server::main(api_server::Api {
        stage: 9,
        schema: Schema::new(stage9::MIGRATION_SOURCE, stage9::MIGRATION),
        token: Some(api_server::TOKEN),
        router: |pool| stage9::router_with(pool, stage9::Config::default()),
    })
}
