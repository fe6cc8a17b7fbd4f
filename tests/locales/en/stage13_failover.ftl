# What tests/stage13_failover.rs says, in English. Each message is named after
# what it says; the facts (keys, answers, figures, settings, an error's own
# words) are arguments.

answer-with-a-payment = { $status } (payment { $id })
answer-replaying-a-payment = { $status } (payment { $id }, replayed)
the-first-payment-is-answered-201 = the first payment must be answered 201, with the standby streaming and the servers healthy: it got { $got }
the-route-waits-for-the-standby-forever = the payment got no answer within { $seconds } s while the standby was away: the route waits for the standby as long as it is gone. Bound the COMMIT's wait (config.commit_wait), then cancel it from the watchdog pool. Run `cargo workbook hint 13`.
only-the-paying-transaction-waits = { $what } got no answer within { $seconds } s while the standby was away: it waited for the standby. Only the paying transaction may wait: leave every other write local (synchronous_commit = local in primary.conf) and ask for the wait with SET LOCAL in the paying transaction only. Run `cargo workbook hint 13`.
a-replay-of-a-key-answered-before = a replay of a key answered before
the-same-key-with-another-body = the same key with another body
a-request-from-an-unknown-client = a request from an unknown client
a-write-that-is-not-a-payment = a write that is not a payment
the-call-failed = the call failed: { $error }; did the server panic (a todo!() not yet written)?
the-calls-task-panicked = the call's task panicked: { $error }
the-experiment-loses-an-acknowledged-payment = the experiment: the client was told 201 ({ $first }), the failover lost that payment, and the retry paid again ({ $retry }): two payments for one key, one of them kept. There were { $payments } payments, { $kept } kept by the promoted standby.
acknowledged-then-lost = { $key } was answered 201 ({ $first }) while its standby received nothing. That payment was on the primary only: the failover lost it, and the client's retry paid again ({ $retry }). Two payments for one key. Name the standby in primary.conf (synchronous_standby_names = 'FIRST 1 (standby1)') and make the paying transaction wait for it (SET LOCAL synchronous_commit = on): then no client is told 201 before the standby has the payment. Run `cargo workbook hint 13`.
a-commit-cut-short-asks-for-a-retry = { $key }'s COMMIT was waiting for the standby when the primary crashed; the route must answer with a 5xx that asks for a retry with the same key (500, outcome unknown, or 503 payment-unconfirmed), since the payment may or may not survive. It answered { $got }.
replayed-after-the-failover = { $key } was paid and answered 201 ({ $first }) before the failover; its retry on the promoted standby must replay that answer (Idempotent-Replayed: true, the same body). It got { $retry }.
in-flight-paid-once-after-the-failover = { $key }'s payment died with the primary before the standby had it; the client's retry must pay once, on the promoted standby. It got { $retry }, and the promoted standby has { $kept ->
    [one] { $kept } payment
   *[other] { $kept } payments
} for it.
one-commit-waited-and-was-cancelled = one COMMIT waited for the standby, and its wait must be cancelled: COMMITs cancelled: { $cancelled }
a-commit-whose-client-went-still-waits = the COMMIT whose client went must still be waiting for the standby (the client going does not end the wait): one COMMIT to cancel; COMMITs cancelled: { $cancelled }
statement-timeout-does-not-end-the-wait = the experiment: statement_timeout does not end a COMMIT's wait for the standby; a cancel does, and the COMMIT then returns, committed on the primary and not on the standby. Here the COMMIT { $commit ->
    [still-waiting] was still waiting when cancelled
    [committed] returned, committed,
    [rolled-back] returned, rolled back,
   *[other] was { $commit }
}, stage 8's route answered { $got }, and the payment is on the primary { $on_primary ->
    [one] once
   *[other] { $on_primary } times
}, on the standby { $on_standby ->
    [one] once
   *[other] { $on_standby } times
}.
a-commit-past-the-bound-is-unconfirmed = with the standby away, a payment whose COMMIT waited longer than config.commit_wait must be answered 503 payment-unconfirmed with Retry-After (Commit::Unconfirmed); it got { $got }
the-commits-wait-is-cancelled = the route answered, but its COMMIT's wait was not cancelled: { $waiting } COMMIT(s) still wait for the standby, and the primary shows { $on_primary } payment(s). Abandoning the COMMIT (a timeout that drops it, a closed connection) leaves the session waiting, its key locked; cancel the wait: SELECT pg_cancel_backend(pid) on app.watchdog. Run `cargo workbook hint 13`.
the-retry-of-an-unconfirmed-payment-replays-it = the retry of the payment answered 503 must replay it (201, Idempotent-Replayed: true): its COMMIT returned once the wait was cancelled, so the payment is on the primary. It got { $got }
the-standby-back-has-the-unconfirmed-payment = once the standby is back and has caught up, it must have the payment answered 503, one row: it has { $rows }
an-uncancellable-commit-is-answered-500 = with a COMMIT whose wait could not be cancelled, the route must answer 500 (outcome unknown: Commit::Unknown) within its bounds; it got { $got }
the-pool-lost-a-connection-to-a-busy-commit = after a COMMIT whose wait could not be cancelled, a replay of a key answered before got no answer within { $seconds } s: the connection of that COMMIT went back to the pool, still busy. Close it instead (conn.close_on_drop()) when the commit is Commit::Unknown.
the-pool-lost-a-connection-the-replay-got = after a COMMIT whose wait could not be cancelled, a replay of a key answered before must replay its 201: it got { $got }. Was the connection of that COMMIT given back to the pool, still busy? Close it instead (conn.close_on_drop()) when the commit is Commit::Unknown.
the-uncancelled-commit-returns-and-its-retry-replays = once the standby was back, the COMMIT that could not be cancelled returned, and the retry should replay its payment; it got { $got }
a-replay-while-the-standby-is-away = a replay while the standby is away must replay the 201; it got { $got }
another-body-while-the-standby-is-away = the same key with another body must be refused 422 key-reused, at once, while the standby is away; it got { $got }
an-unknown-client-while-the-standby-is-away = a request from an unknown client must be refused 401, at once, while the standby is away; it got { $got }
the-other-write-failed = a write that is not a payment (a new client, on the route's pool) failed: { $error }
a-retry-is-answered-from-the-primary = the key was committed on the primary and is not yet visible on the standby, which lags; its retry must replay the first 201 (Idempotent-Replayed: true). It got { $got }. Read keys and answers on the primary (app.primary), never on app.reader: a standby can say 'no such key' about a key the primary has.
one-payment-for-one-key = one payment for one key: the primary has { $payments }
