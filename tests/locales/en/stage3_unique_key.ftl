# What tests/stage3_unique_key.rs says, in English. Each message is named after
# what it says; the facts (figures, answers, the outcome's line) are arguments.

payments-made-by-now = { $wanted ->
    [one] 1 payment
   *[other] { $wanted } payments
} should have been made by now: there { $payments ->
    [one] is 1
   *[other] are { $payments }
}
twenty-requests-with-one-key-pay-once = 20 requests with one key must pay once: { $outcome }
every-caller-gets-the-201 = every caller must get the 201, the first one and the 19 that waited for it: { $outcome }
all-twenty-bodies-are-the-same = all 20 bodies must be the same: the same payment id, replayed: { $outcome }
the-first-request-is-answered-201 = the first request must be answered 201: it got { $got }
a-retry-gets-the-stored-answer-byte-for-byte = a retry must get the stored status and body, byte for byte: the first got { $first }, the retry { $retry }
two-keys-are-two-payments = two keys are two operations, so two payments: both got the payment id { $id }
a-failed-payment-fails-the-call = the payment INSERT fails, so create_payment must fail: it returned { $got }
the-failed-payments-key-is-rolled-back = the key was reserved in the same transaction as the failed payment, so it must be rolled back with it, and { $keys ->
    [one] 1 key row was
   *[other] { $keys } key rows were
} left behind; a key left behind would refuse every retry
the-retry-pays-once-payments-work = once payments work again, the retry with the same key must pay: it got { $got }
a-failed-answer-fails-the-call = storing the answer fails, so create_payment must fail: it returned { $got }
the-payment-and-its-answer-commit-together = the request died before its answer was stored, yet { $payments ->
    [one] 1 payment
   *[other] { $payments } payments
} and { $keys ->
    [one] 1 key row
   *[other] { $keys } key rows
} were left: the payment and its answer must commit in ONE transaction. A payment committed before its answer leaves a key that answers 409 to every retry, for ever (run `cargo workbook hint 3`)
the-retry-pays-once-answers-are-stored = once the server stores answers again, the retry must pay: it got { $got }
a-later-retry-replays-the-201 = a later retry must replay the retry's 201: the retry got { $first }, the later retry { $again }
