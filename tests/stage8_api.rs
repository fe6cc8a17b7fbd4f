//! `cargo workbook api --stage 8`: stage 8's routes served for real
//! (tests/api_server.rs says how), with one client whose token the printed
//! commands send. Shared by stage 8's exercise and model answer (`--solution`),
//! like their tests.

#[path = "api_server.rs"]
mod api_server;

use harness::Schema;

fn main() -> std::process::ExitCode {
    api_server::main(api_server::Api {
        stage: 8,
        schema: Schema::new(stage8::MIGRATION_SOURCE, stage8::MIGRATION),
        keys_table: "idempotency_keys",
        token: Some(api_server::TOKEN),
        router: stage8::router,
        background: None,
    })
}
