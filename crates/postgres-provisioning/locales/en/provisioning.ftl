# What finding or starting the tests' PostgreSQL says (the harness's notes, and
# every error, which `cargo workbook doctor` and a failing test show), in English.
# Its twin, ../pt-BR/provisioning.ftl, holds the same ids (a test checks). The
# facts are arguments: paths, commands, variables, an engine's or a server's own
# words, figures.

## Notes, printed once per test process ("harness: ...")

harness-note = harness: { $description }
harness-trying-local = harness: { $why }; trying local binaries
harness-pulling = harness: pulling { $image } (once; the engine keeps it)
harness-waiting-for-registry = harness: no registry has answered yet; waiting up to { $seconds } s in all
harness-started-kept = harness: started container { $container }; it stays for the next runs (`cargo workbook db-stop` removes it)
harness-dropped-databases = harness: dropped { $count ->
    [one] 1 database
   *[other] { $count } databases
} left by test runs that were killed

## The server, in one line (the note above, `doctor`)

described-url = PostgreSQL from DATABASE_URL={ $url } (connected in { $seconds } s)
described-handed-over = a server handed over by the runner
described-local = { $version } from local binaries in { $bindir } (found by { $found_by }), in { $dir } ({ $why }), started in { $seconds } s
described-local-as-root = { $version } from local binaries in { $bindir } (found by { $found_by }), run as user { $user } because we are root, in { $dir } ({ $why }), started in { $seconds } s
# A primary and its streaming standby (replication.rs): the primary's line above, then
# how long the pair took to stream.
described-standby-pair = a primary and its standby, { $primary }, streaming { $seconds } s after the start
described-container = { $image } in { $how } container { $name } on { $host }:{ $port } ({ $engine }), ready in { $seconds } s
container-how-throwaway = a throwaway
container-how-kept = the kept
container-how-kept-new = the kept (new)
kept-container = { $container } ({ $image }) is { $state } on { $host }:{ $port }
kept-container-no-port = { $container } ({ $image }) is { $state }
scratch-from-variable = from { $variable }
scratch-in-memory = in memory
scratch-on-disk = on disk: { $why }
scratch-chosen = chosen by the caller
not-in-memory-no-mounts = no /proc/self/mounts to tell whether { $dir } is a tmpfs
not-in-memory-not-mounted = { $dir } is not mounted
not-in-memory-not-tmpfs = { $dir } is { $fs_type }, not tmpfs
not-in-memory-nul-byte = { $dir } has a NUL byte
not-in-memory-not-writable = { $dir } is not writable
not-in-memory-no-statvfs = statvfs({ $dir }) failed
not-in-memory-too-small = { $dir } has { $free } MB free, less than the { $needed } MB a cluster may need

## No server at all: what was tried, and the ways out

no-server-tried = No PostgreSQL server for the tests. What was tried:
no-server-ways-out =
    Three ways out (any one is enough):
      1. DATABASE_URL: point it at a server you may create databases on,
         e.g. export DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres
      2. Docker (or Podman, Colima, ...): start the engine (`docker info` must answer); the
         harness runs postgres:15-alpine (or WORKBOOK_PG_IMAGE) through testcontainers.
      3. Local binaries: install PostgreSQL's server (Debian/Ubuntu: apt-get install postgresql;
         macOS: brew install postgresql@15) so that initdb and postgres are on PATH,
         found by pg_config --bindir, or under /usr/lib/postgresql/*/bin.
    Run `cargo workbook doctor` to see what this machine has.
attempt-unknown-choice = WORKBOOK_DB={ $value } is not one of url, container, local (or unset it to let the harness choose)
attempt-no-url = DATABASE_URL: not set
attempt-no-engine = Docker: { $why }
attempt-container-forced = WORKBOOK_DB=container, but { $why }
attempt-no-container-client = { $engine } answers, but this test executable was built without the container client (`cargo test -p PACKAGE` builds it so; `cargo workbook stage N` starts the container for its tests, and `cargo test` at the workspace root builds the client in)
attempt-bad-handover = { $variable } does not describe a server ({ $why }); unset it
attempt-runtime = could not start a tokio runtime: { $source }
attempt-panicked = the harness panicked while starting PostgreSQL

## The container engine

engine-at = { $kind } at { $endpoint }
engine-unknown-scheme = DOCKER_HOST={ $host } is neither unix:// nor tcp://; the harness speaks to those two (fix DOCKER_HOST, or unset it to let the harness look for the engine's socket)
engine-no-socket = no engine: DOCKER_HOST is not set and none of these sockets exists: { $looked }
engine-silent = no engine answers at { $endpoint } ({ $source })
engine-ping-refused = { $engine } answered its ping with HTTP { $status }
engine-ping-not-http = { $engine } did not answer its ping in HTTP
engine-call = { $engine }: { $call }: { $source }
engine-not-http = { $engine }: { $call }: not an HTTP answer: { $start }
engine-refused = { $engine }: { $doing }: HTTP { $status }: { $message }
engine-looking-for-image = looking for image { $image }
engine-listing-containers = listing containers
engine-removing-container = removing container { $container }
engine-inspecting-container = inspecting container { $container }
engine-pull-not-sent = { $engine }: pulling { $image }: { $source }
engine-no-registry = no registry answered within { $seconds } s ({ $source })
engine-pull-stalled = the pull stalled ({ $source })
engine-pull-stalled-after = the pull stalled after { $seconds } s ({ $source })
engine-pull-failed = { $said }
engine-pull-status = HTTP { $status }: { $last }

## A container

container-no-image = { $engine } answers, but it has no image { $image } and cannot pull it ({ $why }). Without a registry, `just docker-image` builds workbook-postgres:15 from Debian packages and WORKBOOK_PG_IMAGE=workbook-postgres:15 uses it
container-start = { $engine }: could not start { $image }: { $source }
container-start-named = { $engine }: could not start { $image } as { $name }: { $source }
container-no-port = { $engine }: no port published for 5432 of container { $container }: { $source }
container-not-answering = { $engine }: the server in container { $container } does not answer: { $source }
container-supervisor = could not start the container's supervisor shell: { $source }
container-removed-meanwhile = { $engine }: { $container } was removed while this run started it; run again

## A cluster from local binaries

local-no-binaries = local binaries: no directory with both initdb and postgres on PATH, from pg_config --bindir, or under /usr/lib/postgresql/*/bin
local-no-account-but-root = local binaries: running as root, and PostgreSQL refuses root, but neither a `postgres` nor a `nobody` account exists to run it as (create one: useradd --system postgres)
local-no-such-account = local binaries: no account named { $account }
local-nul-in-account = local binaries: the account name { $account } has a NUL byte
local-not-a-directory = local binaries: { $variable }={ $dir } is not a directory (create it, or unset { $variable } to let the harness choose)
local-unreachable = local binaries: the server runs as user { $user }, who cannot enter { $dir } (mode { $mode }); make it world-searchable like /tmp: chmod 1777 { $dir }
local-cannot-read = local binaries: cannot read { $path }: { $source }
local-cannot-create = local binaries: cannot create { $path }: { $source }
local-cannot-list = local binaries: cannot list { $path }: { $source }
local-cannot-remove = local binaries: cannot remove { $path }: { $source }
local-run = local binaries: could not run { $program }: { $source }
local-initdb = local binaries: initdb failed: { $said }
local-bad-setting = local binaries: { $name } is not the name of a server setting (letters, digits, `_` and `.`)
local-prepare = local binaries: preparing the data directory failed: { $said }
local-shell = local binaries: { $said }
local-copy = local binaries: could not copy the cached data directory { $cache } into { $run }: { $source }
local-supervisor = local binaries: the supervisor said { $said }
local-not-started =
    local binaries: the server did not start ({ $source }); its log says:
    { $log }

## DATABASE_URL

url-not-set = WORKBOOK_DB=url, but DATABASE_URL is not set
url-not-postgres = DATABASE_URL={ $url } is not a PostgreSQL URL: { $source }
url-unreachable = DATABASE_URL={ $url }: could not connect: { $source }
url-may-not-create = DATABASE_URL={ $url }: { $why }
createdb-connect = could not connect: { $source }
createdb-read-role = could not read the role's attributes: { $source }
without-createdb = the role { $role } may not create databases (it lacks CREATEDB), and the harness gives every test a database of its own. Either grant it, as a superuser: ALTER ROLE "{ $role }" CREATEDB; or point DATABASE_URL at a role that has it, or unset DATABASE_URL to let the harness start a server of its own
