# The runner's learner-facing texts, in English (Project Fluent syntax:
# https://projectfluent.org/fluent/guide/). Its twin, ../pt-BR/runner.ftl, holds
# the same message ids (a unit test checks). Commands, flags, test names and
# code identifiers stay English in both; the stages' own texts (titles, goals,
# questions, hints) are in stages.toml and stages.pt-BR.toml, not here.

## Judgements

judgement-right = right
judgement-wrong = wrong
judgement-not-yet = not yet

## The stage header and the outcome

stage-title = Stage { $number } of { $of } · { $title }
stage-you-edit = You edit: { $files }
outcome-heading = What happened, and why

## A build that failed

compile-errors = { $package } does not compile yet ({ $count ->
    [one] 1 error
   *[other] { $count } errors
}).
compile-first-three = The first three:
more-lines = … ({ $count ->
    [one] 1 more line
   *[other] { $count } more lines
})
compile-again-watching = the next save reruns the tests
compile-again = then run { $command } again
compile-fix = Fix what the compiler says: { $again }. Its whole output: { $output }. Stuck? { $hint }.
command-failed = { $command } failed:

## What the tests recorded

observations-heading = What happened (recorded by the tests)
observations-measured = what was measured
observations-seen = what the tests saw
observations-in-all-runs = { $seen } (in all { $count } runs)
observations-scenario = the scenario `{ $name }`
happened-no-metric = not recorded: its test recorded no { $metric }
happened-not-recorded = not recorded: its test did not get that far
happened-no-choice = none of the choices

## The predictions

predictions-heading = Your predictions
column-question = question
column-you-said = you said
column-what-happened = what happened
predictions-not-asked = (not asked)
predictions-because = because: { $why }
predictions-none-recorded = { $count ->
    [1] The prediction was not recorded yet: its test did not get that far.
   *[other] None of the { $count } predictions was recorded yet: their tests did not get that far.
}
predictions-one-not-recorded = Prediction { $number } was not recorded: its test did not get that far.
predictions-not-recorded = Predictions { $numbers } were not recorded: their tests did not get that far.
predictions-judged-later = Yours are judged once they do.
predictions-score = { $right } of { $count ->
    [one] 1 prediction
   *[other] { $count } predictions
} right, judged by what this run really did.

## The tests (libtest's results, grouped)

tests-heading = Tests
tests-pass = { $count ->
    [one] 1 test passes
   *[other] { $count } tests pass
}
tests-ignored = { $count ->
    [one] 1 test
   *[other] { $count } tests
} ignored
tests-not-run = { $count ->
    [one] 1 test
   *[other] { $count } tests
} not run: the test process ended before them
tests-unfinished = { $count ->
    [one] 1 test
   *[other] { $count } tests
} still running when the run was stopped
tests-failed-silently = { $count ->
    [one] 1 test
   *[other] { $count } tests
} failed without a message
tests-failed = { $count ->
    [one] 1 test
   *[other] { $count } tests
}: { $message }
tests-at = (at { $location })
# A todo!() still in the exercise (std's words, then the exercise's).
tests-todo = not yet implemented: { $said }
tests-printed = What { $name } printed:

## The verdict

verdict-times = (build { $build } s, tests { $tests } s, { $all } s in all)
verdict-all-pass = All { $count } tests pass { $times }.
verdict-hang = The tests did not finish within { $seconds } s, so they were stopped: that is a hang.
verdict-still-running = Still running: { $tests }
verdict-hang-why = Something waits forever: a lock that is never released, or a pool whose connections are all held by requests that wait for one more. { $hint } helps.
verdict-no-test = { $command } ran no test.
verdict-some-fail = { $failed } of { $count } tests fail, { $passed ->
    [one] 1 passes
   *[other] { $passed } pass
} { $times }.
verdict-next-watching = Edit { $edit }: the next save reruns the tests. Stuck? { $hint }.
verdict-next = Edit { $edit }, then run { $stage } again (or { $watch } to rerun on every save). Stuck? { $hint }.

## Causes the harness reported

cause-pool-state = While they waited: { $state }.
cause-deadlock-label = deadlock?
cause-deadlock = { $count ->
    [one] 1 call waited for a pool connection until it gave up.
   *[other] { $count } calls waited for a pool connection until they gave up.
}{ $seen } If every connection of the pool is held by a request that waits for another one, nothing can move. { $hint }.
cause-stuck-label = stuck?
cause-stuck = { $what } did not finish within { $seconds } s: something waited forever (a lock never released, or a pool with no free connection). { $hint }.
cause-not-your-code-label = not your code:
cause-connections-not-opened = the harness could not open its { $count } connections before the test began ({ $error }): the server was slow to accept them. Run the stage again; { $doctor } shows which server the tests use.
cause-no-server-label = no server:
cause-no-server = the tests found no PostgreSQL server; { $doctor } says what is missing and the fix.

## What comes next

stage-done = Stage { $number } is done.
next-press-n = press n
next-run = run { $command }
next-stage = Next: stage { $number } · { $title }: { $how }.
last-stage-all-done = That was the last stage, and every stage is done. Well done!
last-stage-open = That was the last stage; still open: stage { $stages }.
progress-bar = Progress { $cells } { $done } of { $stages } stages done · { $right } of { $predictions } predictions right

## How a run ended, in one line (verify, flaky)

outcome-does-not-compile = does not compile ({ $packages }): { $first }
outcome-not-built = was not built: { $why }
outcome-hangs = hangs: still running after { $seconds } s
outcome-no-test = holds no test
outcome-passes = passes every test
outcome-no-server = fails because no PostgreSQL server could be had (see { $doctor })
outcome-for-example = , e.g. { $name }: { $line }
outcome-some-fail = { $failed } of { $count } tests fail{ $example }
outcome-failing-tests = { $failed } of { $count } tests fail: { $tests }

## Errors (error.rs's types, as the learner reads them)

error-label = error:
error-read = cannot read { $path }: { $source }
error-write = cannot write { $path }: { $source }
error-stages-toml = { $path } is not a valid stages file: { $source }
error-state-unreadable = { $path } cannot be read ({ $why }); delete it to start afresh (`rm { $path }`): the rest of your progress is kept
error-no-root = no workbook found from { $path }: no stages.toml beside a Cargo.toml here or above (run from the workbook's folder, or pass --root DIR / set WORKBOOK_ROOT)
error-no-stage = there is no stage { $number }: { $available }
error-spawn = could not run `{ $program }`: { $source }
error-command = `{ $command }` failed: { $detail }
error-prompt = the prompt failed: { $source }
error-interrupted = interrupted
error-needs-confirmation = { $what } needs a confirmation, and nobody can answer (no terminal): run it with --yes
error-workspace-does-not-build = the workspace does not build; `cargo test --workspace --no-run` shows why
error-workspace-does-not-build-in = the workspace does not build (first error in { $package }); `cargo test --workspace --no-run` shows why
error-no-executable = cargo built no test executable `{ $target }` of { $package }, which stages.toml names
error-review-toml = { $path } is not a valid review file: { $source }
error-no-route = there is no route { $name } to review; the routes are { $available }
error-probe = probe: { $why }
error-no-api = stage { $number } serves no HTTP API; `cargo workbook api --stage N` serves stages { $served }
error-runtime = cannot start a tokio runtime: { $source }
error-twin-toml = { $path } is not a valid translation of the stages file: { $source }
stages-only-one = { $file } has only stage { $number }
stages-from-to = { $file } has stages { $first } to { $last }
stages-none = { $file } has no stages

## Predictions not asked

quiet-ci = CI is set
quiet-no-terminal = no terminal to answer them

## Asking the predictions, running the tests

predictions-kept = (Your predictions from your first run are kept; { $reset } forgets them.)
predictions-not-asked-because = (Predictions not asked: { $reason }.)
predict-heading = Before anything runs: what do you predict?
predict-prompt = Your prediction
predict-why = Why? (optional, Enter to skip)
running-stage-tests = the stage { $number } tests (PostgreSQL starts first)
building-package = Building { $package }
running-for-predictions = { $package } (for the predictions)
phase-building = Building: { $command }
phase-running = Running { $what }
phase-tests-done = { $done }/{ $count } tests
run-stopped = the test run was stopped
crash-killed = was killed by signal { $signal }
crash-exited = exited with code { $code }
crash-ended = ended
crash = the test process { $how } before it reported its results
crash-it-said = the test process { $how } before it reported its results; it said:

## hint

hint-none = Stage { $number } has no hints.
hint-all-shown = That was every hint of stage { $number } ({ $count } in all):
hint-solution = { $solution } shows the model answer.
hint-title = Hint { $index } of { $count } for stage { $number } · { $title }
hint-again = { $command } again
hint-next = ({ $again } shows the next one.)
hint-last = (That was the last hint. { $solution } shows the model answer.)

## progress

column-stage = stage
column-title = title
column-status = status
column-predictions = predictions
column-hints = hints
status-done = done
status-tried = tried ({ $count ->
    [one] 1 run
   *[other] { $count } runs
})
status-not-started = not started
predictions-right = { $right } of { $count } right
hints-used = { $used } of { $count }
every-stage-done = Every stage is done. The capstone: { $review }.
review-none-yet = Review a route ({ $review }): none of its { $count } routes reviewed yet.
review-scored = Review a route ({ $review }): { $scored } of { $count } routes reviewed, { $points } of { $out_of } points.

## reset

reset-what = Resetting stage { $number } forgets its predictions, hints and progress.
reset-what-files = Resetting stage { $number } restores { $files } as committed (your changes there are lost) and forgets its predictions, hints and progress.
reset-confirm = Reset stage { $number }?
reset-nothing-changed = Nothing was changed.
reset-done = Stage { $number } is back at its start: its predictions, hints and progress are forgotten.
reset-done-files = Stage { $number } is back at its start: { $files } restored; its predictions, hints and progress are forgotten.

## solution

solution-confirm = You have not passed stage { $number } yet. Show its model answer anyway?
solution-confirm-what = `solution { $number }` before stage { $number } passes
solution-not-shown = Not shown. { $hint } gives a hint instead.
solution-title = The model answer of stage { $number } · { $title } ({ $package })

## watch

quiet-watching = no terminal to answer them; run { $stage } once to predict
watch-h-again = h again
watch-not-passing-yet = (Stage { $number } does not pass yet: n goes on once it does.)
watch-last-stage = (That was the last stage.)
watch-key-next = n: on to stage { $number }
watch-key-next-later = n: the next stage, once this one passes
watch-legend = Watching { $dir }: save a file to rerun. Keys: h: a hint · { $next }r: rerun · q: quit

## doctor (the harness's own findings are quoted as it says them)

doctor-fix = fix: { $fix }
doctor-to-use-it = (to use it: { $fix })
doctor-workbook-at = Workbook at { $root }
doctor-where-heading = Where the tests would find PostgreSQL, in the harness's order
doctor-db-unset = WORKBOOK_DB is not set: the harness chooses (DATABASE_URL, then Docker, then local binaries).
doctor-db-forced = WORKBOOK_DB={ $value }: the harness uses only that way.
doctor-db-unknown = WORKBOOK_DB={ $value } is not one of url, container, local.
doctor-db-unknown-fix = unset WORKBOOK_DB, or set it to url, container or local
doctor-url-set = 1. DATABASE_URL is set ({ $url })
doctor-url-unset = 1. DATABASE_URL is not set (optional: set it to use a server of your own).
doctor-engine-answers = 2. Container engine: { $engine } answers
doctor-engine-missing = 2. Container engine: { $why }
doctor-engine-fix = start a Docker engine, or Podman, Colima, ... (`docker info` must answer)
doctor-binaries = 3. Local binaries: initdb and postgres in { $dir } (found by { $found_by })
doctor-binaries-fix = install PostgreSQL's server: `apt-get install postgresql` (Debian/Ubuntu), `brew install postgresql@15` (macOS)
doctor-not-root = Not root: the local server runs as you.
doctor-root = Running as root, which PostgreSQL refuses: the harness runs the server as user `{ $user }`.
doctor-will-use = The tests will use
doctor-use-forced-url = DATABASE_URL, because WORKBOOK_DB=url
doctor-use-forced-container = a Docker container, because WORKBOOK_DB=container
doctor-use-forced-local = a throwaway local cluster, because WORKBOOK_DB=local
doctor-use-nothing-until-fixed = nothing until WORKBOOK_DB is fixed
doctor-use-url = the server at DATABASE_URL, because it is set
doctor-use-container = a Docker container, because DATABASE_URL is not set and Docker answers
doctor-use-local = a throwaway local cluster, because DATABASE_URL is not set and Docker does not answer
doctor-use-nothing = nothing: none of the three ways is available
doctor-starting-heading = Starting it, as the tests would
doctor-starting-phase = Starting PostgreSQL
doctor-image-default = the default
doctor-image-from-variable = from WORKBOOK_PG_IMAGE
doctor-image-here = Image { $image } ({ $chosen }) is here.
doctor-image-not-here = Image { $image } ({ $chosen }) is not here yet: the first run pulls it. Without a registry, { $build } builds workbook-postgres:15 from Debian packages; WORKBOOK_PG_IMAGE=workbook-postgres:15 uses it.
doctor-image-error = Image { $image }: { $why }
doctor-check-engine = check the engine
doctor-kept = Kept container: { $kept }; { $stage } reuses it, { $stop } removes it.
doctor-not-kept = No kept container: the next { $stage } starts { $container } and keeps it between runs (plain `cargo test` and CI use throwaway containers).
doctor-kept-error = Kept container: { $why }
doctor-headroom = max_connections = { $max }: { $used } in use (this check included), { $reserved } reserved for superusers, so { $free } free; the tests open up to about { $need } at once ({ $per_test } per test × { $threads } tests in parallel)
doctor-headroom-fix = raise max_connections on that server, close other clients, or run fewer tests at once: RUST_TEST_THREADS=1
doctor-headroom-unknown = max_connections = { $max }, but counting the connections in use failed: { $error }
doctor-headroom-unknown-fix = check that the server accepts connections from this user
doctor-tools-heading = Tools
doctor-git = { $version } ({ $reset } uses it)
doctor-no-git = git is not on PATH
doctor-no-git-fix = install git (`apt-get install git`)
doctor-just = { $version } (optional: `just stage 1` = `cargo workbook stage 1`)
doctor-no-just = just is not installed (optional: every command runs as `cargo workbook ...`)

## What cargo is doing

build-compiling = compiling { $name } ({ $count } crates so far; a first build compiles a few hundred, once)
build-waiting-for-lock = waiting for another cargo to finish (build directory lock)

## The fields the tests record (harness `Outcome`, `harness::observe`); a field
## without a message here is shown by its key.

field-requests = requests
field-payments = payments created
field-replies = replies
field-distinct_bodies = distinct bodies
field-charges = charges
field-statements = statements
field-batches = batches
field-reaped = reaped
field-duplicates_409 = duplicates 409
field-unrelated = unrelated
field-second = the second request
field-retry = the retry
field-provider_calls = calls to the provider
field-created = 201s
field-writes = writes
field-unrelated_ms = the other key took (ms)
field-tries = tries
field-transactions = transactions
field-stranded = stranded keys
field-statuses = answers
field-statements_other_body = statements (another body)
field-sqlstate = SQLSTATE
field-runs_with_duplicates = runs with duplicates
field-runs = runs
field-retry_gets = the retry gets
field-payments_min = fewest payments
field-payments_max = most payments
field-last = the last answer
field-keys = keys
field-ids_taken = ids taken
field-duplicate = the duplicate
field-deleted = deleted
field-after_lease = after the lease
field-kept = payments kept
field-first = the first call
field-first_status = the first call's status
field-first_id = the first payment's id
field-retry_id = the retry's payment id
field-acknowledged_at = WAL flushed when the 201 was sent
field-standby_had = WAL the standby had received
field-after_cancel = answered after the cancel
field-client_gone = a COMMIT whose client has gone
field-commit = the COMMIT
field-on_primary = on the primary
field-on_standby = on the standby
field-payment = the payment
field-a_retry = retry of a payment answered before the crash
field-in_flight_first = the payment in flight, answered
field-in_flight_retry = its retry
field-kept_in_flight = payments of it kept
field-payments_in_flight = payments of it made

## review (the capstone)

verdict-correct = correct
verdict-incorrect = incorrect
verdict-absent = absent
verdict-not-applicable = not applicable
review-evidence-only = (Nobody can answer here, no terminal: showing the evidence only.)
review-all-reviewed = Every route is reviewed. { $again } starts over.
review-finishing-build = Finishing the build of the routes (started while you read)
review-next-route = Next route?
review-running-route = route { $name } against the checklist's tests
review-title = Review a route · the capstone
review-introduction = { $count ->
    [one] 1 route
   *[other] { $count } routes
} of `POST /payments`, one at a time. Read each as a reviewer would, and say of each item below whether the route gets it right (correct), gets it wrong (incorrect: say the line), or does not do it at all (absent). Then the route runs for real, on PostgreSQL, and its tests say what really happens.
review-route-heading = Route { $name } ({ $file })
review-yours-heading = Your review of route { $name }
review-choice-correct = correct: it does this, and right
review-choice-incorrect = incorrect: it does this, wrong (you give the line)
review-choice-absent = absent: nothing in it does this
review-choice-not-applicable = not applicable: the question does not arise here
review-prompt = Route's answer
review-lines = Route, lines { $from }–{ $to } of { $total } ({ $item }):
review-which-line = Which line? (a number; Enter to skip)
review-which-line-paged = Which line? (a number; Enter to skip; m: more lines, b: back)
review-not-a-line = { $text } is not a line of the route (1 to { $total }).
review-verdicts-heading = Route { $name }: your review, and what really happened
column-item = item
column-route = route
column-points = points
review-said-line = { $verdict }, line { $line }
review-lines-between = (lines { $first }–{ $last })
review-fix = Fix: { $fix } Stage { $stage } teaches it.
review-broken = broken: { $seen }
review-holds-not-applicable = not applicable: the route calls nothing outside the database
review-holds = correct: its test passes
review-unknown = unknown: { $why }
review-not-run = unknown: not run
review-line-wrong = line { $mark }
review-points = { $points } of { $out_of } points for route { $name } (one per item judged right; one more for the line of each fault that is in the code).
review-summary-heading = Your reviews
review-score = { $points } of { $out_of }
review-not-run-yet = not run yet
review-not-reviewed = not reviewed
review-in-all = In all: { $points } of { $out_of } points.
evidence-heading = The routes, run: what their tests find broken
evidence-column-broken = broken, by the evidence
evidence-column-observed = what was observed
evidence-column-key = key
evidence-none = none
evidence-every-test-passes = every test passes
evidence-agrees = agrees
evidence-no-test-ran = no test `{ $test }` ran
evidence-test-did-not-finish = its test did not finish

## db-stop

db-stop-no-engine = No container engine answers ({ $why }): no kept container to remove.
db-stop-removed = Removed { $container } ({ $engine }). The next { $stage } starts a new one.
db-stop-nothing = No { $container } to remove ({ $engine }).

## cargo workbook --help (main.rs's commands and arguments, by path: cli-COMMAND-ARG,
## or cli-arg-ARG for an argument several commands share; cli-value-NAME for a
## value's name). Where main.rs has a doc comment, the English here is the same
## words (a test checks); clap's own words are in the l10n crate's clap.ftl.

cli-about = The Idempotency Workbook's runner: predict, run a stage's tests, compare.
cli-after-help = Start with `cargo workbook stage 1` (or `just stage 1`, with just installed).
cli-arg-root = The workbook's root (where stages.toml and the workspace's Cargo.toml are)
cli-arg-stages = The stages file [default: ROOT/stages.toml]
cli-arg-state = Where answers, hints and progress are kept [default: ROOT/.workbook]
cli-arg-lang = The language to speak: en or pt-BR [default: WORKBOOK_LANG, then the locale (LC_ALL, LC_MESSAGES, LANG), then en]
cli-arg-number = The stage's number
cli-arg-timeout = Stop the tests after this many seconds, and call it a hang
cli-arg-yes = Do not ask for a confirmation
cli-stage-about = Predict, then run stage N's tests against your exercise
cli-arg-no_predict = Do not ask the prediction questions
cli-hint-about = Show stage N's next hint (one more each time)
cli-watch-about = Rerun stage N on every save of its exercise; keys: h hint, n next stage, r rerun, q quit
cli-progress-about = Stages done, predictions right or wrong, hints used
cli-timeline-about = Show again the timeline of a stage's last run: who waited on whom in the burst that decided it (or in another test's burst)
cli-timeline-number = The stage [default: the stage run last]
cli-timeline-test = The last burst of this test instead (its name, or the end of it)
cli-timeline-list = List the run's bursts, by test
cli-reset-about = Restore stage N's files as committed and forget its answers and hints
cli-solution-about = Show stage N's model answer (asks first unless the stage is done)
cli-doctor-about = Which PostgreSQL the tests will use and why; what is missing and the fix
cli-db-stop-about = Remove the PostgreSQL container kept between runs (`idempotency-workbook-pg`)
cli-review-about = The capstone: review routes against the checklist, then let their tests grade the review
cli-review-route = Only this route (A, B, ...)
cli-review-again = Forget the earlier reviews of these routes and review them again
cli-review-evidence = Ask nothing: run every route and show what its tests find broken (what CI prints)
cli-verify-about = What CI runs: every stage's solution, exercise, known-wrong variants and answer keys, then cargo fmt and clippy
cli-verify-stage = Only these stages' checks (with the metadata, the build and the lints; without the review's); repeat it for more than one stage
cli-verify-timeout = The bound of each test run, in seconds
cli-verify-build_only = Only build every package's tests, as verify does first, and check nothing: CI builds them while plain `cargo test` runs its tests
cli-flaky-about = Whether every verdict of verify is certain: runs every solution's tests and every known-wrong package N times and counts failures and escapes
cli-flaky-runs = How many times to run each
cli-flaky-stage = Only this stage
cli-flaky-timeout = The bound of each test run, in seconds
cli-probe-about = Check any HTTP API's idempotency from the outside: a burst with one key, replays, changed bodies, bad keys and bodies, lost answers, hangs. Several URLs: instances of one API, each burst spread across them
cli-api-about = Serve an HTTP stage's POST /payments on 127.0.0.1 (your exercise; --solution for the model answer) on the harness's PostgreSQL, until Ctrl-C
cli-api-stage = The HTTP stage whose API to serve
cli-api-solution = Serve the model answer instead of your exercise
cli-api-port = The first instance's port; 0 takes free ports (printed)
cli-api-instances = How many instances, on consecutive ports, each a process of its own over one database
cli-new-stage-about = A maintainer's: write a new stage (its crates, test file, pages and entries); `verify --stage N` and the book's checks then name what is left to write
cli-new-stage-slug = Its short name: lowercase words joined by dashes
cli-new-stage-title = Its title [default: the slug in words]
cli-manifests-about = A maintainer's: write every exercise's Cargo.toml from its solution's
cli-value-dir = DIR
cli-value-file = FILE
cli-value-lang = LANG
cli-value-number = NUMBER
cli-value-secs = SECS
cli-value-name = NAME
cli-value-runs = RUNS
cli-value-n = N
cli-value-k = K
cli-value-port = PORT
cli-value-slug = SLUG
cli-value-title = TITLE
error-unknown-lang = { $given } is not a language of the workbook (given by { $by }): use en or pt-BR
