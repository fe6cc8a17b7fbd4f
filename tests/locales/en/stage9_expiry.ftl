# What tests/stage9_expiry.rs says, in English. Each message is named after
# what it says; the facts (figures, answers, SQLSTATEs, settings, an error's own
# words, the outcome's line) are arguments.

payments-made-by-now = { $wanted ->
    [one] { $wanted } payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is { $payments }
   *[other] are { $payments }
}
a-task-panicked = { $what } panicked (see its panic above; a todo!() not yet written?): { $error }
the-reaper-returned-an-error = the reaper returned an error: { $error }
a-new-key-is-answered-201 = a request with a new key must be answered 201: it got { $got }
inside-the-window-the-stored-answer-is-replayed = a key one minute inside its 24 h window must replay the stored answer (201, the same body, Idempotent-Replayed): the first request got { $first }, its repeat { $again }
an-expired-key-is-a-new-payment = a key one minute past its 24 h window is a new key, reaped or not: the request must be a new payment (201, not a replay). The first request got { $first }, the one after expiry { $got }. Run `cargo workbook hint 9`.
a-new-payment-has-a-new-id = a new payment has a new id: the first got { $first }, the new payment { $got }
the-key-now-replays-the-new-payment = the key now holds the new payment's answer, and must replay it: the new payment got { $paid }, its repeat { $again }
the-expired-row-is-taken-over = the expired key's row must be taken over, not duplicated: idempotency_keys holds { $rows ->
    [one] { $rows } row
   *[other] { $rows } rows
} (1 expected)
the-reaper-deletes-in-bounded-batches = 250 expired keys, 100 at most per transaction, are reaped in 3 batches (100 + 100 + 50): the reaper deleted { $keys ->
    [one] { $keys } key
   *[other] { $keys } keys
} in { $batches ->
    [one] { $batches } batch
   *[other] { $batches } batches
}
the-keys-inside-the-window-stay = the 5 keys inside the window must stay: { $left ->
    [one] { $left } key is
   *[other] { $left } keys are
} left
nothing-is-left-to-reap = a second run of the reaper finds nothing left to reap (1 batch, 0 keys): it deleted { $keys ->
    [one] { $keys } key
   *[other] { $keys } keys
} in { $batches ->
    [one] { $batches } batch
   *[other] { $batches } batches
}
one-index-starts-with-created-at = idempotency_keys needs one index that starts with created_at, so that each batch of the reaper reads only the oldest keys (CREATE INDEX ... ON idempotency_keys (created_at)): yours has { $indexes }. Run `cargo workbook hint 9`.
the-reaper-while-a-request-holds-an-expired-key = the reaper, while a request holds an expired key,
the-reaper-skips-a-key-in-flight = the only expired row is held by a request in flight: the reaper must skip it, and it deleted { $keys ->
    [one] { $keys } key
   *[other] { $keys } keys
}. Run `cargo workbook hint 9`.
the-held-request = the held request
a-take-over-is-a-new-payment = the request that took the expired key over must pay and be answered 201, not a replay: it got { $got }
the-key-survived-the-reaper = the key survived the reaper and must replay its new answer: the request that paid got { $paid }, its repeat { $again }
the-first-request-ended-before-its-payment = the first request ended without reaching its payment (see its panic or answer above)
the-first-request-did-not-reach-its-payment = the first request did not reach its payment within { $seconds } s
the-reaper-did-not-run-twice-during-the-burst = the reaper did not finish two runs within { $seconds } s while the burst was held (it finished { $runs }): does it wait for the key in flight? Run `cargo workbook hint 9`.
a-request-of-the-burst = a request of the burst
the-reapers-last-run = the reaper's last run
the-burst-pays-once = 20 requests with one expired key, the reaper looping beside them, must make one payment: { $outcome }
every-request-of-the-burst-gets-the-201 = every request of the burst gets the one payment's 201: { $outcome }
the-reaper-deletes-the-2000-others = the reaper must delete the 2000 other expired keys, and not the one taken over in flight: it deleted { $reaped }
valid-settings-are-refused = the background reaper refused valid settings: { $error }
the-background-reaper-stopped = the background reaper stopped: its task panicked (see the panic above; a todo!() not yet written?), with { $left ->
    [one] { $left } key
   *[other] { $left } keys
} left (5 expected)
the-background-reaper-left-keys = the background reaper left { $left ->
    [one] { $left } key
   *[other] { $left } keys
} after { $seconds } s (5 expected)
the-api-pays = `cargo workbook api --stage 9`'s route must pay: it got { $got }
the-apis-reaper-stopped = the api's reaper stopped: its task panicked (see the panic above; a todo!() not yet written?), with { $left ->
    [one] { $left } old key
   *[other] { $left } old keys
} left (5 expected)
the-api-runs-no-reaper = { $seconds } s after `cargo workbook api --stage 9` started, { $left ->
    [one] { $left } old key is
   *[other] { $left } old keys are
} left (5 expected): its server does not run the reaper beside the route
the-first-request-must-pay = the first request must pay, and it failed: { $error }
the-stand-in-for-the-reaper-taking-the-table = the stand-in for the reaper, waiting for the table's lock,
the-repeat = the repeat
a-key-reaped-mid-request-is-run-again = the key was reaped between the repeat's INSERT and its read of the answer: that attempt committed nothing, so it is run again, and the key, gone, is a new key. create_payment returned { $error }
a-reaped-key-is-a-new-payment = the repeat, its key reaped, must pay and be answered 201, not a replay: it got { $got }
a-failed-payment-fails-the-call = the payment INSERT fails, so create_payment must fail: it returned { $got }
rolled-back-before-the-error-is-returned = create_payment returned its error while its transaction was still open (the sessions: { $sessions }): the key stays locked until sqlx sends the queued ROLLBACK. Roll back before returning the error.
the-reaper-with-settings-it-cannot-work-with = the reaper, with settings it cannot work with,
settings-that-cannot-work-are-refused = { $settings }: Config::validate must refuse these settings, and it accepted them
the-reaper-refuses-them-before-deleting = { $settings }: the reaper should refuse them with { $expected }, before it deletes anything; it returned { $got }
the-background-reaper-is-refused-at-its-start = { $settings }: the background reaper must be refused at its start, not at each run
the-default-settings-are-valid = the default settings must be valid: Config::validate returned { $got }
the-smallest-settings-are-valid = a batch of 1 key and a retention of 1 ms are slow and short, not wrong: Config::validate returned { $got }
create-payment = create_payment
every-run-fails-so-create-payment-does = every run fails with SQLSTATE { $sqlstate }, so create_payment must fail with it: it returned { $got }
only-a-serialization-failure-is-run-again = SQLSTATE { $sqlstate }: the transaction should have run { $runs ->
    [one] once
   *[other] { $runs } times
} (attempts is 3; only a serialization failure, or a key reaped mid-request, is run again), and it ran { $ran ->
    [one] once
   *[other] { $ran } times
}
the-first-request = the first request
a-duplicate-in-flight-is-told-409 = a duplicate of a request still in flight must be told 409 once the key's lock times out (SQLSTATE 55P03): it got { $got }
the-first-request-pays-once-let-go = the first request must pay once let go: it got { $got }
only-a-lock-timeout-is-a-409 = only a lock timeout (SQLSTATE 55P03) means another request holds the key; any other error of the reservation must be returned as an error, not answered 409: it got { $got }
the-background-reaper-connects = the background reaper should connect to the database within { $seconds } s of its start, to do its first run: its connection never appeared
a-dropped-reaper-stops = the background reaper was dropped, so it must stop: its task ends, and the pool it was given closes its connection. { $seconds } s later the connection was still open: does Reaper's Drop end the task?
a-run-of-the-reaper = a run of the reaper (reap_expired_keys),
