# What tests/stage12_middleware.rs says, in English. Each message is named after
# what it says; the facts (figures, statuses, answers, the outcome's line, what a
# request got) are arguments.

## The helpers: a request stopped at the crash point, a request that ends in a panic

the-request-on-its-way-to-the-crash-point = the request, on its way to the crash point,
the-request-ended-without-stopping-at-the-crash-point = the request ended without stopping at `config.after_route`: call its `pass()` after the route returns and before the answer is stored or the key released. Run `cargo workbook hint 12`.
a-request-ended-without-an-answer = { $request } ended in a panic instead of an answer: { $error }
the-request-died-at-the-crash-point = the request must die at the crash point (its task cancelled while stopped at `config.after_route`): it ended otherwise

## `cargo workbook api --stage 12`

the-api-pays = `cargo workbook api --stage 12` serves the stage's routes: a payment with a new key must be answered 201. Got: { $got }
the-api-shows-the-layers-keys = `cargo workbook api --stage 12` prints `psql ... -c 'table { $table }'` to show the keys: the layer's key must be there, and { $keys ->
    [one] 1 row was
   *[other] { $keys } rows were
} found

## Refused before the route runs

the-layer-refuses-with-a-problem = the layer must refuse the request with { $status } and a problem (application/problem+json), before the route can pay. Got: { $got }
the-problem-says-why = the problem's type must say why the request was refused: { $expected }. Got: { $got }
the-route-never-pays-without-a-key = the route must not run: a route behind the layer never pays without a client and a valid key, and { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
a-refused-request-reserves-nothing = a refused request must reserve no key: { $keys ->
    [one] 1 row was
   *[other] { $keys } rows were
} written to idempotent_requests
a-body-too-large-is-refused-with-413 = the body ({ $bytes } bytes) is larger than `max_body_bytes` (16): the layer cannot fingerprint it, and must refuse it with 413 and a problem (body-too-large). Got: { $got }
a-refused-request-pays-nothing = the route must not run for a refused request, and { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
a-key-that-cannot-be-reserved-is-a-500 = the layer could not reserve the key: it must answer 500 with a problem, and never run the route without a reservation. Got: { $got }
no-route-runs-without-a-reservation = the route must not run without a reservation, and { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made

## The burst, without the layer and behind it

payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}
without-the-layer-each-request-pays = the route has no idempotency code of its own: without the layer, each of the 20 requests pays. { $outcome }
behind-the-layer-twenty-requests-pay-once = the same route behind the layer must pay once for 20 requests with one key. The layer must reserve the key (a statement of its own, committed) before it runs the route. Run `cargo workbook hint 12`. Got: { $outcome }
the-first-request-of-the-burst-pays = the first request must pay, and be answered 201: the answers were { $got }
every-duplicate-in-flight-is-told-409 = every duplicate arrived while the first was in flight (reserved, not yet answered): each must be told 409, retry later; { $count } of 19 were. Got: { $outcome }
once-answered-a-retry-gets-the-201-replayed = once the first request is answered, a retry must get its 201, marked as a replay (`Idempotent-Replayed: true`). The first got { $first }; the retry { $got }

## A second route

twenty-refunds-with-one-key-make-one = 20 POST /refunds with one key must make one refund: { $refunds ->
    [one] 1 refund was
   *[other] { $refunds } refunds were
} made. The answers: { $got }
every-201-is-the-one-refunds-answer = every 201 must be the one refund's answer, the same body each time: { $got }
a-duplicate-refund-gets-the-201-or-409 = a duplicate must get the refund's 201, or 409 while the first is in flight; nothing else: { $got }

## Replays

a-new-key-is-answered-201 = a request with a new key must pay and be answered 201. Got: { $got }
the-first-answer-is-no-replay = the first answer to a key is no replay: it must not carry `Idempotent-Replayed`. Got: { $got }
the-route-says-where = the route's 201 says where the payment is (`Location`), and the layer must pass it on. Got: { $got }
the-repeat-gets-the-first-answer-again = the repeat must get the first answer again: the status, the body and the headers worth replaying (`Location`, `Content-Type`), stored by the layer after the route answered; not a new payment. The first got { $first }; the repeat { $got }
a-replay-says-so = a replay must say so, with `Idempotent-Replayed: true`. Got: { $got }
the-repeat-paid-nothing = the repeat must pay nothing, one payment in all: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## Another request with the key

another-request-with-the-key-is-refused-with-422 = the key was used for another request ({ $path } with { $body }): the fingerprint covers the method, the path and the body, so the layer must refuse it with 422 (key-reused), and not run the route. Run `cargo workbook hint 12`. Got: { $got }
the-refused-request-paid-nothing = the refused request must pay nothing, one payment in all: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
the-refused-request-refunded-nothing = the refused request must refund nothing: { $refunds ->
    [one] 1 refund was
   *[other] { $refunds } refunds were
} made
the-same-body-written-differently-is-the-same-request = the same request written with its fields in another order is the same request, and must be replayed the first 201: fingerprint the body normalised (stage 4's request_hash). The first got { $first }; this one { $got }

## A route that failed; what the layer keeps and what it frees

a-refused-payment-is-answered-500 = the payment INSERT was refused by PostgreSQL: the route answers 500, and the layer must send it on. Got: { $got }
a-failed-route-frees-its-key = the route's payment failed with an ERROR, so nothing was paid, and the route says so (`NothingDone`): the layer must release the key, and the retry run the route and pay. Got: { $got }
the-layer-sends-the-routes-status = the route answered { $status }: the layer must send that answer as it is. Got: { $got }
a-not-done-status-frees-the-key = a route answered { $status } (and said nothing more of its effect). HTTP defines 408, 409, 425, 429 and 503 as "not done, send it again": the layer must free the key (like a route's `NothingDone`), and the retry run the route. The first answer: { $first }; the retry's: { $got }
any-other-status-is-kept-and-replayed = a route answered { $status } (and said nothing more of its effect). Any answer but 408, 409, 425, 429 and 503 must be kept and replayed: a 2xx or 4xx is the request's outcome, and a 5xx leaves it unknown (the effect may have committed before the failure): a retry that ran the route again could make it twice. The first answer: { $first }; the retry's: { $got }
a-body-without-an-amount-is-refused-by-the-route = a body without an amount must be refused by the route with 400 (invalid-body). Got: { $got }
a-refused-body-frees-its-key = the route refused the body before doing anything, and says so (`NothingDone` in its answer's extensions): the layer must keep nothing, so that the corrected request with the same key pays. Got: { $got }
the-corrected-request-is-the-only-payment = the corrected request's payment must be the key's only one, one row in payments: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## Outcome unknown: a lost acknowledgement, a session ended, no connection

the-relay-lost-the-inserts-answer = the harness's relay loses PostgreSQL's answer to the route's payment INSERT, and it lost nothing: the INSERT never went through it. The layer must run the route for a new key. The first request got { $got }
postgresql-committed-the-payment-before-its-answer-was-lost = PostgreSQL committed the payment before its answer was lost: one payment, and { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
a-broken-connection-is-answered-500 = the route's connection broke mid-statement: the route cannot know whether the payment was made, and answers 500, which the layer must send on. Got: { $got }
an-unknown-outcome-is-kept-as-the-keys-answer = a 5xx whose route did not say `NothingDone` leaves the outcome unknown: the layer must keep it as the key's answer instead of freeing the key, so that the retry is told the same 500, replayed, and does not pay a second time. Run `cargo workbook hint 12`. The first got { $first }; the retry { $got }
one-payment-not-two = one payment, not two: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
the-request-whose-session-ended = the request whose session ended
the-first-request = the first request
a-session-ended-mid-payment-is-answered-500 = the session of the held payment was ended (FATAL): the route answers 500, which the layer must send on. Got: { $got }
a-fatal-keeps-the-500 = a FATAL ends the session: the route cannot prove it came before the commit, so it does not say `NothingDone`, and the layer must keep the 500 and replay it. The first got { $first }; the retry { $got }
the-price-of-not-knowing = the price of not knowing: no payment was made here (the payment was waiting on a lock when its session ended), and the key still answers that the outcome is unknown; yet { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
every-connection-of-its-pool-taken = every connection of its pool was taken, past the pool's acquire timeout
its-pool-closed = its pool was closed
a-route-without-a-connection-is-answered-500 = the route got no connection ({ $how }): it answers 500, which the layer must send on. Got: { $got }
a-route-that-got-no-connection-frees-its-key = the route never sent its INSERT ({ $how }): it knows nothing was done and says `NothingDone`, so the layer must free the key, and the retry with the same key pay. Got: { $got }
the-retrys-is-the-only-payment = the retry's payment must be the only one, one row in payments: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## A request no route answers

no-route-answers-get-payments = no route answers GET /payments: it must be told 405. Got: { $got }
a-request-no-route-answers-reserves-no-key = a request no route answers must reserve no key: the layer runs only for a request a route answers (`MethodRouter::route_layer`; `MethodRouter::layer` also wraps the 405). { $keys ->
    [one] 1 row was
   *[other] { $keys } rows were
} written to idempotent_requests
the-post-is-the-keys-first-request = the POST with the key is the key's first request: it must pay, and be answered 201 (no replay). Got: { $got }
the-post-paid-once = the POST with the key must pay once, one row in payments: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## An answer too large to keep

an-answer-too-large-to-keep-is-sent = the payment was made: its answer must be sent, however large, and not a 500 that would invite a retry. Got: { $got }
the-whole-answer-arrives = the whole answer must arrive, its `Location` and its body's id. Got: { $got }
a-retry-is-told-the-answer-was-not-kept = the key was answered, and its answer was too large to keep: a retry must be told so, with 410 and a problem (answer-not-kept), not 409, which a client retries forever. Got: { $got }
an-answered-key-never-runs-the-route-again = the key is answered: no retry may run the route again, even past the lease. One payment, and { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## What the fingerprint leaves out

the-fingerprint-ignores-the-query-string-and-the-headers = A LIMIT, kept as the lesson: the fingerprint is the method, the path and the body; a query string or a header that changes the request (here { $uri } with Content-Type { $content_type }) is not in it, and the first answer must be replayed. The first got { $first }; this one { $got }
the-replayed-request-paid-nothing-more = the replayed request must pay nothing more, one row in payments: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## The limit: a crash between the route's commit and the layer's store

the-route-committed-before-the-request-died = the route must have committed its payment before the request died at the crash point: { $payments ->
    [one] there is 1 payment
   *[other] there are { $payments } payments
}, not 1
a-reserved-key-without-an-answer-is-409 = the key is reserved and has no answer: the layer cannot tell a request in flight from a dead one, so it must answer 409. Got: { $got }
past-the-lease-the-layer-takes-the-key-over = past the lease the layer must take the key over and run the route again (a 201 of its own, not a replay): it has no way to know that the route's effect was committed. Got: { $got }
the-limit-a-crash-in-the-gap-pays-again = THE LIMIT, kept as the lesson: the effect committed in the route's transaction, the answer was to be stored in the layer's; a crash between the two makes the retry pay again, two payments, and { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## The lease: a request slower than its lease

past-the-lease-the-duplicate-takes-the-key-over = past the lease, the duplicate must take the key over and run the route (a 201 of its own, not a replay). Got: { $got }
the-leases-cost-a-slow-route-is-run-again = the lease's cost, kept as the lesson: a route still running past its lease is run again, so the lease must be longer than any route can take. Two payments, and { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
the-keys-answer-is-its-lease-holders = the key's answer is the one its lease holder stored, and never changes: the first request's store must name its lease (a fencing token) and change nothing once the key was taken over. Run `cargo workbook hint 12`. The duplicate got { $duplicate }; the retry { $got }
a-request-that-lost-its-lease-answers-what-the-key-says = the first request lost its lease: it must answer what the key says (the duplicate's 201), like any duplicate, so that every answer for the key is the same. The duplicate got { $duplicate }; the first request { $got }

## The same crash against stage 8's route

in-the-route-the-answer-was-committed-with-the-payment = the answer was committed with the payment, in the route's one transaction: the retry must be replayed it. Got: { $got }
in-the-route-one-payment = one payment: the key and the effect were written together; { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## A route still running at the end of its lease

the-answer-to-a-request-whose-route-outlives-its-lease = the layer's answer to a request whose route still runs at the end of its lease (the layer must stop waiting for the route when `config.lease` ends)
the-duplicates-answer = the duplicate's answer
a-route-past-its-lease-is-answered-outcome-unknown = the route did not answer within its lease: the layer must stop waiting, and answer 500 that the outcome is unknown (outcome-unknown: the route may still commit). Run `cargo workbook hint 12`. Got: { $got }
the-key-keeps-the-outcome-unknown = the key must keep that answer: no take-over may run the route a second time while the first may still pay, so a duplicate is replayed the same 500. The first got { $first }; the duplicate { $got }

## Who may take a dead reservation over

another-request-never-takes-a-dead-reservation-over = the dead reservation was made for another request (amount 100): a request with amount 999 must not take it over, even past the lease, and is refused with 422. Got: { $got }
the-clients-own-retry-takes-the-key-over = the client's own retry must take the key over and pay its 100 (a 201 of its own), as after any crash in the gap; it must not be replayed another request's answer. Got: { $got }

## A fencing token is never given twice: a stale request after its key was reserved again

the-stale-request = the stale request (A, slower than its lease)
request-b = request B
request-c = request C
request-d = request D
the-duplicate = the duplicate
bs-payment-was-refused = B's payment was refused by the test's trigger: it must be answered 500. Got: { $got }
a-stale-release-must-not-free-cs-key = D came while C held the key: it must be told 409. If D paid, A's late release deleted C's reservation: A's lease number was given again to C's new row. A fencing token must never be given twice for a key (take it from a sequence, or never delete a row). Run `cargo workbook hint 12`. D got { $got }
c-alone-paid = C alone must pay, one payment: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
c-held-the-key-and-paid = C held the key and must pay, answered its own 201 (no replay). Got: { $got }
a-lost-its-key-its-release-changes-nothing = A lost its key to B: its release must change nothing, and A must answer what the key says (C in flight: 409), not its own 500. Got: { $got }
a-stale-store-must-not-answer-for-cs-key = C holds the key: its own 201 must be the key's answer. If C was replayed a 201, A's late store wrote A's answer into C's new row: A's lease number was given again to C. A fencing token must never be given twice for a key. Run `cargo workbook hint 12`. C got { $c }; A { $a }
the-keys-answer-is-cs = the key's answer must be C's, replayed. C got { $c }; the retry { $got }
a-lost-its-key-its-store-changes-nothing = A lost its key: its store must change nothing, and A must answer what the key says (C in flight: 409). Got: { $got }
a-and-c-both-paid = the lease's cost, kept: A (slower than its lease) and C both paid, two payments, and { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
a-release-queued-behind-a-take-over-deletes-nothing = A's release waited for B's take-over, then found the row under another lease: it must delete nothing, and A must answer what the key says (B in flight: 409). Check the lease again in the statement that releases (its `WHERE`), not before it. Got: { $got }
b-holds-the-key-a-duplicate-is-told-409 = B holds the key: a duplicate must be told 409. If it paid, A's release deleted B's reservation. Got: { $got }
b-took-the-key-over-and-paid = B took the key over: it must pay, answered its own 201 (no replay). Got: { $got }
b-alone-paid = B alone must pay, one payment: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## A clean-up, then a take-over

a-stale-store-must-not-match-a-row-made-again = A's lease ended and its row was deleted: B's new row holds a lease A never held, so A's store must change nothing, and A must answer what the key says (B in flight: 409). If A answered its 201, its store matched B's new row: a lease number was given again to a row made again (take it from a sequence). Run `cargo workbook hint 12`. Got: { $got }
b-owns-the-key-after-the-clean-up = B owns the key after the clean-up: its own 201 must be the key's answer (no replay). Got: { $got }
the-keys-answer-is-bs = the key's answer must be B's, replayed. B got { $b }; the retry { $got }
a-and-b-both-paid = the lease's cost, kept: A (slower than its lease) and B both paid, two payments, and { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}

## A key freed between the reservation and the read

the-table-lock = the test's table lock
the-release = the key's release
a-key-freed-before-the-read-is-reserved-again = the duplicate found the key reserved, then no row at all: the request that held the key released it in between. The key is free: reserve it again (and run the route), rather than answer 409 for a request no longer in flight. Run `cargo workbook hint 12`. Got: { $got }
the-request-that-reserved-the-key-again-is-its-only-payment = the payment of the request that reserved the key again must be the key's only one, one row in payments: { $payments ->
    [one] there is 1
   *[other] there are { $payments }
}
a-request-through-the-layer = a request through the layer, or stopped at a crash point where only the first request stops,
