# What tests/stage2_naive.rs says, in English. Each message is named after what
# it says; the facts (figures, answers, the outcome's line) are arguments.

the-first-request-must-be-answered = the first request must be answered, and it failed: { $error }
the-retry-must-be-answered = the retry must be answered, and it failed: { $error }
the-second-request-must-be-answered = the second request must be answered, and it failed: { $error }
all-twenty-checked-so-all-twenty-pay = all 20 requests checked before any wrote, so all 20 should have paid: { $outcome }
each-payment-has-an-id-of-its-own = the 20 payments must each have an id of their own: { $ids } distinct ids
one-caller-gets-a-201 = only the first key INSERT succeeds, so exactly one caller gets a 201: { $outcome }
nineteen-key-inserts-are-rejected = the key's primary key rejects the other 19 key INSERTs with a unique violation, after their payments were already made: { $outcome }
a-burst-pays-at-least-once-at-most-twenty-times = run { $run }: a burst pays at least once, at most 20 times: { $outcome }
each-extra-payment-belongs-to-a-failed-key-insert = run { $run }: each payment beyond the first belongs to a caller whose key INSERT failed: { $outcome }
every-caller-gets-a-201-or-a-unique-violation = run { $run }: every caller gets a 201 or a unique violation: { $outcome }
payments-per-run = payments per run: { $payments }; runs with duplicates: { $duplicates } of { $runs }
the-first-request-creates-the-payment = the first request must create the payment and answer 201: it got { $got }
one-after-the-other-the-stored-answer-is-replayed = one request after the other, the naive version replays the stored answer: the first got { $first }, the retry { $retry }
one-after-the-other-it-pays-once = one request after the other, the naive version pays once: { $payments ->
    [one] 1 payment was
   *[other] { $payments } payments were
} made
the-naive-version-never-compares-bodies = the naive version answers a different body with the first payment's 201, since it never compares them: the first got { $first }, the other body { $other }
the-client-asked-for-999-and-was-told-100 = the client asked for 999 and must be told what was paid, 100: it was told { $amount }
one-payment-for-the-key = the key was paid once, so 1 payment should have been made: { $payments } were
