#!/usr/bin/env bash
# Serve one of this folder's servers on 127.0.0.1:PORT, in the foreground, until killed.
# The server applies schema.sql to DATABASE_URL first (CREATE TABLE IF NOT EXISTS: the
# rows of an earlier run stay). `exec`: this script's PID is the server's, so killing
# it stops the server. Environment: POOL_SIZE (default 10, as in the article; 1 for
# go-wrong and java-wrong, see below), AUTORIZACAO_MS (what the simulated card authorisation takes,
# default 20).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: servers/start.sh python|python-wrong|typescript|typescript-wrong|go|go-wrong|java|java-wrong PORT DATABASE_URL"

if [ $# -ne 3 ] || ! [[ $2 =~ ^[0-9]{1,5}$ ]] || [ "$2" -lt 1 ] || [ "$2" -gt 65535 ] || [ -z "$3" ]; then
    echo "$usage" >&2
    exit 2
fi
name=$1
export PORT=$2 DATABASE_URL=$3

case $name in
    python | python-wrong)
        python=$here/python/.venv/bin/python
        [ -x "$python" ] || { echo "start.sh: $python is missing: run servers/setup.sh first" >&2; exit 1; }
        variant=idempotente
        [ "$name" = python-wrong ] && variant=ingenuo
        exec "$python" "$here/python/server.py" "$variant"
        ;;
    typescript | typescript-wrong)
        server=$here/typescript/dist/server.js
        [ -f "$server" ] || { echo "start.sh: $server is missing: run servers/setup.sh first" >&2; exit 1; }
        variant=idempotente
        [ "$name" = typescript-wrong ] && variant=pool-query
        exec node "$server" "$variant"
        ;;
    go | go-wrong)
        server=$here/go/pagamentos
        [ -x "$server" ] || { echo "start.sh: $server is missing: run servers/setup.sh first" >&2; exit 1; }
        variant=idempotente
        if [ "$name" = go-wrong ]; then
            variant=antes-do-rollback
            # A pool of ONE connection unless told otherwise: database/sql hands a freed
            # connection to a waiter it picks at random, so on a pool of 10 a burst
            # escapes the deadlock now and then (when the winner's connection goes to a
            # duplicate's read). With one connection every waiter is a request that will
            # hold it and ask for a second: the burst hangs every time.
            export POOL_SIZE=${POOL_SIZE:-1}
        fi
        exec "$server" "$variant"
        ;;
    java | java-wrong)
        classes=$here/java/classes
        [ -f "$classes/Servidor.class" ] || { echo "start.sh: $classes is missing: run servers/setup.sh first" >&2; exit 1; }
        variant=idempotente
        if [ "$name" = java-wrong ]; then
            variant=segunda-conexao
            # A pool of ONE connection unless told otherwise, as for go-wrong: on a pool
            # of 10 the deadlock needs ten duplicates holding a connection each before
            # the first payment commits, and a JVM on a busy machine can serve the burst
            # too slowly for that (the burst then escapes). With one connection, the
            # first request that takes it after the payment finds the key taken and
            # waits for a second connection: the burst hangs every time, until
            # HikariCP's connectionTimeout (30 s) answers 500.
            export POOL_SIZE=${POOL_SIZE:-1}
        fi
        # The jars of Debian's packages (servers/java/classpath, read by setup.sh too);
        # HikariCP logs through slf4j-simple, its warnings only.
        exec java -cp "$classes:$(paste -sd: "$here/java/classpath")" \
            -Dpagamentos.schema="$here/schema.sql" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
            Servidor "$variant"
        ;;
    *)
        echo "$usage" >&2
        exit 2
        ;;
esac
