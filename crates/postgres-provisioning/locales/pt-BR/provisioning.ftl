# O que encontrar ou subir o PostgreSQL dos testes diz (as notas do harness e
# todo erro, que o `cargo workbook doctor` e um teste que falha mostram), em
# português do Brasil. Mesmos ids que ../en/provisioning.ftl (um teste confere).
# Os fatos são argumentos: caminhos, comandos, variáveis, as palavras de um motor
# de contêineres ou de um servidor, números.

## Notas, impressas uma vez por processo de teste ("harness: ...")

harness-note = harness: { $description }
harness-trying-local = harness: { $why }; tentando os binários locais
harness-pulling = harness: baixando { $image } (só uma vez; o motor de contêineres a guarda)
harness-waiting-for-registry = harness: nenhum registro de imagens respondeu ainda; esperando até { $seconds } s no total
harness-started-kept = harness: contêiner { $container } iniciado; ele fica para as próximas execuções (`cargo workbook db-stop` o remove)
harness-dropped-databases = harness: { $count ->
    [1] removido 1 banco deixado
   *[other] removidos { $count } bancos deixados
} por execuções de teste que foram mortas

## O servidor, em uma linha (a nota acima, o `doctor`)

described-url = PostgreSQL de DATABASE_URL={ $url } (conectado em { $seconds } s)
described-handed-over = um servidor entregue pelo runner
described-local = { $version } dos binários locais em { $bindir } (encontrados por { $found_by }), em { $dir } ({ $why }), iniciado em { $seconds } s
described-local-as-root = { $version } dos binários locais em { $bindir } (encontrados por { $found_by }), rodando como o usuário { $user } porque somos root, em { $dir } ({ $why }), iniciado em { $seconds } s
# Um primário e o standby dele (replication.rs): a linha do primário acima, e
# quanto tempo o par levou para o streaming começar.
described-standby-pair = um primário e o standby dele, { $primary }, com o streaming { $seconds } s depois do início
described-container = { $image } { $how } { $name } em { $host }:{ $port } ({ $engine }), pronto em { $seconds } s
container-how-throwaway = num contêiner descartável
container-how-kept = no contêiner mantido
container-how-kept-new = no contêiner mantido (novo)
kept-container = { $container } ({ $image }) está { $state } em { $host }:{ $port }
kept-container-no-port = { $container } ({ $image }) está { $state }
scratch-from-variable = de { $variable }
scratch-in-memory = na memória
scratch-on-disk = no disco: { $why }
scratch-chosen = escolhido por quem chamou
not-in-memory-no-mounts = não há /proc/self/mounts para dizer se { $dir } é um tmpfs
not-in-memory-not-mounted = { $dir } não está montado
not-in-memory-not-tmpfs = { $dir } é { $fs_type }, não tmpfs
not-in-memory-nul-byte = { $dir } tem um byte NUL
not-in-memory-not-writable = não se pode escrever em { $dir }
not-in-memory-no-statvfs = statvfs({ $dir }) falhou
not-in-memory-too-small = { $dir } tem { $free } MB livres, menos que os { $needed } MB de que um cluster pode precisar

## Nenhum servidor: o que foi tentado e as saídas

no-server-tried = Nenhum servidor PostgreSQL para os testes. O que foi tentado:
no-server-ways-out =
    Três saídas (qualquer uma basta):
      1. DATABASE_URL: aponte-a para um servidor em que você possa criar bancos,
         por exemplo export DATABASE_URL=postgres://postgres:postgres@localhost:5432/postgres
      2. Docker (ou Podman, Colima, ...): inicie o motor de contêineres (`docker info` tem de
         responder); o harness roda postgres:15-alpine (ou WORKBOOK_PG_IMAGE) pelo testcontainers.
      3. Binários locais: instale o servidor do PostgreSQL (Debian/Ubuntu: apt-get install postgresql;
         macOS: brew install postgresql@15) de modo que initdb e postgres estejam no PATH,
         sejam encontrados por pg_config --bindir ou fiquem em /usr/lib/postgresql/*/bin.
    Rode `cargo workbook doctor` para ver o que esta máquina tem.
attempt-unknown-choice = WORKBOOK_DB={ $value } não é url, container nem local (ou apague a variável para o harness escolher)
attempt-no-url = DATABASE_URL: não definido
attempt-no-engine = Docker: { $why }
attempt-container-forced = WORKBOOK_DB=container, mas { $why }
attempt-no-container-client = { $engine } responde, mas este executável de testes foi compilado sem o cliente de contêineres (o `cargo test -p PACOTE` o compila assim; o `cargo workbook stage N` inicia o contêiner para os testes dele, e o `cargo test` na raiz do workspace inclui o cliente)
attempt-bad-handover = { $variable } não descreve um servidor ({ $why }); apague essa variável
attempt-runtime = não foi possível iniciar um runtime do tokio: { $source }
attempt-panicked = o harness entrou em pânico enquanto iniciava o PostgreSQL

## O motor de contêineres

engine-at = { $kind } em { $endpoint }
engine-unknown-scheme = DOCKER_HOST={ $host } não é unix:// nem tcp://; o harness fala com esses dois (corrija DOCKER_HOST, ou apague essa variável para o harness procurar o socket do motor)
engine-no-socket = nenhum motor: DOCKER_HOST não está definido e nenhum destes sockets existe: { $looked }
engine-silent = nenhum motor responde em { $endpoint } ({ $source })
engine-ping-refused = { $engine } respondeu ao ping com HTTP { $status }
engine-ping-not-http = { $engine } não respondeu ao ping em HTTP
engine-call = { $engine }: { $call }: { $source }
engine-not-http = { $engine }: { $call }: não é uma resposta HTTP: { $start }
engine-refused = { $engine }: { $doing }: HTTP { $status }: { $message }
engine-looking-for-image = procurando a imagem { $image }
engine-listing-containers = listando os contêineres
engine-removing-container = removendo o contêiner { $container }
engine-inspecting-container = inspecionando o contêiner { $container }
engine-pull-not-sent = { $engine }: baixando { $image }: { $source }
engine-no-registry = nenhum registro de imagens respondeu em { $seconds } s ({ $source })
engine-pull-stalled = o download parou ({ $source })
engine-pull-stalled-after = o download parou depois de { $seconds } s ({ $source })
engine-pull-failed = { $said }
engine-pull-status = HTTP { $status }: { $last }

## Um contêiner

container-no-image = { $engine } responde, mas não tem a imagem { $image } e não consegue baixá-la ({ $why }). Sem um registro de imagens, `just docker-image` monta workbook-postgres:15 a partir dos pacotes do Debian e WORKBOOK_PG_IMAGE=workbook-postgres:15 a usa
container-start = { $engine }: não foi possível iniciar { $image }: { $source }
container-start-named = { $engine }: não foi possível iniciar { $image } como { $name }: { $source }
container-no-port = { $engine }: nenhuma porta publicada para a 5432 do contêiner { $container }: { $source }
container-not-answering = { $engine }: o servidor do contêiner { $container } não responde: { $source }
container-supervisor = não foi possível iniciar o shell supervisor do contêiner: { $source }
container-removed-meanwhile = { $engine }: { $container } foi removido enquanto esta execução o iniciava; rode de novo

## Um cluster dos binários locais

local-no-binaries = binários locais: nenhum diretório com initdb e postgres juntos no PATH, em pg_config --bindir ou em /usr/lib/postgresql/*/bin
local-no-account-but-root = binários locais: rodando como root, e o PostgreSQL recusa o root, mas não existe uma conta `postgres` nem `nobody` para rodá-lo (crie uma: useradd --system postgres)
local-no-such-account = binários locais: não há conta chamada { $account }
local-nul-in-account = binários locais: o nome de conta { $account } tem um byte NUL
local-not-a-directory = binários locais: { $variable }={ $dir } não é um diretório (crie-o, ou apague { $variable } para o harness escolher)
local-unreachable = binários locais: o servidor roda como o usuário { $user }, que não consegue entrar em { $dir } (modo { $mode }); deixe-o acessível a todos, como o /tmp: chmod 1777 { $dir }
local-cannot-read = binários locais: não foi possível ler { $path }: { $source }
local-cannot-create = binários locais: não foi possível criar { $path }: { $source }
local-cannot-list = binários locais: não foi possível listar { $path }: { $source }
local-cannot-remove = binários locais: não foi possível remover { $path }: { $source }
local-run = binários locais: não foi possível rodar { $program }: { $source }
local-initdb = binários locais: o initdb falhou: { $said }
local-bad-setting = binários locais: { $name } não é o nome de uma configuração do servidor (letras, dígitos, `_` e `.`)
local-prepare = binários locais: preparar o diretório de dados falhou: { $said }
local-shell = binários locais: { $said }
local-copy = binários locais: não foi possível copiar o diretório de dados em cache { $cache } para { $run }: { $source }
local-supervisor = binários locais: o supervisor disse { $said }
local-not-started =
    binários locais: o servidor não subiu ({ $source }); o log dele diz:
    { $log }

## DATABASE_URL

url-not-set = WORKBOOK_DB=url, mas DATABASE_URL não está definido
url-not-postgres = DATABASE_URL={ $url } não é uma URL do PostgreSQL: { $source }
url-unreachable = DATABASE_URL={ $url }: não foi possível conectar: { $source }
url-may-not-create = DATABASE_URL={ $url }: { $why }
createdb-connect = não foi possível conectar: { $source }
createdb-read-role = não foi possível ler os atributos do papel: { $source }
without-createdb = o papel { $role } não pode criar bancos (falta-lhe CREATEDB), e o harness dá a cada teste um banco próprio. Ou conceda-o, como superusuário: ALTER ROLE "{ $role }" CREATEDB; ou aponte DATABASE_URL para um papel que o tenha, ou apague DATABASE_URL para o harness iniciar um servidor próprio
