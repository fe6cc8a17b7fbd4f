#!/usr/bin/env bash
# How long `just stage N` takes to reach its verdict, warm and after an edit.
#
#   crates/runner/scripts/bench-stage.sh [N] [RUNS]
#
# "after an edit" touches the stage's `edit` files first, as saving them does, so
# the figure includes recompiling the exercise. Each line is one run: the wall
# time from starting `just stage N --no-predict` to its exit, and the runner's own
# split (cargo's build check or rebuild, then the tests, PostgreSQL's start
# included; the two overlap when the last build is still current). Prints min,
# median and max last, with the machine's load: figures from a busy machine are
# not figures of the workbook.
#
# BENCH_BACKENDS="local container" compares the harness's servers in the same run:
# each run is taken once per backend (WORKBOOK_DB), one after the other, so that
# the machine's load falls on both alike; the summary has a line per backend.
# BENCH_TRACE="on off" does the same for the recording of each burst's trace (the
# timelines; WORKBOOK_TRACE=off turns it off): its cost, measured in one run.
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=${1:-1}
runs=${2:-5}
# What `just stage N` runs too.
stage=(cargo workbook stage "$n" --no-predict)
# The stage's edit files, from stages.toml.
mapfile -t files < <(awk -v n="$n" '
    /^\[\[stage\]\]/ { inside = 0 }
    $0 ~ "^number = " n "$" { inside = 1 }
    inside && /^edit = / { gsub(/^edit = \[|\]$/, ""); gsub(/"/, ""); gsub(/, */, "\n"); print }
' stages.toml)

# The figures of this run, in a directory of its own (two runs side by side must
# not mix their figures), removed on exit.
figures=$(mktemp -d)
trap 'rm -rf "$figures"' EXIT

# "" keeps WORKBOOK_DB as it is (the harness's own choice when unset), and the
# recording as it is. Each variant is BACKEND/TRACE.
read -ra dbs <<<"${BENCH_BACKENDS:-}"
[ "${#dbs[@]}" -gt 0 ] || dbs=("")
read -ra traces <<<"${BENCH_TRACE:-}"
[ "${#traces[@]}" -gt 0 ] || traces=("")
backends=()
for db in "${dbs[@]}"; do for trace in "${traces[@]}"; do backends+=("$db/$trace"); done; done
with() {
    local db=${1%/*} trace=${1#*/}
    env ${db:+WORKBOOK_DB=$db} ${trace:+WORKBOOK_TRACE=$trace} "${@:2}"
}
label() {
    local db=${1%/*} trace=${1#*/}
    if [ -n "$db" ]; then printf '%s, ' "$db"; fi
    if [ -n "$trace" ]; then printf 'trace %s, ' "$trace"; fi
}

for backend in "${backends[@]}"; do   # warm up: build the runner and the tests once, start each server
    with "$backend" "${stage[@]}" >/dev/null 2>&1 || true
done
# min / median / max of a column of numbers
spread() { sort -n | awk '{ a[NR] = $1 } END { printf "min %s, median %s, max %s", a[1], a[int((NR + 1) / 2)], a[NR] }'; }
echo "load before: $(uptime | sed 's/.*load average/load average/')"
for mode in warm edit; do
    for backend in "${backends[@]}"; do : >"$figures/$mode-${backend//\//_}"; done
    for i in $(seq "$runs"); do
        for backend in "${backends[@]}"; do
            if [ "$mode" = edit ] && [ "${#files[@]}" -gt 0 ]; then touch "${files[@]}"; fi
            start=$(date +%s%N)
            out=$(with "$backend" "${stage[@]}" 2>/dev/null || true)
            end=$(date +%s%N)
            wall=$(awk -v d=$((end - start)) 'BEGIN { printf "%.2f", d / 1e9 }')
            split=$(grep -o '(build [0-9.]* s, tests [0-9.]* s' <<<"$out" | tr -d '(' || true)
            echo "$wall" >>"$figures/$mode-${backend//\//_}"
            printf 'stage %s, %s%-4s run %d: %5s s to the verdict (%s)\n' "$n" "$(label "$backend")" "$mode" "$i" "$wall" "${split:-no verdict line}"
        done
    done
done
for mode in warm edit; do
    for backend in "${backends[@]}"; do
        printf 'stage %s, %s%-4s: %s (s, %d runs)\n' "$n" "$(label "$backend")" "$mode" "$(spread <"$figures/$mode-${backend//\//_}")" "$runs"
    done
done
echo "load after: $(uptime | sed 's/.*load average/load average/')"
