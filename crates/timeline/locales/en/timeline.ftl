# Every word of a timeline, in English: the terminal's picture, the book's SVG,
# the probe's client-side timeline. Facts (request numbers, durations already
# formatted, SQL, SQLSTATEs, statuses) are arguments, never translated.

## The heading
title = Timeline of { $test }: { $requests ->
    [one] 1 request
   *[other] { $requests } requests
}, { $duration }
title-no-test = Timeline of the burst: { $requests ->
    [one] 1 request
   *[other] { $requests } requests
}, { $duration }
title-client = Timeline of the burst, from the client: { $requests ->
    [one] 1 request
   *[other] { $requests } requests
}, { $duration }

## Who a lane stands for
members-one = #{ $n }
members-many = ×{ $count }
members-range = ×{ $count } (#{ $first }–#{ $last })
members-others = ×{ $count } (the others)

## What a folded lane did, each fact with its figures
fact-waited-connection = waited { $duration } for a connection
fact-blocked-by-request = blocked by #{ $holder } for { $duration } in { $statement }
fact-blocked-by-gate = held at the test's gate for { $duration } in { $statement }
fact-blocked-by-other = blocked by a session outside the burst (pid { $pid }) for { $duration } in { $statement }
fact-blocked-unnamed = blocked for { $duration } in { $statement } (its holder was gone when the harness asked)
fact-some-blocked = { $count } of them { $fact }
fact-idle-in-transaction = idle in its transaction for { $duration }
fact-paid = paid
fact-paid-twice = paid { $count } times
fact-paid-nothing = paid nothing
fact-paid-rolled-back = paid, then rolled back
fact-no-statement = sent no statement
fact-statements = { $count ->
    [one] 1 statement
   *[other] { $count } statements
}
fact-sent = sent at { $at }
fact-each = each { $fact }
fact-answered-after = answered after { $duration }
fact-replayed = marked as a replay
fact-not-replayed = not marked as a replay
step-rows = { $statement } ({ $count ->
    [one] 1 row
   *[other] { $count } rows
})
step-failed = { $statement } ✗ { $sqlstate }

## How a lane ended
end-answered = { $answer }
end-panicked = panicked: { $message }
end-unfinished = still running when the burst was given up
answer-pool-timed-out = pool timed out
answer-unique-violation = unique violation (23505)
answer-lock-timeout = lock timeout (55P03)
answer-unanswered = no answer in time
answer-no-answer = closed, no answer

## The legend: one word per glyph
legend-waiting = waiting for a connection
legend-code = in its code
legend-statement = statement running
legend-blocked = blocked by a lock
legend-gate = held by the test
legend-idle-in-transaction = idle in transaction
legend-answer = answer
legend-panicked = panicked
legend-unfinished = still running
legend-in-flight = in flight
legend-unanswered = no answer within the bound
legend-no-answer = the connection closed (or failed) without an answer
legend-heading = Legend

## What the recording could not see
seen-lock-waits = Locks: PostgreSQL's own reports of each wait of { $duration } or more; a shorter wait is not seen.
missing-database-url = A DATABASE_URL server: its connections are not relayed, so neither statements nor locks are seen, only when each request got its connection and how it ended.
missing-not-superuser = The role may not set log_lock_waits: lock waits are not seen.
missing-client-side = Seen from the client: when each request was sent and when its answer came back; the server's locks and transactions are not seen.
missing-untraced-pool = The burst's pool was not the harness's: no connection, statement or lock is seen.

## Around the picture
more-kinds = … { $count ->
    [one] 1 more kind of lane
   *[other] { $count } more kinds of lane
} ({ $requests } requests), left out to keep the picture short
axis-unit-ms = ms
axis-unit-s = s
shown-again = { $command } shows it again; { $test_command }, the timeline of another test.
# The placeholder for a test's name in `timeline N --test NAME`.
test-name-placeholder = NAME
no-trace = No timeline: { $why }
no-trace-none-recorded = this run recorded no burst (its tests fire none, or they failed before one).
no-trace-not-that-test = no burst of a test named { $test } in this run. Bursts: { $tests }.
