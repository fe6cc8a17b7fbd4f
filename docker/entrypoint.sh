#!/bin/sh
# The entrypoint of workbook-postgres:15 (built by build-image.sh). It does what
# testcontainers' Postgres module expects of the official `postgres` image:
#
# - POSTGRES_USER (default postgres), POSTGRES_PASSWORD, POSTGRES_DB (default: the
#   user) and POSTGRES_HOST_AUTH_METHOD (default scram-sha-256; `trust` needs no
#   password) set up the first start;
# - arguments that start with "-" are options to postgres, so `-c fsync=off` and
#   `postgres -c fsync=off` both work;
# - on an empty $PGDATA the first start initialises the cluster. Its temporary
#   server logs "ready to accept connections" on stdout, the real server then on
#   stderr: the module waits for the stderr line, so it never connects to the
#   temporary one.
set -eu
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
# Anything else (a shell, psql) runs as asked.
if [ "$1" != postgres ] || [ "$(id -u)" != 0 ]; then exec "$@"; fi

: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
# PostgreSQL refuses to run as root.
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# $PGDATA may be a fresh tmpfs mount, owned by root.
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
        echo "entrypoint: set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust)" >&2
        exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:-postgres}" >"$pwfile"
    chown postgres "$pwfile"
    as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" \
        --encoding=UTF8 --locale=C --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" \
        --no-sync --no-instructions
    rm -f "$pwfile"
    echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
    echo "host all all all $POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"
    # The temporary server listens on its Unix socket only, and logs to stdout.
    as_postgres pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start 2>&1
    if [ "$POSTGRES_DB" != postgres ]; then
        as_postgres psql -q -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres \
            -c "CREATE DATABASE \"$POSTGRES_DB\"" 2>&1
    fi
    as_postgres pg_ctl -D "$PGDATA" -w -m fast stop 2>&1
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"
