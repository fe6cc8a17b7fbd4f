//! `workbook-launcher`: what `cargo workbook` runs first (see launch.rs).

mod cargo_env;
mod launch;

fn main() -> std::process::ExitCode {
    launch::run(std::env::args_os().skip(1).collect())
}
