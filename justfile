# The Idempotency Workbook. `just` lists the recipes; `just stage 1` starts.
# Without just, the same commands run through cargo's alias (.cargo/config.toml):
# `cargo workbook stage 1`, `cargo workbook hint 1`, ...

# The alias itself: its launcher (crates/launcher/src/launch.rs) is the one place
# that says how the runner is built and run.
runner := "cargo workbook"

# The runner's messages name `just ...` commands only when just started it.
export WORKBOOK_STARTED_BY := "just"

# List the recipes
default:
    @{{just_executable()}} --list --unsorted

# Predict, then run stage N's tests against your exercise (--no-predict skips the questions)
[no-exit-message]
stage N *FLAGS:
    @{{runner}} stage {{N}} {{FLAGS}}

# Show the next hint of stage N (one more each time)
[no-exit-message]
hint N:
    @{{runner}} hint {{N}}

# Rerun stage N on every save of its exercise (keys: h hint, n next stage, r rerun, q quit)
[no-exit-message]
watch N *FLAGS:
    @{{runner}} watch {{N}} {{FLAGS}}

# Stages done, predictions right or wrong, hints used
[no-exit-message]
progress:
    @{{runner}} progress

# Show again the timeline of a stage's last run: who waited on whom in the burst that decided it ([N], the stage run last by default; --test NAME another test's burst, --list the run's bursts)
[no-exit-message]
timeline *FLAGS:
    @{{runner}} timeline {{FLAGS}}

# Restore stage N's files as committed and forget its answers (asks first; --yes does not)
[no-exit-message]
reset N *FLAGS:
    @{{runner}} reset {{N}} {{FLAGS}}

# Show stage N's model answer (asks first unless the stage is done)
[no-exit-message]
solution N *FLAGS:
    @{{runner}} solution {{N}} {{FLAGS}}

# Which PostgreSQL the tests will use and why; what is missing and the fix
[no-exit-message]
doctor:
    @{{runner}} doctor

# Remove the PostgreSQL container kept between runs (when the tests use Docker)
[no-exit-message]
db-stop:
    @{{runner}} db-stop

# Build the PostgreSQL image workbook-postgres:15 offline from Debian packages (no registry needed; root, mmdebstrap)
docker-image:
    docker/build-image.sh

# The capstone: review eight routes against the checklist, then let their tests grade the review (--evidence: ask nothing, show what they find)
[no-exit-message]
review *FLAGS:
    @{{runner}} review {{FLAGS}}

# What CI runs: every solution passes, every exercise and known-wrong variant fails as intended, answer keys hold, fmt and clippy are clean
[no-exit-message]
verify *FLAGS:
    @{{runner}} verify {{FLAGS}}

# Is every verdict of verify certain? Runs every solution and known-wrong package N times (--stage N: one stage)
[no-exit-message]
flaky RUNS="50" *FLAGS:
    @{{runner}} flaky {{RUNS}} {{FLAGS}}

# Check any HTTP API's idempotency from outside: `just probe http://127.0.0.1:8080` (`--help` for the flags)
# (positional arguments: a flag's value with spaces, like --count-sql's, stays one argument)
[no-exit-message]
[positional-arguments]
probe URL *FLAGS:
    @{{runner}} probe "$@"

# Serve stage 6's POST /payments on 127.0.0.1:8080 until Ctrl-C (your exercise; --solution for the model answer; --port N)
[no-exit-message]
api *FLAGS:
    @{{runner}} api {{FLAGS}}

# Probe the Python, TypeScript, Go and Java servers of servers/ (each on a database of its own); installs them first with servers/setup.sh
probe-servers *ARGS:
    servers/setup.sh
    cargo test -p probe-servers {{ARGS}}

# Mutation testing of the stages' model answers on the lines changed since main (cargo-mutants 27.x): each mutant of a stage's solution crate is tested by that stage's test file; --all for every line, --base REF, --stage N
mutants *FLAGS:
    .ci/mutants {{FLAGS}}

# The README's test command: plain cargo test at the root
test *ARGS:
    cargo test {{ARGS}}

# book recipes below
import 'book/book.just'
import 'book/diagrams.just'

# Delete the expired idempotency keys of DATABASE_URL once (stage 9's reaper), e.g. from cron: `just reap [RETENTION_HOURS]`
[no-exit-message]
reap *ARGS:
    @cargo run -q -p stage9-expiry-solution --bin reap -- {{ARGS}}

# How long the harness takes: server start (warm, and cold with initdb), template, each test database
bench-harness:
    @echo "load: $(uptime | sed 's/.*load average/load average/')"
    @for i in 1 2 3 4 5; do WORKBOOK_DB=local cargo run -q -p workbook-harness --example bench_harness 2>/dev/null; done
    @echo "cold (initdb and cache):"; WORKBOOK_DB=local cargo run -q -p workbook-harness --example bench_harness -- --cold 2>/dev/null

# The same on a container (needs an engine; WORKBOOK_PG_IMAGE picks the image): a throwaway one per run, then the kept one
bench-harness-container:
    @echo "throwaway container:"; for i in 1 2 3 4 5; do WORKBOOK_DB=container cargo run -q -p workbook-harness --example bench_harness 2>/dev/null; done
    @echo "kept container (the first run starts it):"; for i in 1 2 3 4 5; do WORKBOOK_DB=container WORKBOOK_KEEP_CONTAINER=1 cargo run -q -p workbook-harness --example bench_harness 2>/dev/null; done

# How long the learner's loop takes: `just stage N` warm, and after an edit
bench-stage N="1":
    crates/runner/scripts/bench-stage.sh {{N}}

# Every benchmark above
bench: bench-harness (bench-stage "1") (bench-stage "3")
