# What tests/stage8_key_per_client.rs says, in English. Each message is named
# after what it says; the facts (figures, answers, headers, SQLSTATEs, problem
# types, the outcome's line) are arguments.

payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}
a-refusal-is-a-problem = a refusal is an RFC 9457 problem: its content type must be "{ $wanted }", and it is "{ $got }"
the-problem-type-says-what-was-wrong = the problem's type must say what was wrong, { $wanted }: the answer was { $got }
a-refused-request-stores-no-key = a refused request must store no key, yet { $keys ->
    [one] 1 key row was
   *[other] { $keys } key rows were
} written: refuse before the transaction
a-refused-request-pays-nothing = a refused request must pay nothing, yet { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made: refuse before the transaction
one-payment-for-each-client = one payment for each client: client A has { $a }, client B has { $b }
with-the-authorization = with `Authorization: { $value }`
with-no-authorization = with no Authorization
with-the-key = with `Idempotency-Key: { $key }`
with-no-key = with no Idempotency-Key
a-request-is-refused = a request { $authorization } and { $key } must be refused with { $status }: it got { $got }
a-401-says-how-to-authenticate = a 401 says how to authenticate: its WWW-Authenticate header must start with Bearer (RFC 9110 and RFC 6750); the answer was { $got }
a-body-over-the-limit-is-a-413 = a body of { $megabytes } MB from a known client is over the limit (axum reads at most { $limit } MB): it must be refused with 413 Payload Too Large; it got { $got }
no-answer-after-the-body-stopped = no answer { $seconds } s after the body stopped arriving: the route waits for ever. Bound the body's read, as stage 6 does
a-body-that-stops-arriving-is-a-408 = a body that stops arriving is a 408 Request Timeout: the request got { $got }
the-server-closes-after-a-408 = the server must close the connection after a 408: the rest of the body may still come, and the next request could not be told from it
each-clients-first-request-pays = each client's first request with the key { $key } must pay and be answered 201: A got { $a }, B got { $b }
two-clients-two-payments = two clients, two payments, even with the same key text: A and B both got the payment id { $id }. A key belongs to its client: PRIMARY KEY (client_id, key). Run `cargo workbook hint 8`
a-repeat-replays-its-own-clients-answer = a repeat replays its own client's answer: read the stored answer by (client_id, key). A's first answer was { $a }, its repeat got { $again_a }; B's first answer was { $b }, its repeat got { $again_b }
the-repeats-paid-nothing = the repeats must pay nothing: one payment for each client, and client A has { $a }, client B has { $b }
a-clients-twenty-answers-are-one-201 = client { $name }'s 20 answers must all be one 201 with one body: they were { $statuses }, with { $bodies } different bodies
one-of-a-clients-answers-is-the-first = client { $name }'s 20 answers must be one first answer and 19 replays that say Idempotent-Replayed; { $firsts } of them came without that header, not 1
a-and-b-each-get-their-own-payment = A and B must each get their own payment: both got the payment id { $id }
two-clients-one-key-each-two-payments = two clients, one key each: two payments, and { $payments ->
    [one] 1 was
   *[other] { $payments } were
} made
as-first-request-pays = A's first request with the key { $key } must pay: it got { $got }
b-never-receives-as-answer = B must never receive A's stored answer (A's payment id and amount): that is a data leak. B got { $got }. Read and store the key by (client_id, key)
bs-key-is-bs-own = B's key is B's own: its first use pays, and is answered 201; B got { $got }
bs-answer-is-no-replay = B's answer is no replay, yet it says Idempotent-Replayed: { $got }
the-first-request-is-answered-201 = the first request must be answered 201: it got { $got }
the-first-answer-is-no-replay = the first answer is no replay, yet it says Idempotent-Replayed: { $got }
a-repeat-replays-the-201 = a repeat with the same key and body must replay the first 201 and its body: the first got { $first }, the repeat { $again }
a-replay-says-so = a replay says so, with Idempotent-Replayed: true; the repeat got { $got }
another-body-is-refused-with-422 = the key was used with another body: the request must be refused with 422; it got { $got }
a-refusal-is-no-replay = a refusal is an answer of its own, not a replay, yet it says Idempotent-Replayed: { $got }
a-new-key-is-answered-201 = a request with a new key must be answered 201: it got { $got }
the-triggers-table-can-be-read = the harness could not read the trigger's table: { $error }
the-payment-runs-under-the-databases-lock-timeout = the payment must run under the database's own lock_timeout (7s here), and it ran under: { $seen }. Set it back to what `current_setting('lock_timeout')` said before the reserving INSERT, not to '0', which would override the database's and the role's settings. Run `cargo workbook hint 8`.
one-key-one-payment-at-any-isolation-level = one key, one payment, at any isolation level: { $outcome }
the-duplicates-are-run-again-into-replays = all 20 requests must get the 201: each duplicate's first transaction fails with a serialization failure (SQLSTATE 40001), has committed nothing, and is run again; it then replays the 201. Run `cargo workbook hint 8`. ({ $outcome })
the-same-payment-replayed = the 20 bodies must be the same payment, replayed: { $outcome }
with-one-attempt-the-duplicates-fail-with-a-500 = with `attempts: 1` nothing is run again: beside the one 201, the 19 duplicates that waited on the key must fail with 40001, answered as a 500 problem (nothing charged, retry). ({ $outcome })
a-failed-payment-fails-the-call = the payment INSERT fails, so create_payment must fail: it returned { $got }
rolled-back-before-the-error-is-returned = create_payment returned its error while its transaction was still open (the sessions: { $sessions }). Dropping `tx` (`?`) only queues the ROLLBACK, sent when the connection goes back to the pool; until then the key stays locked. Roll back before returning the error, as stage 5 does.
the-first-request = the first request
the-first-requests-task-ends = the first request's task panicked: { $error }
a-duplicate-in-flight-is-told-409 = a duplicate of a request still in flight waits the bounded 250 ms on the key, then is told 409 (the key's lock timed out: SQLSTATE 55P03): it got { $got }
the-first-request-pays-once-let-go = the first request must pay once let go: it got { $got }
every-run-fails-so-create-payment-does = every run fails with SQLSTATE { $sqlstate }, so create_payment must return that error: it returned { $got }
the-transaction-runs-at-most-the-configured-attempts = SQLSTATE { $sqlstate }: the transaction should have run { $runs ->
    [one] once
   *[other] { $runs } times
} (config.attempts is 3; only 40001 and 40P01 are run again), and it ran { $ran ->
    [one] once
   *[other] { $ran } times
}
