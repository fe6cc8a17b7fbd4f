#!/usr/bin/env bash
# The book's CI example ("In your CI", book/src/probe.md): one shell step, for any CI,
# that starts an API, probes it, and keeps the reports. As written it serves the
# article's Python server (servers/, after servers/setup.sh) over $DATABASE_URL: .ci/run
# runs it so, on a throwaway PostgreSQL. For your API, change the lines marked "yours".
# It needs idempotency-probe on PATH, built with --features postgres to count effects.
# ANCHOR: step
set -euo pipefail
port=${API_PORT:-8080}

# yours: serve your API on 127.0.0.1:$port, over $DATABASE_URL, in the background (its
# log kept with the reports)
servers/start.sh python "$port" "$DATABASE_URL" >api.log 2>&1 &
api=$!
trap 'kill "$api" 2>/dev/null || true' EXIT

# Wait until it listens: 10 s at most.
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$api" 2>/dev/null || { echo "the API exited before it listened" >&2; exit 2; }
    sleep 0.1
done

# yours: your route, its bodies, and the query that counts what it creates
status=0
idempotency-probe "http://127.0.0.1:$port" --path /pagamentos \
    --body '{"pedidoId": {n}, "valor": 100}' --other-body '{"pedidoId": {n}, "valor": 999}' \
    --database-url "$DATABASE_URL" --count-sql 'select count(*) from pagamentos' \
    --report junit=probe-junit.xml --report json=probe.json || status=$?

# 0 every check passed, 1 one failed, 2 the probe could not run, 3 only warnings
# (with --fail-on-warn): the job fails on anything but 0.
exit "$status"
# ANCHOR_END: step
