//! What a test is told when its database cannot be made: the learner's migration
//! that does not apply names its file and the command to run again, for every
//! test of that schema, and leaves other schemas alone.

use harness::{Schema, TestDb, TestDbError, reference_schema};

/// A stage's migration with a mistake in it (the table is never closed).
const BROKEN: Schema = Schema::new(
    "exercises/stage1-tables/migrations/0001_tables.sql",
    "CREATE TABLE payments (id bigserial PRIMARY KEY, amount integer NOT NULL",
);

#[tokio::test]
async fn a_migration_that_does_not_apply_names_its_file_and_the_stage_to_run_again() {
    let Err(why) = TestDb::try_create(BROKEN).await else {
        panic!("a migration with a syntax error must not give a test database");
    };
    let TestDbError::Template(failed) = &why else {
        panic!("the schema's template is what failed: {why:?}");
    };
    assert!(
        matches!(**failed, TestDbError::Migration { file, .. } if file == BROKEN.source),
        "the migration failed, in the learner's file: {failed:?}"
    );
    let message = why.to_string();
    assert!(
        message.starts_with(
            "The migration in exercises/stage1-tables/migrations/0001_tables.sql does not apply: "
        ) && message.contains("syntax error"),
        "the message names the file and PostgreSQL's reason: {message}"
    );
    assert!(
        message.ends_with("Fix the SQL in that file and run `cargo workbook stage 1` again."),
        "the message names the command that runs the stage again: {message}"
    );

    // Every test of that schema is told the same, without migrating again.
    let again = TestDb::try_create(BROKEN)
        .await
        .err()
        .expect("the second test of a broken schema fails too");
    assert_eq!(
        again.to_string(),
        message,
        "a second test of the broken schema is told the same as the first"
    );

    // Another schema is not affected.
    let db = TestDb::try_create(reference_schema())
        .await
        .expect("a database of the reference schema");
    assert_eq!(
        db.payment_count().await,
        0,
        "a database of another schema is made, empty"
    );
}
