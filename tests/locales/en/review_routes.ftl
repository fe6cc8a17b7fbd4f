# What tests/review_routes.rs says of a route, in English. A failure says what
# was observed (ID), then `; ` and why it matters (ID-why), two messages the test
# joins: `cargo workbook review` shows what was observed as the evidence. The
# facts (statuses, counts, bodies) are arguments.

no-client-for-the-fake-provider = the harness could not make a client for the fake provider: { $error }
post-payments-got = POST /payments got { $error }
the-trigger-is-not-created = the harness could not create the trigger that refuses order 13: { $error }
the-trigger-is-not-dropped = the harness could not drop the trigger that refuses order 13: { $error }
a-request-without-a-key-was-answered = a request without Idempotency-Key was answered { $status } and made { $payments } payment(s)
a-request-without-a-key-was-answered-why = a route that pays must refuse it (400) before anything is written
twenty-concurrent-requests-with-one-key-made = 20 concurrent requests with one key made { $payments } payments
twenty-concurrent-requests-with-one-key-made-why = the key must be reserved by one atomic statement (a unique constraint), not checked then written. Answers: { $answers }
the-payment-insert-failed-and-its-retry-left = the payment INSERT failed (answered { $first }), and its retry (answered { $retry }) left { $payments } payment(s)
the-payment-insert-failed-and-its-retry-left-why = the key, the payment and the answer must be written in one transaction, so that a failure keeps all of them or none
storing-the-answer-failed-and-its-retry-left = storing the answer failed (answered { $first }), and its retry (answered { $retry }) left { $payments } payment(s)
storing-the-answer-failed-and-its-retry-left-why = the key, the payment and the answer must be written in one transaction, so that a failure keeps all of them or none
the-first-request-was-answered = the first request was answered { $got }
the-first-request-was-answered-why = it must pay and be answered 201
the-retry-was-answered-instead-of-the-first-answer = the retry was answered { $retry } instead of the first answer, { $first }
the-retry-was-answered-instead-of-the-first-answer-why = the answer must be stored with the key and replayed as it was
the-same-key-with-another-amount-was-answered = the same key with another amount was answered { $got }
the-same-key-with-another-amount-was-answered-why = it must be refused (422), or the client believes 999 was paid
requests-through-a-pool-of-five-got-no-answer = { $count } of 20 requests through a pool of 5 connections got no answer or a 5xx (the pool timed out)
requests-through-a-pool-of-five-got-no-answer-why = a request held its connection while it asked the pool for another. { $first }
a-lost-provider-answer-then-a-retry-left = a provider answer lost after the charge, then a retry, left { $charges } charge(s) at the provider ({ $calls } calls, the request answered { $first }, the retry { $retry })
a-lost-provider-answer-then-a-retry-left-why = the provider must get an idempotency key derived from the client's, the same on every attempt, so that a retry of ours is a retry of theirs
