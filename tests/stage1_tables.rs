//! Stage 1: the tables. The same tests run against the exercise and the solution.
//!
//! They check what matters, not spelling: `INT` and `INTEGER` are the same type,
//! and the order of the columns is free.

use std::time::{Duration, Instant};

use harness::{Schema, TestDb};
use harness::{catalogue, t};
use rstest::rstest;
use sqlx::{Connection, PgConnection, Row};

// What these tests say, in the learner's language (tests/locales/*/stage1_tables.ftl).
catalogue!(static MESSAGES = "locales", "stage1_tables");

fn schema() -> Schema {
    Schema::new(stage1::MIGRATION_FILE, stage1::MIGRATION_SQL)
}

/// One column as `information_schema` describes it.
#[derive(Debug)]
struct Column {
    data_type: String,
    nullable: bool,
    identity: Option<String>,
    default: Option<String>,
}

/// `result`, or the test fails saying that the server could not answer `what`.
fn answered<T>(result: Result<T, sqlx::Error>, what: &str) -> T {
    result.unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-server-did-not-answer",
                what = what,
                error = e.to_string()
            )
        )
    })
}

async fn column(conn: &mut PgConnection, table: &str, name: &str) -> Column {
    let tables: i64 = answered(
        sqlx::query_scalar(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name = $1",
        )
        .bind(table)
        .fetch_one(&mut *conn)
        .await,
        "information_schema.tables",
    );
    assert!(
        tables == 1,
        "{}",
        t!(
            MESSAGES,
            "there-is-no-table-yet",
            table = table,
            file = stage1::MIGRATION_FILE
        )
    );
    let row = sqlx::query(
        "SELECT data_type, is_nullable = 'YES' AS nullable,
                CASE WHEN is_identity = 'YES' THEN identity_generation END AS identity,
                column_default
         FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 AND column_name = $2",
    )
    .bind(table)
    .bind(name)
    .fetch_optional(&mut *conn)
    .await;
    let Some(row) = answered(row, "information_schema.columns") else {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "the-table-has-no-such-column",
                table = table,
                column = name,
                file = stage1::MIGRATION_FILE
            )
        );
    };
    Column {
        data_type: row.get("data_type"),
        nullable: row.get("nullable"),
        identity: row.get("identity"),
        default: row.get("column_default"),
    }
}

impl Column {
    /// Fails, in the learner's words, when the column's type or NULL rule is not
    /// the one asked for.
    fn must_be(&self, table: &str, name: &str, data_type: &str, nullable: bool) {
        let column = format!("{table}.{name}");
        assert!(
            self.data_type == data_type,
            "{}",
            t!(
                MESSAGES,
                "the-column-must-be-of-type",
                column = &column,
                wanted = data_type,
                yours = &self.data_type
            )
        );
        if nullable {
            assert!(
                self.nullable,
                "{}",
                t!(MESSAGES, "the-column-must-accept-null", column = &column)
            );
        } else {
            assert!(
                !self.nullable,
                "{}",
                t!(MESSAGES, "the-column-must-be-not-null", column = &column)
            );
        }
    }
}

/// A primary key in words: "(a, b)", or that there is none.
fn described(primary_key: &[String]) -> String {
    if primary_key.is_empty() {
        t!(MESSAGES, "the-table-has-no-primary-key")
    } else {
        t!(
            MESSAGES,
            "its-primary-key-is",
            columns = primary_key.join(", ")
        )
    }
}

async fn primary_key(conn: &mut PgConnection, table: &str) -> Vec<String> {
    answered(
        sqlx::query_scalar(
            "SELECT a.attname::text FROM pg_index i
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
             WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY a.attname",
        )
        .bind(table)
        .fetch_all(conn)
        .await,
        "pg_index",
    )
}

#[rstest]
#[case::id("id", "bigint", false)]
#[case::order_id("order_id", "bigint", false)]
#[case::amount("amount", "integer", false)]
#[tokio::test]
async fn payments_has_the_column(
    #[case] name: &str,
    #[case] data_type: &str,
    #[case] nullable: bool,
) {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    let column = column(&mut conn, "payments", name).await;
    column.must_be("payments", name, data_type, nullable);
}

#[rstest]
#[case::key("key", "text", false)]
#[case::body_hash("body_hash", "text", false)]
#[case::status("status", "integer", true)]
#[case::response("response", "jsonb", true)]
#[case::created_at("created_at", "timestamp with time zone", false)]
#[tokio::test]
async fn idempotency_keys_has_the_column(
    #[case] name: &str,
    #[case] data_type: &str,
    #[case] nullable: bool,
) {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    let column = column(&mut conn, "idempotency_keys", name).await;
    column.must_be("idempotency_keys", name, data_type, nullable);
}

#[tokio::test]
async fn payment_ids_are_generated_by_the_database() {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    let id = column(&mut conn, "payments", "id").await;
    let yours = match id.identity.as_deref() {
        Some("ALWAYS") => None,
        Some(other) => Some(t!(MESSAGES, "yours-is-generated-as-identity", how = other)),
        None => Some(t!(MESSAGES, "yours-is-not-an-identity-column")),
    };
    if let Some(yours) = yours {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "payments-id-must-be-generated-always",
                yours = yours
            )
        );
    }
    let key = primary_key(&mut conn, "payments").await;
    assert!(
        key == ["id"],
        "{}",
        t!(
            MESSAGES,
            "payments-id-must-be-the-primary-key",
            yours = described(&key)
        )
    );
    let ids: Vec<i64> = sqlx::query_scalar(
        "INSERT INTO payments (order_id, amount) VALUES (1, 100), (1, 100) RETURNING id",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{}",
            t!(
                MESSAGES,
                "payments-must-accept-an-insert-without-an-id",
                error = e.to_string()
            )
        )
    });
    assert!(
        ids.len() == 2 && ids[0] != ids[1],
        "{}",
        t!(
            MESSAGES,
            "two-payments-get-two-ids",
            ids = format!("{ids:?}")
        )
    );
}

#[tokio::test]
async fn the_key_is_the_primary_key_of_idempotency_keys() {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    column(&mut conn, "idempotency_keys", "key").await;
    let key = primary_key(&mut conn, "idempotency_keys").await;
    assert!(
        key == ["key"],
        "{}",
        t!(
            MESSAGES,
            "the-key-must-be-the-primary-key",
            yours = described(&key)
        )
    );
}

// ANCHOR: same_key_twice
#[tokio::test]
async fn inserting_the_same_key_twice_is_a_unique_violation() {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    column(&mut conn, "idempotency_keys", "key").await;
    let insert = "INSERT INTO idempotency_keys (key, body_hash) VALUES ('key-1', 'hash')";
    sqlx::query(insert)
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "the-first-insert-of-a-key-must-work",
                    error = e.to_string()
                )
            )
        });
    let second = sqlx::query(insert).execute(&mut conn).await;
    let code = match &second {
        Err(sqlx::Error::Database(e)) => e.code().map(|c| c.into_owned()),
        _ => None,
    };
    let rows: i64 = answered(
        sqlx::query_scalar("SELECT count(*) FROM idempotency_keys")
            .fetch_one(&mut conn)
            .await,
        "SELECT count(*) FROM idempotency_keys",
    );
    let sqlstate = code.clone().unwrap_or_else(|| {
        if rows == 2 {
            "none".into()
        } else {
            "replaced".into()
        }
    });
    harness::observe(
        "stage1.same_key_twice",
        &serde_json::json!({ "sqlstate": sqlstate }),
    );
    assert!(
        code.as_deref() == Some("23505"),
        "{}",
        t!(
            MESSAGES,
            "a-second-insert-of-the-key-must-fail-with-23505",
            yours = match (&second, rows) {
                (Ok(_), 2) => t!(MESSAGES, "yours-succeeded-with-two-rows"),
                (Ok(_), _) => t!(MESSAGES, "yours-succeeded-and-replaced-the-row"),
                (Err(e), _) => t!(MESSAGES, "yours-failed-otherwise", error = e.to_string()),
            }
        )
    );
}
// ANCHOR_END: same_key_twice

/// Sessions of this database waiting for another transaction to end (a key row it
/// inserted and has not committed yet).
const WAITING_ON_A_TRANSACTION: &str = "SELECT count(*) FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'
       AND wait_event = 'transactionid'";

/// What an `INSERT` of a key came to: `succeeds`, `fails` (a unique violation), or
/// still `waits`.
fn insert_result(result: &Result<u64, sqlx::Error>) -> &'static str {
    match result {
        Ok(_) => "succeeds",
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("23505") => "fails",
        Err(e) => {
            panic!("an INSERT of a key failed with something other than a unique violation: {e}")
        }
    }
}

// ANCHOR: uncommitted_key
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_insert_of_a_key_another_transaction_holds_waits_and_gets_the_key_if_it_rolls_back() {
    let db = TestDb::create(schema()).await;
    let mut first = db.connect().await;
    column(&mut first, "idempotency_keys", "key").await;
    let insert = "INSERT INTO idempotency_keys (key, body_hash) VALUES ('key-1', 'hash')";
    let mut open = first.begin().await.expect("a transaction begins");
    sqlx::query(insert)
        .execute(&mut *open)
        .await
        .unwrap_or_else(|e| panic!("the first INSERT of a key must work, and yours failed: {e}"));

    // A second session inserts the same key while the first transaction is open.
    let mut second = db.connect().await;
    let second_insert = tokio::spawn(async move {
        let result = sqlx::query(insert)
            .execute(&mut second)
            .await
            .map(|done| done.rows_affected());
        let _ = second.close().await;
        result
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    let while_open = loop {
        if second_insert.is_finished() {
            break None;
        }
        if db.count(WAITING_ON_A_TRANSACTION).await >= 1 {
            break Some("waits");
        }
        assert!(
            Instant::now() < deadline,
            "the second INSERT neither ended nor waited on the first transaction within 10 s"
        );
        // Polling a condition, bounded by the deadline above: not timing a race.
        tokio::time::sleep(Duration::from_millis(5)).await;
    };

    // Then the first transaction rolls back: its key row never existed.
    open.rollback()
        .await
        .expect("the first transaction rolls back");
    let second_result = harness::within(
        Duration::from_secs(10),
        "the second INSERT, once the first transaction rolled back",
        second_insert,
    )
    .await
    .expect("the second INSERT's task ends");
    let after_rollback = insert_result(&second_result);
    let while_open = while_open.unwrap_or(after_rollback);
    harness::observe(
        "stage1.uncommitted_key",
        &serde_json::json!({ "while_open": while_open, "after_rollback": after_rollback }),
    );
    assert_eq!(
        while_open, "waits",
        "a second INSERT of a key another transaction has inserted and not committed must \
         wait for that transaction to end: the primary key's unique index cannot tell yet \
         whether the key is taken. Yours {while_open} at once: is `key` the PRIMARY KEY?"
    );
    assert_eq!(
        after_rollback, "succeeds",
        "the first transaction rolled back, so the key was never taken: the waiting INSERT \
         goes ahead. Yours {after_rollback}"
    );
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM idempotency_keys")
        .fetch_one(&mut first)
        .await
        .expect("the keys can be counted");
    assert_eq!(rows, 1, "one row for the key: the second session's");
}
// ANCHOR_END: uncommitted_key

#[tokio::test]
async fn a_key_can_be_reserved_before_its_response_is_known() {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    column(&mut conn, "idempotency_keys", "created_at").await;
    sqlx::query("INSERT INTO idempotency_keys (key, body_hash) VALUES ('key-1', 'hash')")
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                t!(
                    MESSAGES,
                    "a-key-must-be-insertable-with-its-hash-alone",
                    error = e.to_string()
                )
            )
        });
    let row = answered(
        sqlx::query(
            "SELECT status IS NULL AS no_status, response IS NULL AS no_response,
                    created_at > now() - interval '1 minute' AS recent
             FROM idempotency_keys WHERE key = 'key-1'",
        )
        .fetch_one(&mut conn)
        .await,
        "SELECT ... FROM idempotency_keys WHERE key = 'key-1'",
    );
    for column in ["status", "response"] {
        assert!(
            row.get::<bool, _>(format!("no_{column}").as_str()),
            "{}",
            t!(
                MESSAGES,
                "a-reserved-key-has-no-answer-yet",
                column = column
            )
        );
    }
    assert!(
        row.get::<bool, _>("recent"),
        "{}",
        t!(MESSAGES, "a-reserved-key-is-dated-now")
    );
    answered(conn.close().await, "the connection's close");
}

#[tokio::test]
async fn created_at_defaults_to_now() {
    let db = TestDb::create(schema()).await;
    let mut conn = db.connect().await;
    let created_at = column(&mut conn, "idempotency_keys", "created_at").await;
    let default = created_at.default.unwrap_or_default();
    assert!(
        default.contains("now()") || default.contains("CURRENT_TIMESTAMP"),
        "{}",
        t!(
            MESSAGES,
            "created-at-defaults-to-now",
            yours = format!("{default:?}")
        )
    );
}
