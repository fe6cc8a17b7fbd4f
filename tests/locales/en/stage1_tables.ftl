# What tests/stage1_tables.rs says when a table is not as stage 1 asks, in
# English. Each message is named after what it says; the facts (tables, columns,
# types, SQL, the server's own words) are arguments.

the-server-did-not-answer = the server did not answer on { $what }: { $error }
there-is-no-table-yet = There is no table `{ $table }` yet. Write `CREATE TABLE { $table } (...)` in { $file } (the comments there list its columns; `cargo workbook hint 1` gives a hint).
the-table-has-no-such-column = The table `{ $table }` has no column `{ $column }`. Add it in { $file } (names matter: later stages query them).
the-column-must-be-of-type = { $column } must be of type { $wanted }: yours is { $yours }
the-column-must-accept-null = { $column } must accept NULL (a request in flight has no answer yet): yours is NOT NULL
the-column-must-be-not-null = { $column } must be NOT NULL: yours accepts NULL
the-table-has-no-primary-key = the table has no primary key
its-primary-key-is = its primary key is ({ $columns })
yours-is-generated-as-identity = yours is GENERATED { $how } AS IDENTITY
yours-is-not-an-identity-column = yours is not an identity column
payments-id-must-be-generated-always = payments.id must be GENERATED ALWAYS AS IDENTITY, so that no INSERT can choose an id: { $yours }
payments-id-must-be-the-primary-key = payments.id must be the PRIMARY KEY: { $yours }
payments-must-accept-an-insert-without-an-id = payments must accept an INSERT without an id, and yours refused it: { $error }
two-payments-get-two-ids = two payments inserted without an id must get two ids of their own: yours got { $ids }
the-key-must-be-the-primary-key = idempotency_keys.key must be the PRIMARY KEY (it is what makes a second INSERT of a key wait, then fail): { $yours }
the-first-insert-of-a-key-must-work = the first INSERT of a key must work, and yours failed: { $error }
a-second-insert-of-the-key-must-fail-with-23505 = a second INSERT of the same key must fail with a unique violation (SQLSTATE 23505): yours { $yours }
yours-succeeded-with-two-rows = succeeded, and the table now has two rows for the key
yours-succeeded-and-replaced-the-row = succeeded, and replaced the first row
yours-failed-otherwise = failed with another error: { $error }
a-key-must-be-insertable-with-its-hash-alone = a key must be insertable with only its body hash (status and response come later, once the payment is made), and yours refused it: { $error }
a-reserved-key-has-no-answer-yet = a key inserted with only its body hash must have no { $column } yet (NULL), and yours got one: does `{ $column }` have a DEFAULT?
a-reserved-key-is-dated-now = a key inserted without created_at must be dated now: give idempotency_keys.created_at DEFAULT now()
created-at-defaults-to-now = idempotency_keys.created_at must have DEFAULT now(); its default is { $yours }
