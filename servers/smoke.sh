#!/usr/bin/env bash
# Smoke test of this folder's eight servers on a throwaway PostgreSQL cluster.
#
# For each server: a database of its own, the server started with start.sh, a burst of
# 20 concurrent requests with ONE key (burst.py: released together, 3 s timeout), the
# count of rows in pagamentos; then, if the burst answered, the same request written
# differently (replayed?) and the same key with another body (422?). Each server must
# show what it is for:
#   python, typescript, go, java   1 payment, 20 identical 201s, reordered body replayed, 422
#   python-wrong                   more than 1 payment (check, then write)
#   typescript-wrong, go-wrong,    requests unanswered: the pool deadlock of the article (a
#   java-wrong                     second connection asked for while holding the first)
# Exit status 0 when every server did. Nothing is left behind: the servers and the
# cluster are stopped and the temporary directory removed, also on Ctrl-C, and by a
# watchdog if this script is killed with SIGKILL.
#
# Usage: servers/smoke.sh [SERVER...]   (default: all eight; run setup.sh first)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
servers=("$@")
[ ${#servers[@]} -gt 0 ] || servers=(python python-wrong typescript typescript-wrong go go-wrong java java-wrong)
burst_size=20
timeout_s=${BURST_TIMEOUT:-3} # seconds per burst (and per single request)

fail() { echo "smoke.sh: $*" >&2; exit 1; }
for tool in python3 curl; do
    command -v $tool >/dev/null || fail "$tool not found: install it"
done
bindir=$(pg_config --bindir 2>/dev/null || true)
[ -x "$bindir/initdb" ] || bindir=$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -1 || true)
[ -x "$bindir/initdb" ] ||
    fail "PostgreSQL server binaries (initdb, postgres) not found: apt-get install postgresql"
if ! [ -x "$here/python/.venv/bin/python" ] || ! [ -f "$here/typescript/dist/server.js" ] ||
    ! [ -x "$here/go/pagamentos" ] || ! [ -f "$here/java/classes/Servidor.class" ]; then
    fail "the servers are not installed: run servers/setup.sh first"
fi

# PostgreSQL refuses to run as root: as root, the cluster runs as the postgres user.
as_pg=()
[ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# In memory when /dev/shm is a tmpfs: a cluster starts there in tens of milliseconds.
# WORKBOOK_PG_TMPDIR, when set (as CI does), wins, as it does for the workbook's harness.
parent=${TMPDIR:-/tmp}
[ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ] && parent=/dev/shm
parent=${WORKBOOK_PG_TMPDIR:-$parent}
tmp=$(mktemp -d "$parent/servers-smoke.XXXXXX")
chmod 755 "$tmp"
[ ${#as_pg[@]} -eq 0 ] || chown postgres "$tmp"
: >"$tmp/pids"

# Stops what this run started (server PIDs listed in $tmp/pids, the cluster) and
# removes $tmp. Written as a script so that the watchdog below can run it too.
cat >"$tmp/cleanup.sh" <<CLEANUP
while read -r pid; do kill "\$pid" 2>/dev/null || true; done <"$tmp/pids"
[ -f "$tmp/data/postmaster.pid" ] && ${as_pg[*]} "$bindir/pg_ctl" -D "$tmp/data" stop -m immediate -w >/dev/null 2>&1
rm -rf "$tmp"
CLEANUP
# The watchdog: a process of its own session that outlives a SIGKILL of this script,
# then cleans up. On a normal exit the trap cleans up and stops it.
setsid bash -c "while kill -0 $$ 2>/dev/null; do sleep 0.5; done; [ -d '$tmp' ] && bash '$tmp/cleanup.sh'" \
    </dev/null >/dev/null 2>&1 &
watchdog=$!
cleanup() {
    kill "$watchdog" 2>/dev/null || true
    bash "$tmp/cleanup.sh"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s%N)
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

pg_port=$(free_port)
"${as_pg[@]}" "$bindir/initdb" -D "$tmp/data" -U postgres --auth=trust -E UTF8 --no-sync --no-instructions >/dev/null
"${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/postgres.log" -w -t 20 start \
    -o "-p $pg_port -k $tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100" >/dev/null
psql() { "$bindir/psql" -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -v ON_ERROR_STOP=1 "$@"; }
echo "cluster: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port, in $tmp ($(ms_since "$started") ms)"

body='{"pedidoId": 42, "valor": 1990}'
reordered='{ "valor" : 1990 , "pedidoId" : 42 }'
other='{"pedidoId": 42, "valor": 1991}'
unexpected=0

# post KEY BODY OUT: one request, its status printed; the body saved in OUT.
post() {
    curl -s --max-time "$timeout_s" -o "$3" -w '%{http_code}' -H 'Content-Type: application/json' \
        -H "Idempotency-Key: $1" --data-binary "$2" "$url" || true
}

smoke() {
    local name=$1 t0 db pid port url status_replay status_other same rc count verdict
    t0=$(date +%s%N)
    db=smoke_${name//-/_}
    psql -c "CREATE DATABASE $db"
    port=$(free_port)
    url=http://127.0.0.1:$port/pagamentos
    "$here/start.sh" "$name" "$port" "postgresql://postgres@127.0.0.1:$pg_port/$db" >"$tmp/$name.log" 2>&1 &
    pid=$!
    echo "$pid" >>"$tmp/pids"
    # Ready when GET /pagamentos is refused with 405: bounded to 10 s.
    for _ in $(seq 200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url" || true)" = 405 ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$tmp/$name.log" >&2; fail "$name exited before serving"; }
        sleep 0.05
    done
    echo
    echo "== $name (ready in $(ms_since "$t0") ms)"
    rc=0
    python3 "$here/burst.py" "$url" --key "smoke-$name" --body "$body" -n "$burst_size" \
        --timeout "$timeout_s" --save "$tmp/$name.first" || rc=$?
    count=$(psql -At -d "$db" -c "SELECT count(*) FROM pagamentos")
    echo "rows in pagamentos: $count"
    if [ "$rc" != 3 ]; then
        status_replay=$(post "smoke-$name" "$reordered" "$tmp/$name.replay")
        same=differs
        cmp -s "$tmp/$name.first" "$tmp/$name.replay" && same="same bytes as the burst's"
        echo "same key, same fields reordered and spaced: $status_replay, body $same"
        status_other=$(post "smoke-$name" "$other" "$tmp/$name.other")
        echo "same key, another valor: $status_other $(cat "$tmp/$name.other")"
    fi
    case $name in
        python | typescript | go | java)
            verdict="unexpected: wanted 1 payment, 20 identical 201s, the reordered body replayed, 422"
            [ "$rc" = 0 ] && [ "$count" = 1 ] && [ "$status_replay" = 201 ] && [ "$same" != differs ] &&
                [ "$status_other" = 422 ] && verdict="as expected: 1 payment for 1 key"
            ;;
        python-wrong)
            verdict="unexpected: wanted more than 1 payment"
            [ "$count" -gt 1 ] && verdict="as expected: $count payments for 1 key (check, then write)"
            ;;
        typescript-wrong | go-wrong | java-wrong)
            verdict="unexpected: wanted requests left unanswered (the pool deadlock)"
            [ "$rc" = 3 ] && verdict="as expected: the burst hung (a second connection asked for while holding one)"
            ;;
    esac
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo "$name: $verdict ($(ms_since "$t0") ms)"
    [[ $verdict == as\ expected* ]] || unexpected=$((unexpected + 1))
}

for name in "${servers[@]}"; do
    case $name in
        python | python-wrong | typescript | typescript-wrong | go | go-wrong | java | java-wrong) smoke "$name" ;;
        *) fail "unknown server $name: python, typescript, go or java, each with or without -wrong" ;;
    esac
done
echo
echo "${#servers[@]} servers in $(ms_since "$started") ms; $unexpected not as expected"
[ "$unexpected" = 0 ]
