//! Stage 1: the tables. The work is in `migrations/0001_tables.sql`.

/// Where the migration lives, as the learner sees it from the repository's root.
pub const MIGRATION_FILE: &str = "exercises/stage1-tables/migrations/0001_tables.sql";

/// The migration's SQL, applied to every test database of this stage.
pub const MIGRATION_SQL: &str = include_str!("../migrations/0001_tables.sql");
