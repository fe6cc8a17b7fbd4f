# What tests/stage5_small_pool.rs says, in English. Each message is named after
# what it says; the facts (figures, answers, the pool's state, the outcome's
# line) are arguments.

deadlock = DEADLOCK: { $count } of { $requests } requests waited { $seconds } s for a connection and gave up.
    While they waited: { $state }.
    Every connection was held by a request whose transaction was still open while it asked the pool for another one: the pool is deadlocked, not PostgreSQL (its sessions are idle in transaction). Run `cargo workbook hint 5`. ({ $outcome })
the-burst-ended-before-the-pool-was-looked-at = the burst ended before the pool was looked at
one-key-one-payment = one key, one payment: { $outcome }
every-caller-gets-the-201 = every caller must get the 201, all 20: { $outcome }
the-same-payment-replayed = the 20 bodies must be the same payment, replayed: { $outcome }
the-request-for-the-other-key-took = the request for the other key: { $reply } after { $took } ms
another-key-is-starved = a request for another key failed while a slow request held its key: it got { $got }.
    While it waited: { $state }.
    The slow request's duplicates each held a connection while they waited on its key's row lock, until the pool had none left. Bound that wait (`lock_timeout` on the reserving INSERT) and answer 409 so the duplicate gives its connection back. Run `cargo workbook hint 5`.
duplicates-of-a-slow-request-are-answered-while-it-is-held = while the first request was still in flight, each of its 19 duplicates should be told 409 (retry later) within the bounded wait; they were not all answered while it was held ({ $count } × 409). Run `cargo workbook hint 5`.
duplicates-of-a-slow-request-are-told-409 = while the first request was still in flight, each of its 19 duplicates should be told 409 (retry later) within the bounded wait; { $count } were. Run `cargo workbook hint 5`.
the-slow-request-completes-once-let-go = the slow request itself must complete once let go: it got { $got }
the-slow-request-and-the-other-key-pay = the slow request and the one for another key must each pay once, two payments: { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
a-new-key-is-answered-201 = a request with a new key must be answered 201: it got { $got }
the-triggers-table-can-be-read = the harness could not read the trigger's table: { $error }
the-payment-runs-under-the-databases-lock-timeout = the payment must run under the database's own lock_timeout (7s here), and it ran under: { $seen }. Set it back to what `current_setting('lock_timeout')` said before the reserving INSERT, not to '0', which would override the database's and the role's settings. Run `cargo workbook hint 5`.
a-failed-payment-fails-the-call = the payment INSERT fails, so create_payment must fail: it returned { $got }
rolled-back-before-the-error-is-returned = create_payment returned its error while its transaction was still open (the sessions: { $sessions }). Dropping `tx` only queues the ROLLBACK, sent when the connection goes back to the pool; until then the key stays locked, and a retry sent at once waits on it, or is told 409. Roll back before returning the error. Run `cargo workbook hint 5`.
only-a-lock-timeout-is-a-409 = only a lock timeout (SQLSTATE 55P03) means another request holds the key; any other error of the reserving INSERT must be returned as an error, not answered 409: it got { $got }
