//! Which environment variables cargo sets for the processes it runs. Shared by
//! the launcher and the runner (crates/runner/src/main.rs includes this file):
//! both start cargo again from a process that cargo started.

/// The variables cargo sets for the processes it runs (`cargo run`, tests,
/// build scripts), as opposed to those that configure cargo.
pub(crate) fn is_set_by_cargo_for_its_child(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_MANIFEST_LINKS",
        "CARGO_CRATE_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "CARGO_MAKEFLAGS",
        "OUT_DIR",
    ];
    EXACT.contains(&name)
        || name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_BIN_")
        || name.starts_with("CARGO_CFG_")
}

#[cfg(test)]
mod tests {
    use super::is_set_by_cargo_for_its_child as dropped;

    #[test]
    fn only_what_cargo_sets_for_its_children_is_dropped() {
        assert!(dropped("CARGO_MANIFEST_DIR"));
        assert!(dropped("CARGO_PKG_NAME"));
        assert!(dropped("CARGO_BIN_EXE_workbook"));
        assert!(!dropped("CARGO_TARGET_DIR"));
        assert!(!dropped("CARGO_HOME"));
        assert!(!dropped("CARGO"));
    }
}
