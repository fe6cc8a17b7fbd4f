# Every word of the probe's reports, in English (crates/probe/src/words.rs says
# them). The facts (statuses, counts, keys, headers, what the server sent) are
# arguments. The machine fields of the JSON and JUnit reports (check ids,
# verdict codes, message keys and arguments, the suite's and test cases' names)
# are not here: they are the same in every language.

## The checks' titles (title-CHECK-ID).
title-burst = concurrent requests, one key: one effect, one answer
title-replay = a later retry replays the answer
title-different-body = same key, another body: refused
title-concurrent-body = same key, another body, while the first is in flight: refused
title-distinct-keys = two keys, same body: two effects
title-rewritten-body = same request written differently: replayed
title-bad-keys = missing, empty, too long key: refused
title-bad-bodies = not JSON, over the size limit: no effect unless accepted
title-lost-answer = answer lost, request lost, answer late: retry is safe
title-hang = bursts larger than a pool: all answered

## Verdicts, headings, the summary.
verdict-pass = pass
verdict-warn = warn
verdict-fail = fail
verdict-skipped = skipped
heading-check = check
heading-verdict = verdict
heading-why = why
heading-where-the-draft-leaves-it-open = where the draft leaves it open
heading-what-this-api-does = what this API does
profile-title = What the API chose where the IETF draft leaves it open:
summary = { $pass } passed, { $warn } warned, { $fail } failed, { $skipped } skipped in { $seconds } s; { $effects }
summary-effects-counted = effects counted in the database
summary-effects-not-counted = effects not counted (pass --database-url and --count-sql to count them)
summary-warnings-fail = (--fail-on-warn: the warnings fail the run)
junit-warned = warn: { $why }

## The profile: what the API chose where the draft leaves it open.
profile-in-flight = a duplicate while the first is in flight
profile-replay-marker = a replayed answer is marked
profile-concurrent-other-body = another body while the first is in flight
profile-key-lifetime = how long a key lives, advertised
profile-not-observed = not observed ({ $check } did not pass)
profile-in-flight-waits = waits for the first, then gets its answer (no 409)
profile-in-flight-conflict-after = 409 Conflict, Retry-After: { $after }
profile-in-flight-conflict = 409 Conflict, without Retry-After
profile-replay-not-marked = not marked (no header tells a replay)
profile-other-body-unprocessable = 422, the draft's answer to another payload
profile-other-body-conflict = 409, the draft's answer to a request in flight; then { $then }
profile-other-body-refused = refused with { $status }
profile-key-lifetime-not-advertised = not in a header (the draft asks for it in the documentation)

## The facts' words.
tallied-unanswered = unanswered
tallied-no-answer = no answer
case-key-missing = missing
case-key-empty = empty
case-key-too-long = too long ({ $characters } characters)
case-not-json = not JSON
case-over-the-limit = over the limit ({ $bytes } bytes)
fault-answer-lost = answer lost after the server answered
fault-request-lost = request lost before the server
fault-answer-late = answer held past the client's timeout
server-saw-nothing = nothing
no-answer-connect = could not connect: { $reason }
no-answer-timeout = no answer within { $bound }
no-answer-closed = the connection closed before an answer
no-answer-malformed = the answer is not HTTP/1.1: { $excerpt }

## Each sentence of a report (said-KEY, KEY as the JSON report's messages name it).
said-skipped-on-request = skipped on request (--skip)
said-stuck-burst-deadlock = suspected pool deadlock: the burst left requests unanswered
said-skipped-after-stuck-burst = the burst left requests unanswered (see hang): later answers would only show the stuck server
said-effects = effects: { $created } created
said-effects-expected = effects: { $created } created (expected { $expected })
said-effects-mismatch = { $created } effects where { $expected } were expected
said-no-retry-after = answers that ask for a retry came without Retry-After ({ $tally }): a client cannot tell when to come back
said-not-answered-within = no answer within { $bound }
said-answered = { $status } { $media_type } { $body }
said-not-answered = no answer: { $why }
said-first-answer = first: { $answer }
said-retry-answer = retry: { $answer }
said-other-body-answer = other body: { $answer }
said-key-answer = key { $key }: { $answer }
said-rewritten-answer = as { $body }: { $answer }
said-case-answer = { $case }: { $answer }
said-burst-sent = { $size } requests, key { $key }, heads first then every body at once: { $tally } in { $ms } ms
said-burst-sent-across = { $size } requests, key { $key }, heads first then every body at once, spread across { $instances } instances: { $tally } in { $ms } ms
said-burst-unanswered = { $answered } of { $size } answered within { $bound }; { $unanswered } unanswered
said-burst-left-unanswered = burst of { $size }, one key: { $answered } of { $size } answered within { $bound }; { $unanswered } unanswered
said-burst-deadlock = { $unanswered } of { $size } requests got no answer: suspected pool deadlock
said-in-flight-retried = { $count } answers of 409 (in flight) retried with the same key: then { $tally }
said-no-final-answer = some requests never got a final answer (still 409, or none)
said-ids = ids: { $ids }
said-bodies-identical = bodies: identical, byte for byte
said-bodies-same-json = bodies: the same JSON, not the same bytes (keys reordered or spaced)
said-bodies-different = bodies: different
said-many-ids = { $ids } different ids for one key: { $ids } effects
said-answers-differ = the answers to one key differ
said-no-success = every request was answered { $status }, not a success
said-burst-passed = { $size } × { $status }, one id, the same body
said-in-flight-without-retry-after = but a 409 in flight came without Retry-After
said-no-answer-to-a-request = a request got no answer
said-replay-marked = the retry carries { $header }: { $value }
said-replay-not-marked = no header marks the retry as a replay (optional: the draft defines none)
said-retry-got-another-id = the retry got another answer, with another id
said-retry-got-another = the retry got another answer
said-replayed-byte-for-byte = the retry got the same { $status } and body, byte for byte
said-replayed-same-json = the retry got the same { $status } and body, the same JSON, not the same bytes
said-second-not-answered = the second request got no answer
said-refused422 = refused with 422, as the IETF draft says
said-refused-not422 = refused with { $status }; the IETF draft answers a reused key with 422
said-accepted-other-body = accepted with { $status }: either a second effect, or the first answer passed off as this one
said-answered-error = answered { $status }: an error, not a refusal
said-pair-sent = both requests sent but their bodies' last byte, then the first's and at once the second's: answered in { $ms } ms
said-pair-body-answer = the body: { $answer }
said-pair-other-body-answer = another body, same key: { $answer }
said-pair-retried-after409 = the refused one, retried { $count } times after its 409: { $answer }
said-pair-refused = another body while the first was in flight: refused with { $status }, one effect
said-pair-conflict-then = another body while the first was in flight: 409, then { $then } once the first had finished
said-pair-refused-other = another body while the first was in flight: refused with { $status }; the draft answers 422 (another payload) or 409 (in flight)
said-pair-both-accepted = both bodies accepted with two ids: two effects for one key
said-pair-passed-off = both bodies accepted with one id: the other body was told the first's payment was its own
said-pair-accepted-after-conflict = 409 while the first was in flight, then accepted with { $status } when retried with its other body
said-pair-none-accepted = neither request was accepted: the first of a new key should be
said-two-keys-two-ids = two keys, two ids
said-two-keys-one-id = two keys got the same id: the server keys on the body, not the key
said-new-key-not-created = a new key was not answered with a created resource
said-nothing-to-reorder = the body is not a JSON object of two fields or more: nothing to reorder
said-rewritten-replayed = replayed: the server compares requests, not bytes
said-rewritten-refused = refused with { $status }: treats a reordered body as another request
said-rewritten-accepted = accepted as a new request: a second effect
said-answered-status = answered { $status }
said-not-refused = not refused with a 4xx: { $cases }
said-not-a-problem = refused, but not as application/problem+json: { $cases }
said-bad-keys-refused = missing, empty and too long keys: each refused with a 4xx problem
said-bodies-accepted = accepted: { $cases } (no limit, or no validation: hygiene, not idempotency)
said-neither-accepted-nor-refused = neither accepted nor refused with a 4xx: { $cases }
said-bad-bodies-refused = a body that is not JSON and one too large: each refused with a 4xx problem
said-lost-exchange = { $fault }: client saw { $client }; the server had answered { $server }; retry: { $retry }
said-lost-retry-unanswered = { $fault }: the retry got no answer
said-lost-retry-got = { $fault }: the retry got { $status }
said-lost-retry-differs = { $fault }: the retry did not get the lost answer
said-lost-answers-replayed = each retry with the same key got the answer the client missed
said-hang-burst = { $size } requests, one key: { $tally } in { $ms } ms
said-hang-unanswered = { $answered } of { $size } answered within { $bound }
said-hang-deadlock = suspected pool deadlock: { $answered } of { $size } answered within { $bound }
said-hang-gave-up = every request answered, but { $errors } with a 5xx: the server gave up on them
said-hang-no-retry-after = every request answered, but some 409 or 5xx without Retry-After
said-hang-answered = every request of every burst answered

## Standard error.
error-line = error: probe: { $error }
warning-line = warning: { $warning }
remote-warning = --allow-remote: the probe sends real requests, which create real resources
unknown-lang = error: { $given } is not a language of the probe (given by { $by }): use en or pt-BR
report-format-unknown = no report format { $name }: table, markdown, json or junit, e.g. junit=probe.xml
report-names-no-file = { $text } names no file: { $name }=FILE, or { $name } alone for standard output

## idempotency-probe --help (src/main.rs's and src/cli.rs's arguments, by id:
## cli-arg-ARG; cli-value-NAME for a value's name; l10n's cli says clap's own
## words). The English is the doc comments', word for word.
cli-about = Check any HTTP API's idempotency from the outside: a burst with one key, replays, changed bodies, bad keys and bodies, lost answers, hangs.
cli-after-help = Exit codes: 0 no check failed (warnings too, unless --fail-on-warn); 1 a check failed; 2 the probe could not run; 3 only warnings, with --fail-on-warn.
cli-arg-urls = The server, e.g. http://127.0.0.1:8080 (plain HTTP; this machine only unless --allow-remote). Several URLs: instances of one API over one database; every burst is spread across them
cli-arg-path = The route that creates, appended to the URL
cli-arg-method = The HTTP method of the route that creates
cli-arg-key_header = The idempotency key's header
cli-arg-body = The JSON body; { $placeholder } becomes a fresh number in each scenario
cli-arg-other_body = Another body for the same { $placeholder }: what "same key, another body" sends
cli-arg-id_pointer = JSON pointer to the created resource's id in a 2xx answer
cli-arg-headers = An extra header for every request, e.g. -H 'Authorization: Bearer t' (repeatable)
cli-arg-burst = Requests in the burst, all with one key
cli-arg-hang = The hang check's bursts, in order
cli-arg-timeout_ms = The bound of every request, in milliseconds
cli-arg-database_url = Where to count the effects (PostgreSQL URL); with --count-sql
cli-arg-count_sql = A query returning how many effects exist, e.g. "select count(*) from payments"
cli-arg-skip = A check not to run (repeatable)
cli-arg-allow_remote = Probe a server that is not on this machine (it sends real requests)
cli-arg-reports = A report to write: table, markdown, json or junit, to a file after = (e.g. --report junit=probe.xml) or to standard output (repeatable; the table goes to standard output unless another report does)
cli-arg-fail_on_warn = A warning fails the run too: exit code 3 when no check failed but one warned, and warnings are failures in the JUnit report
cli-arg-json = Print the report as JSON (for CI): --report json
cli-arg-markdown = Print the report as a Markdown table: --report markdown
cli-arg-verbose = Show the evidence of every check, not only of those that failed or warned
cli-arg-timeline = Draw the burst's timeline under its evidence even when it passed (it is drawn whenever the burst fails or warns, and with --verbose): one lane per request from when it was sent to when its answer came back (or the bound), with its status and whether it was marked as a replay; identical lanes folded. The probe cannot see the server's locks or transactions, only when each answer came back
cli-arg-lang = The language of the report's words: en or pt-BR [default: WORKBOOK_LANG, then the locale (LC_ALL, LC_MESSAGES, LANG), then en]. The JSON and JUnit reports' identifiers (check ids, verdict codes, message keys) are the same in every language
cli-value-url = URL
cli-value-path = PATH
cli-value-method = METHOD
cli-value-name = NAME
cli-value-template = TEMPLATE
cli-value-pointer = POINTER
cli-value-name-value = 'NAME: VALUE'
cli-value-n = N
cli-value-n-n = N,N
cli-value-ms = MS
cli-value-sql = SQL
cli-value-check = CHECK
cli-value-format-file = FORMAT[=FILE]
cli-value-lang = LANG

# What stops a probe before it has anything to report (error.rs's ProbeError): one
# line each, saying what to change.
probe-error-remote = { $host } resolves to { $addr }, which is not this machine: the probe sends real requests that create real resources; pass --allow-remote if that is what you want
probe-error-resolve = cannot resolve { $host }: { $reason }
probe-error-unreachable = nothing answers at { $addr } ({ $reason }): is the server running, and on this port?
probe-error-no-answer = the server at { $target } accepted the connections but answered none of { $sent } requests within { $bound }: is it stuck, or is it an HTTP server at all?
probe-error-not-json = the server at { $target } answered { $status } with a body that is not JSON ({ $media_type }: { $excerpt }): the probe needs a JSON answer with the created resource's id
probe-error-refused = the server at { $target } refused the probe's first request with { $status } ({ $excerpt }): set --path, --body or --header to what the route expects
probe-error-no-id = the server at { $target } answered 2xx without an id at the JSON pointer { $pointer } (body: { $excerpt }): set --id-pointer
probe-error-count = the effect count failed ({ $reason }): check --database-url and --count-sql
probe-error-no-counting = this probe was built without PostgreSQL, so it cannot count effects: install it with `cargo install --locked --path crates/probe --features postgres`, or leave out --database-url and --count-sql
probe-error-write = cannot write the { $format } report to { $path }: { $reason }

# A mistake in the probe's options or URL (options.rs, cli.rs): what is wrong and
# how to put it right. The value given is an argument, quoted as it was given.
probe-mistake-no-url = no URL: give the server's, e.g. http://127.0.0.1:8080
probe-mistake-body-without-n = --body { $body } has no {"{"}n{"}"}: each scenario needs a body of its own (e.g. {"{"}"orderId": {"{"}n{"}"}, "amount": 100{"}"})
probe-mistake-body-not-json = --body { $body } is not JSON once {"{"}n{"}"} is a number
probe-mistake-same-bodies = --other-body must differ from --body
probe-mistake-id-pointer = --id-pointer { $pointer } is not a JSON pointer: it starts with / (e.g. /id, /data/id)
probe-mistake-path = --path { $path } must start with /
probe-mistake-burst-size = bursts are between 2 and 200 requests
probe-mistake-count-alone = --database-url and --count-sql go together: where to count, and what (e.g. --count-sql "select count(*) from payments")
probe-mistake-url-https = { $url }: the probe speaks plain HTTP only; probe the server on its plain port (e.g. http://127.0.0.1:8080)
probe-mistake-url-scheme = { $url }: expected http://HOST:PORT (e.g. http://127.0.0.1:8080)
probe-mistake-url-bracket = { $url }: unclosed [ in the host
probe-mistake-url-no-host = { $url }: no host
probe-mistake-url-port = { $url }: the port is not a number from 1 to 65535
probe-mistake-header = -H { $line } is not 'NAME: VALUE'
probe-mistake-reports-on-stdout = { $count } reports to standard output ({ $formats }): give all but one a file, e.g. --report junit=probe.xml
probe-mistake-no-runtime = cannot start a tokio runtime: { $error }
probe-mistake-no-proxy-port = the fault proxy found no port on 127.0.0.1: { $error }
