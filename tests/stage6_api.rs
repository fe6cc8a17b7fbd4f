//! `cargo workbook api` (`--stage 6`): stage 6's route served for real
//! (tests/api_server.rs says how). Shared by stage 6's exercise and model answer
//! (`--solution`), like their tests.

#[path = "api_server.rs"]
mod api_server;

use harness::reference_schema;

fn main() -> std::process::ExitCode {
    api_server::main(api_server::Api {
        stage: 6,
        schema: reference_schema(),
        keys_table: "idempotency_keys",
        token: None,
        router: stage6::router,
        background: None,
    })
}
