# What tests/stage7_retrying_client.rs says, in English. Each message is named
# after what it says; the facts (figures, keys, answers, errors, the tries the
# proxy saw) are arguments.

payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}

## What the proxy did to a try, and the tries it saw.

fault-pass = passed through
fault-drop-request = the request lost before the server
fault-drop-response = the answer lost after the commit
fault-hold-response = the answer held until the client gave up
fault-answer = a { $status } from the proxy
fault-answer-429 = a { $status } from the proxy, with Retry-After: { $retry_after }
fault-html-page = the answer replaced with an HTML page
fault-hold-request = the request held in the proxy
a-try = try { $number }: { $fault }; Idempotency-Key: { $key }; { $server }
no-key-sent = none
the-server-answered = the server answered { $status }
the-server-did-not-answer = the server did not answer
the-server-never-saw-it = the server never saw it
no-try = no try reached the proxy

## The tests.

pay-succeeds-on-a-retry = pay() should succeed on a retry after { $fault }: it returned the error { $error }. The tries: { $tries }
pay-ends-with-the-payments-201 = after { $fault }, pay() must end with the payment's 201: it returned { $got }
a-broken-first-try-is-retried = { $fault } on the first try means at least one retry, and the proxy saw { $count ->
    [one] 1 try
   *[other] { $count } tries
}: { $tries }
however-many-tries-one-payment = { $fault }: however many tries reached the server, they must make one payment, and { $payments ->
    [one] 1 was
   *[other] { $payments } were
} made. Every try must send the key of the Payment it was given, the same one (run `cargo workbook hint 7`). The tries: { $tries }
every-try-sends-the-payments-key = every try must send the payment's Idempotency-Key, { $key }: { $tries }
no-try-reached-the-server = no try reached the server: { $tries }
the-client-ends-with-the-one-payments-body = the client must end with the body of the one payment, the answer the server gave the first try that reached it, { $first }: it ended with { $got }
a-refusal-is-an-answer = a 400 is an answer, and a final one: pay() must return it, not an error; it returned { $error }
an-amount-of-0-is-refused = an amount of 0 is refused with 400: pay() returned { $got }
a-refusal-is-not-retried = a 4xx other than 408, 409 and 429 is final: retrying would get the same refusal. The proxy saw { $count ->
    [one] 1 try
   *[other] { $count } tries
}: { $tries }
pay-gives-up-after-four-tries = every request was lost: after 4 tries pay() must give up with PayError::GaveUp, attempts: 4 and the payment's key, { $key }; it returned { $got }
four-tries-in-all = 4 tries in all, the first included: the proxy saw { $count }: { $tries }
the-first-payment-is-made = the first payment must be made: pay() returned the error { $error }
the-second-payment-is-made = the second payment must be made: pay() returned the error { $error }
each-payment-new-has-a-key-of-its-own = each Payment::new is a new operation with a key of its own, so two payments: both got the payment id { $id }. The tries: { $tries }
not-now-is-retried = { $fault } means "not now": pay() should retry it with the same key, and it returned the error { $error }. The tries: { $tries }
the-answer-then-the-retry = { $fault }, then the retry: 2 tries, and the proxy saw { $count }: { $tries }
the-retry-sends-the-same-key = the retry must send the same key as the first try: { $tries }
no-wait-past-the-budget = the server asks for a wait of { $retry_after } s, past the client's budget of { $budget } s: pay() must give up at once, after 1 try, with PayError::GaveUp and the 429 as its last answer, instead of sleeping; it returned { $got }
no-second-try-past-the-budget = no second try past the budget: the proxy saw { $count }: { $tries }
waiting-for-the-second-try = the client's second try, or pay()'s end,
the-first-request = the first request
pay-panicked = pay() panicked: { $error }
pay-ends-with-the-first-requests-201 = pay() should end with the first request's 201: it returned the error { $error }. The tries: { $tries }
the-first-try-is-told-409 = the client's first try should have been told 409 (a request with its key in flight): { $tries }
a-409-is-retried-with-the-same-key = a 409 says a request with this key is still in flight: it is no answer about the payment, and a caller that took it as "not paid" would pay again under a new key. Retry it with the same key, as a 5xx. pay() returned { $got }; the first request was answered { $first }
pay-gives-up-after-four-unanswered-tries = 4 tries without an answer: pay() should give up with PayError::GaveUp, attempts: 4; it returned { $got }
the-error-hands-back-the-key = the error must hand back the payment's key, { $key }, so that the caller can pay again with it: it handed back { $got }
pay-again = pay() again
paying-again-is-answered = paid again with the key the error handed back, pay() should be answered: it returned the error { $error }
paying-again-with-the-key-replays-the-payment = the first try paid, and its answer was lost; paid again with the same key, the payment is replayed, not made again. { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made: did pay() make a key of its own instead of sending the payment's?
paying-again-ends-in-201 = paid again with the same key, pay() must end with the payment's 201: it returned { $got }
the-caller-ends-with-the-one-payments-body = the caller must end with the body of the one payment, { $first }: it ended with { $got }
every-try-of-both-calls-sends-the-payments-key = every try of both calls must send the payment's key, { $key }: { $tries }
an-html-page-is-not-an-answer = a 200 with an HTML page is not an answer pay() can read: it must return PayError::NotJson with status: 200; it returned { $got }
paying-again-replays-the-first-answer = paying again with the handed-back key must get the first payment's stored answer, { $first }, replayed, not a new payment's: it got { $got }
the-only-tries-answer-was-lost = the only try's answer was lost, so pay() with one attempt must return an error: it returned { $got }
the-restarted-client-is-answered = the restarted client's pay() should be answered: it returned the error { $error }
the-restarted-process-sends-the-kept-key = the first process paid the order, and died before it could read the answer. The process started again must send the key kept with the order, and be played that payment's 201; { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made: did pay() make a key of its own, which died with the first process?
the-restarted-client-ends-in-201 = the restarted client must end with the payment's 201: it got { $got }
the-restarted-client-ends-with-the-one-payments-body = the restarted client must end with the body of the one payment, { $first }: it ended with { $got }
every-try-of-both-processes-sends-the-kept-key = every try of both processes must send the key kept with the order, { $key }: { $tries }
retry-after-in-seconds = Retry-After: { $value } asks for a wait of { $seconds } s (RFC 9110 §10.2.3: delay-seconds): retry_after() returned { $got }
retry-after-as-a-date = Retry-After: { $value } is an HTTP-date: it asks for the time from now until then, { $seconds } s here (no wait at all once the date is past); retry_after() returned { $got }
retry-after-neither = Retry-After: { $value } is neither a number of seconds nor an HTTP-date: retry_after() must ignore it (None), and the client falls back on its backoff; it returned { $got }
the-backoff-doubles-within-its-jitter = after try { $attempt }, the backoff is { $first } ms doubled for each try before it, times a random factor in [0.5, 1.5): between { $low } and { $high } ms. backoff() returned { $got } ms
the-wait-is-what-the-server-asked-for = the server asked for { $asked } s with Retry-After: the client waits what it asked, never more than max_delay ({ $max } s), so { $wanted } s; wait_before_next_try() returned { $got }
without-retry-after-the-wait-is-the-backoff = without Retry-After, the wait after the first try is the backoff, between { $low } and { $high } ms: wait_before_next_try() returned { $got }
