# What tests/stage10_one_round_trip.rs says, in English. Each message is named
# after what it says; the facts (figures, answers, what went over the wire) are
# arguments.

a-new-key-must-be-paid = a request with a new key must pay, and it failed: { $error }
the-first-request-must-pay = the first request must pay, and it failed: { $error }
the-retry-must-be-answered = the retry must be answered, and it failed: { $error }
another-amount-must-be-answered = the request with the same key and another amount must be answered, and it failed: { $error }
a-retry-after-the-burst-must-be-answered = a retry after the burst must be answered, and it failed: { $error }
no-connection-through-the-relay = the harness could not open a connection through its wire relay: { $error }
a-new-key-is-answered-201 = a request with a new key must be answered 201: it got { $got }
one-statement-in-one-transaction = the key, the payment and the answer must be written by ONE statement in ONE transaction; saw { $writes } row write(s) from { $statements } statement(s) in { $transactions } transaction(s). Reserve the key, pay and store the answer in one data-modifying CTE. Run `cargo workbook hint 10`.
two-row-writes = a new key takes two row writes, the key row inserted complete (status and response in the same INSERT) and the payment: yours took { $writes } (an UPDATE of the key row is a third write)
the-answer-built-in-sql-is-reply-created = the answer built in SQL must be the one `Reply::created` builds, for the payment really made: { $expected }; yours was { $got }
a-new-key-is-paid-in-autocommit = a new key must be paid in autocommit: no BEGIN, no COMMIT, never a transaction block open. On the wire: { $wire }. Send the one statement on the pool itself (`.fetch_optional(pool)`), not inside `pool.begin()`: a single statement is its own transaction. Run `cargo workbook hint 10`.
one-statement-for-a-new-key = a new key must be paid by one statement executed. On the wire: { $wire }
twenty-requests-with-one-key-pay-once = 20 requests with one key must pay once: { $outcome }
the-first-request-pays = the first request must pay and be answered 201: it got { $got }
a-duplicate-gets-the-201-replayed-or-409 = duplicate { $number } must get the first request's 201, replayed, or 409 (still in flight); it got { $got }. When the statement returns no row, read the stored answer in a new statement: its snapshot cannot show the row committed while it waited. ({ $outcome })
a-retry-after-the-commit-replays-the-201 = once the first request committed, a retry must replay its 201: the first got { $first }, the retry { $retry }
duplicates-of-a-slow-request-are-told-409 = while the first request was still in flight, each of its 19 duplicates should be told 409 (retry later) within the bounded wait; { $count } were. Bound the reserving INSERT's wait with `set_config('lock_timeout', ..., true)` inside the statement, and answer 409 on SQLSTATE 55P03. Run `cargo workbook hint 10`.
duplicates-of-a-slow-request-are-answered-while-it-is-held = while the first request was still in flight, each of its 19 duplicates should be told 409 (retry later) within the bounded wait; they were not all answered while it was held ({ $count } × 409). Bound the reserving INSERT's wait with `set_config('lock_timeout', ..., true)` inside the statement, and answer 409 on SQLSTATE 55P03. Run `cargo workbook hint 10`.
another-key-is-not-starved = a request for another key must not be starved while the slow one is held: it got { $got }; { $state }
the-slow-request-completes-once-let-go = the slow request itself must complete once let go, under the database's own lock_timeout (put it back before the payment): it got { $got }
the-slow-request-and-the-other-key-pay = the slow request and the one for another key must each pay once: { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
a-retry-gets-the-stored-answer-byte-for-byte = a retry must get the stored status and body, byte for byte: the first got { $first }, the retry { $retry }. A 409 here means the key row was committed without its answer: in one statement, an UPDATE cannot see the row a sibling CTE inserted, so insert the key row complete. Run `cargo workbook hint 10`.
payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}
a-key-answered-before-replays-or-refuses = a key answered before: the retry must replay the 201 and another amount get 422; the retry got { $retry }, another amount { $other }
the-retry-is-answered-by-one-statement = the retry of a key committed before the request began must be answered by the statement itself, from the key row its snapshot shows: one statement, not a second one to read the answer. On the wire: { $wire }. Run `cargo workbook hint 10`.
another-amount-is-answered-by-one-statement = another amount for a key committed before the request began must be answered by the statement itself, from the key row its snapshot shows: one statement, not a second one to read the answer. On the wire: { $wire }. Run `cargo workbook hint 10`.
a-key-answered-before-takes-no-payment-id = the retry and the 422 took ids from the payments' sequence: the next payment got { $got } after { $paid }. For a key already answered, the statement must not reach `nextval`: nothing is paid, so no id is spent. Run `cargo workbook hint 10`.
another-body-is-refused-with-422 = the key was used with another body: it must be refused with 422, and nothing paid; it got { $got }
two-keys-are-two-payments = two keys are two operations, so two payments: both got the payment id { $id }
a-failed-payment-fails-the-call = the payment INSERT fails, so create_payment must fail: it returned { $got }
the-failed-payments-key-is-rolled-back = one statement is one transaction: the key it reserved must be rolled back with the failed payment, and { $keys } key(s) were left behind; a key left behind would refuse every retry
the-retry-pays-once-payments-work = once payments work again, the retry with the same key must pay: it got { $got }
