#!/usr/bin/env bash
# Install what this folder's servers need, idempotently: a Python venv in python/.venv
# from requirements.txt, node_modules from package-lock.json (npm ci), and the
# TypeScript build in typescript/dist. A step whose inputs have not changed is skipped,
# so a second run needs no network.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "setup.sh: $*" >&2; exit 1; }

# --- Python: 3.10 or newer (psycopg 3.3 needs it), with venv.
command -v python3 >/dev/null ||
    fail "python3 not found: install Python 3.10 or newer (Debian/Ubuntu: apt-get install python3 python3-venv)"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    fail "python3 is $(python3 -V 2>&1 | cut -d' ' -f2); these servers need 3.10 or newer"
venv=$here/python/.venv
stamp=$venv/requirements.sha256
wanted=$(sha256sum "$here/python/requirements.txt" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -x "$venv/bin/python" ]; then
    echo "python: $venv is up to date with requirements.txt"
else
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" ||
        fail "python3 -m venv failed: install the venv module (Debian/Ubuntu: apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/python/requirements.txt"
    echo "$wanted" >"$stamp"
    echo "python: installed requirements.txt into $venv ($(python3 -V 2>&1))"
fi

# --- Node: 20 or newer, with npm.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    fail "node or npm not found: install Node.js 20 or newer with npm (https://nodejs.org, or your package manager)"
fi
node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 20 ? 1 : 0)' ||
    fail "node is $(node --version); these servers need Node.js 20 or newer"
ts=$here/typescript
stamp=$ts/node_modules/package-lock.sha256
wanted=$(sha256sum "$ts/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    echo "typescript: node_modules is up to date with package-lock.json"
else
    (cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$wanted" >"$stamp"
    echo "typescript: installed package-lock.json into $ts/node_modules (node $(node --version))"
fi
if [ -f "$ts/dist/server.js" ] && [ -z "$(find "$ts/src" "$ts/tsconfig.json" "$stamp" -newer "$ts/dist/server.js")" ]; then
    echo "typescript: dist/ is up to date with src/"
else
    (cd "$ts" && npm run --silent build)
    touch "$ts/dist/server.js"
    echo "typescript: compiled src/ into $ts/dist with $("$ts/node_modules/.bin/tsc" --version)"
fi
