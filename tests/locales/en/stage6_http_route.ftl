# What tests/stage6_http_route.rs says, in English. Each message is named after
# what it says; the facts (figures, answers, keys, statuses, headers, problem
# types) are arguments.

payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}
a-refusal-is-a-problem = a refusal is an RFC 9457 problem: its content type must be "{ $wanted }", and it is "{ $got }"
a-refused-request-pays-nothing = a refused request must pay nothing, yet { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made: refuse before calling create_payment
a-refused-request-stores-no-key = a refused request must store no key, yet { $keys ->
    [one] 1 key row was
   *[other] { $keys } key rows were
} written: refuse before calling create_payment
every-request-gets-the-201 = all 20 requests send one key and one body, so each must get a 201: the first because it paid, the 19 others because its answer is replayed to them. They got { $statuses }
the-twenty-answers-are-identical = all 20 answers must be identical, status, content type and body: a replay is the first answer again. The first request got { $first }; request { $number } got { $other }
a-payment-is-answered-in-json = a payment is answered in JSON: the answer's content type must be "{ $wanted }", and it is "{ $got }"
one-key-one-payment = one key, one payment: { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
the-first-request-is-answered-201 = the first request must be answered 201: it got { $got }
a-repeat-gets-the-first-answer-again = a repeat with the same key and body must get the first answer again, status, content type and body: the first got { $first }, the repeat { $again }
a-quoted-key-is-accepted = Idempotency-Key: { $sent } is a valid sf-string (a quoted key, with an escaped quote and an escaped backslash): the request must be answered 201; it got { $got }
a-quoted-key-is-stored-unescaped = Idempotency-Key: { $sent } is the key { $key } (the escapes undone): no key row holds that text. Store the text the sf-string spells, without its quotes and backslashes
each-keys-first-request-pays = each key's first request must pay and be answered 201: key-a got { $a }, key-b got { $b }
two-keys-are-two-payments = two keys are two payments, even with the same body: both got the payment id { $id }. The route must pass each request's own key to create_payment
the-bare-key-is-answered-201 = the request with the bare key { $key } must be answered 201: it got { $got }
a-quoted-key-is-the-bare-key = Idempotency-Key: { $quoted } (an sf-string) is the key { $key }, the same key as the bare one: it must get the first answer again. The bare one got { $bare }, the quoted one { $got }
with-the-key = with `Idempotency-Key: { $key }`
with-no-key = with no Idempotency-Key
a-bad-request-is-refused = a request { $key } and the body { $body } must be refused with { $status }: it got { $got }
the-problem-type-says-what-was-wrong = the problem's type must say what was wrong, { $wanted }: it is { $got }
a-problem-repeats-its-status = a problem repeats its HTTP status in its body ("status": { $status }): it says { $got }
a-problem-has-a-title-and-a-detail = a problem's body must hold a "title" and a "detail", both text: it is { $body }
a-key-in-two-field-lines-is-refused = an Idempotency-Key sent in two field lines is a list, not one key, even when both lines hold the same key: the request must be refused with 400; it got { $got }
a-key-of-the-limit-is-accepted = a key of exactly { $length } characters is within the limit: the request must be answered 201; it got { $got }
another-body-is-refused-with-422 = the key was used with another body: the request must be refused with 422; it got { $got }
the-request-gets-an-answer = the request got no HTTP answer: { $error }
the-answers-body-arrives = the answer's body did not arrive whole: { $error }
the-answers-body-is-json = the answer's body must be JSON (a problem, application/problem+json): it is { $text } (status { $status })
a-body-over-the-limit-is-a-413 = a body of { $megabytes } MB is over the route's limit: the request must be refused with 413 Payload Too Large, and it got { $status } { $body }
no-answer-after-the-body-stopped = no answer { $seconds } s after the body stopped arriving, and the connection { $closed ->
    [true] was closed
   *[other] stayed open
}: the route waits for the rest of the body for ever. Bound the body's read ({ $timeout }). Run `cargo workbook hint 6`
a-body-that-stops-arriving-is-a-408 = a body that stops arriving is a 408 Request Timeout: the request got { $got }
no-such-header = none
the-server-closes-after-a-408 = the rest of the body may still come, and the next request could not be told from it: the answer must say `Connection: close` and the server close the connection. The connection { $closed ->
    [true] was closed
   *[other] stayed open
}; the answer's Connection header: { $connection }
answered-before-the-client-had-its-time = answered { $after } s after the body stopped: before the client had its { $timeout } s to send it
another-method-is-a-405 = { $request } must be refused with 405 Method Not Allowed: it got { $status } { $body }
the-allow-header-says-post = a 405 says which methods the path takes: the answer's Allow header must be { $wanted }, and it is { $got }
another-path-is-a-404 = { $request } must be answered 404 Not Found: it got { $status } { $body }
