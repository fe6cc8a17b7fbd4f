#!/usr/bin/env bash
# Install what this folder's servers need, idempotently: a Python venv in python/.venv
# from requirements.txt, node_modules from package-lock.json (npm ci), the TypeScript
# build in typescript/dist, the Go server in go/pagamentos and the Java classes in
# java/classes. Go and Java come from Debian's packages (no module proxy or Maven
# repository needed), installed with apt-get when missing. A step whose inputs have not
# changed is skipped, so a second run needs no network.
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

# --- Go and Java: Debian's packages, installed when missing (as root, with apt-get).
# Go 1.19 with lib/pq 1.10.7, built in GOPATH mode against /usr/share/gocode; Java 17
# with pgjdbc 42.5.5, HikariCP 2.7.9 (and its slf4j), Gson, and junixsocket (pgjdbc's way to
# a Unix socket), jars in /usr/share/java.
debian_packages=()
command -v go >/dev/null || debian_packages+=(golang-go)
[ -d /usr/share/gocode/src/github.com/lib/pq ] || debian_packages+=(golang-github-lib-pq-dev)
command -v javac >/dev/null || debian_packages+=(openjdk-17-jdk-headless)
while read -r jar; do
    [ -f "$jar" ] && continue
    case $jar in
        */postgresql.jar) debian_packages+=(libpostgresql-jdbc-java) ;;
        */HikariCP.jar | */slf4j-*.jar) debian_packages+=(libhikaricp-java libslf4j-java) ;;
        */gson.jar) debian_packages+=(libgoogle-gson-java) ;;
        */junixsocket-*.jar) debian_packages+=(libjunixsocket-java libjunixsocket-jni) ;;
        *) fail "servers/java/classpath names $jar, which no Debian package of this script provides" ;;
    esac
done <"$here/java/classpath"
if [ ${#debian_packages[@]} -gt 0 ]; then
    packages=$(printf '%s\n' "${debian_packages[@]}" | sort -u | paste -sd' ')
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        fail "missing Debian packages: $packages (as root: apt-get install $packages)"
    fi
    echo "go, java: installing Debian's $packages"
    # apt-get refuses to run beside another apt-get: when the caller runs one too (.ci/run
    # does, in the background), it names a lock that both take in turn.
    lock=()
    [ -z "${WORKBOOK_APT_LOCK:-}" ] || lock=(flock "$WORKBOOK_APT_LOCK")
    # shellcheck disable=SC2086 # one word per package
    "${lock[@]}" sh -c 'apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null' \
        sh $packages
fi
javac_version=$(javac -version 2>&1 | awk '{print $2}')
[ "${javac_version%%.*}" -ge 17 ] 2>/dev/null ||
    fail "javac is $javac_version; the Java server needs 17 or newer (apt-get install openjdk-17-jdk-headless)"

gosrc=$here/go
if [ -x "$gosrc/pagamentos" ] && [ -z "$(find "$gosrc" -name '*.go' -newer "$gosrc/pagamentos")" ]; then
    echo "go: pagamentos is up to date with its sources"
else
    (cd "$gosrc" && GO111MODULE=off GOPATH=/usr/share/gocode go build -o pagamentos .)
    echo "go: built $gosrc/pagamentos with $(go version | awk '{print $3}') and Debian's lib/pq"
fi

java=$here/java
if [ -f "$java/classes/Servidor.class" ] &&
    [ -z "$(find "$java/src" "$java/classpath" -newer "$java/classes/Servidor.class")" ]; then
    echo "java: classes/ is up to date with src/"
else
    rm -rf "$java/classes"
    javac -Xlint:all -Werror -d "$java/classes" -cp "$(paste -sd: "$java/classpath")" "$java"/src/*.java
    echo "java: compiled src/ into $java/classes with javac $javac_version"
fi
