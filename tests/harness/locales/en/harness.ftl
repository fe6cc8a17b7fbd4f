# What the test harness says to the learner (its tables, summaries, notes and
# panics), in English. Its twin, ../pt-BR/harness.ftl, holds the same ids (a test
# checks). The facts are arguments: figures, SQL, SQLSTATEs, names, an error's own
# words.

## A burst and its outcome (burst.rs)

burst-what = { $count } concurrent calls
bound-exceeded = { $what } did not finish within { $seconds } s: something waits forever (a lock, or a pool with no free connection)
reply-status = { $status }
reply-pool-timed-out = error: pool timed out
reply-unique-violation = error: unique violation (23505)
reply-lock-timeout = error: lock timeout (55P03)
reply-other-error = error: { $error }
outcome-column-requests = requests
outcome-column-payments = payments created
outcome-column-replies = replies
outcome-column-distinct-bodies = distinct bodies
outcome-line = { $requests } requests: { $payments ->
    [one] 1 payment
   *[other] { $payments } payments
}; { $replies }; { $bodies ->
    [one] 1 distinct body
   *[other] { $bodies } distinct bodies
}
outcome-replies-part = { $count } × { $kind }

## Values the tests record, as the runner shows them beside the predictions
## (the recorded value is the id's end: `observed-paid-again` is "paid again")

observed-replayed = replayed
observed-refused = refused
observed-paid-again = paid again
observed-other = other
observed-none = none
observed-replaced = replaced
observed-a-s-answer = A's answer
observed-own-payment = own payment
observed-new-payment = new payment

## A test's database (db.rs)

target-server = the server
target-test-database = the test database
target-template = a template database
run-again-stage = `cargo workbook stage { $number }`
run-again-tests = the tests
db-budget-closed = harness: the connection budget closed ({ $error }); run the tests again
db-cannot-connect = harness: cannot connect to { $target }: { $error }; run the tests again (`cargo workbook doctor` shows which server they use)
db-create-denied = harness: could not create { $target }: { $why }
db-cannot-create = harness: could not create { $target }: { $error }; run the tests again (`cargo workbook doctor` shows which server they use)
db-migration =
    The migration in { $file } does not apply: { $error }
    Fix the SQL in that file and run { $again } again.
db-registry-poisoned = harness: a test panicked while it registered a template database; run the tests again
db-logins-too-slow = harness: the server let only { $opened } of { $wanted } connections log in within { $seconds } s (before the test began: not a fault of the code under test)
db-connections-not-opened = harness: could not open { $wanted } connections: { $error }
db-opening-failed = harness: opening a connection failed: { $error }
db-cannot-connect-to = harness: cannot connect to the test database { $name }: { $error }
db-arranging-failed = harness: arranging the test failed on { $sql }: { $error }
db-count-failed = harness: { $sql } failed: { $error }

## The pool and the server's sessions, for a failure message (db.rs `describe`)

pool-state = pool: { $open } open of { $max } at most, { $idle } idle
pool-no-sessions = server: no sessions on this database
pool-sessions = server sessions (pg_stat_activity): { $sessions }
pool-session = { $count } { $state }
pool-session-client-read = { $count } { $state } (wait_event ClientRead: waiting for the application's next command, not for a lock)
pool-session-waiting = { $count } { $state } waiting on { $wait }
pool-activity-unavailable = pg_stat_activity unavailable: { $error }
pool-activity-silent = pg_stat_activity did not answer within 2 s

## Gates, held requests (gate.rs)

gate-cannot-install = harness: could not install the payment gate: { $error }
gate-cannot-close = harness: could not close the payment gate: { $error }
gate-cannot-watch = harness: could not watch the server's sessions: { $error }
gate-what-reach = { $count ->
    [one] 1 request
   *[other] { $count } requests
} to reach the payment gate
gate-what-first-reach = the first request to reach the payment gate
gate-what-lock-waiters = { $count ->
    [one] 1 duplicate
   *[other] { $count } duplicates
} to wait on the key's lock
gate-what-duplicates-arrive = { $count ->
    [one] 1 duplicate
   *[other] { $count } duplicates
} to arrive while the first request is held
gate-what-calls-one-key = { $count } calls with one key
gate-waited-held = waited { $seconds } s for { $what }: { $held } session(s) held at the payment gate, { $waiting } waiting on a key's lock
gate-ended-first = waiting for { $what }: the request ended without getting there (see its panic or its answer above; a todo!() not yet written?)
gate-waited-saw = waited { $seconds } s for { $what }, saw { $seen }

## The fake payment provider (provider.rs)

provider-request-not-held = request { $number } ended without being held at the fake provider ({ $held } held): it never called the provider, and answered from the database instead
provider-waited-held = waited { $seconds } s for { $count ->
    [1] 1 request
   *[other] { $count } requests
} to be held at the fake provider, saw { $held }: did the route call the provider (POST /charges on the URL it was given)?

## HTTP calls (http.rs)

http-no-free-port = harness: no free port on 127.0.0.1 for the server: { $error }
http-server-stopped = the server stopped: { $error }
http-timed-out = no answer within { $seconds } s
http-no-answer = no HTTP answer ({ $error })
http-not-json = status { $status } with a body that is not JSON: { $body }
http-got = { $call } got { $error }
http-got-server-panicked = { $call } got { $error }; did the server panic (a todo!() not yet written)?

## The wire relay (wire.rs)

wire-no-shell = harness: the wire relay could not start sh: { $error }
wire-no-directory = harness: the wire relay could not create { $dir }: { $error }
wire-cannot-listen = harness: the wire relay could not listen in { $dir }: { $error }

## Scenarios several stages run (scenario.rs)

scenario-first-request-failed = the first request with { $key } must pay, and it failed: { $error }
scenario-retry-failed = the retry with { $key }, sent after the first answer, must be answered, and it failed: { $error }
scenario-key-failed = a request with { $key } (a new key) must pay, and it failed: { $error }
