# O que o harness de testes diz a quem aprende (as tabelas, os resumos, as notas
# e os pânicos dele), em português do Brasil. Mesmos ids que ../en/harness.ftl
# (um teste confere). Os fatos são argumentos: números, SQL, SQLSTATEs, nomes, as
# palavras de um erro.

## Uma rajada e o resultado dela (burst.rs)

burst-what = { $count } chamadas simultâneas
bound-exceeded = { $what } não terminou em { $seconds } s: algo espera para sempre (um bloqueio, ou um pool sem conexão livre)
reply-status = { $status }
reply-pool-timed-out = erro: o pool estourou o acquire timeout
reply-unique-violation = erro: violação de unicidade (23505)
reply-lock-timeout = erro: o lock_timeout estourou (55P03)
reply-other-error = erro: { $error }
outcome-column-requests = pedidos
outcome-column-payments = pagamentos feitos
outcome-column-replies = respostas
outcome-column-distinct-bodies = corpos diferentes
outcome-line = { $requests } pedidos: { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
}; { $replies }; { $bodies ->
    [1] 1 corpo diferente
   *[other] { $bodies } corpos diferentes
}
outcome-replies-part = { $count } × { $kind }

## Valores que os testes registram, como o runner os mostra ao lado das previsões
## (o valor registrado é o fim do id: `observed-paid-again` é "paid again")

observed-replayed = resposta repetida
observed-refused = recusado
observed-paid-again = pagou de novo
observed-other = outro
observed-none = nenhum
observed-replaced = substituída
observed-a-s-answer = a resposta de A
observed-own-payment = pagamento próprio
observed-new-payment = novo pagamento

## O banco de um teste (db.rs)

target-server = o servidor
target-test-database = o banco do teste
target-template = um banco modelo
run-again-stage = `cargo workbook stage { $number }`
run-again-tests = os testes
db-budget-closed = harness: o orçamento de conexões se fechou ({ $error }); rode os testes de novo
db-cannot-connect = harness: não foi possível conectar a { $target }: { $error }; rode os testes de novo (`cargo workbook doctor` mostra qual servidor eles usam)
db-create-denied = harness: não foi possível criar { $target }: { $why }
db-cannot-create = harness: não foi possível criar { $target }: { $error }; rode os testes de novo (`cargo workbook doctor` mostra qual servidor eles usam)
db-migration =
    A migração em { $file } não se aplica: { $error }
    Corrija o SQL desse arquivo e rode { $again } de novo.
db-registry-poisoned = harness: um teste entrou em pânico enquanto registrava um banco modelo; rode os testes de novo
db-logins-too-slow = harness: o servidor deixou só { $opened } de { $wanted } conexões entrarem em { $seconds } s (antes de o teste começar: não é culpa do código testado)
db-connections-not-opened = harness: não foi possível abrir { $wanted } conexões: { $error }
db-opening-failed = harness: abrir uma conexão falhou: { $error }
db-cannot-connect-to = harness: não foi possível conectar ao banco do teste { $name }: { $error }
db-arranging-failed = harness: preparar o teste falhou em { $sql }: { $error }
db-count-failed = harness: { $sql } falhou: { $error }

## O pool e as sessões do servidor, para uma mensagem de falha (`describe` de db.rs)

pool-state = pool: { $open } abertas de no máximo { $max }, { $idle } ociosas
pool-no-sessions = servidor: nenhuma sessão neste banco
pool-sessions = sessões do servidor (pg_stat_activity): { $sessions }
pool-session = { $count } { $state }
pool-session-client-read = { $count } { $state } (wait_event ClientRead: esperando o próximo comando da aplicação, não um bloqueio)
pool-session-waiting = { $count } { $state } esperando em { $wait }
pool-activity-unavailable = pg_stat_activity indisponível: { $error }
pool-activity-silent = pg_stat_activity não respondeu em 2 s

## Comportas, pedidos retidos (gate.rs)

gate-cannot-install = harness: não foi possível instalar a comporta de pagamento: { $error }
gate-cannot-close = harness: não foi possível fechar a comporta de pagamento: { $error }
gate-cannot-watch = harness: não foi possível observar as sessões do servidor: { $error }
gate-what-reach = { $count ->
    [1] 1 pedido chegar
   *[other] { $count } pedidos chegarem
} à comporta de pagamento
gate-what-first-reach = o primeiro pedido chegar à comporta de pagamento
gate-what-lock-waiters = { $count ->
    [1] 1 duplicata esperar
   *[other] { $count } duplicatas esperarem
} pelo bloqueio da chave
gate-what-duplicates-arrive = { $count ->
    [1] 1 duplicata chegar
   *[other] { $count } duplicatas chegarem
} enquanto o primeiro pedido está retido
gate-what-calls-one-key = { $count } chamadas com uma chave
gate-waited-held = esperou { $seconds } s por { $what }: { $held } sessão(ões) retida(s) na comporta de pagamento, { $waiting } esperando pelo bloqueio de uma chave
gate-ended-first = esperando { $what }: o pedido terminou sem chegar lá (veja o pânico ou a resposta dele acima; um todo!() ainda não escrito?)
gate-waited-saw = esperou { $seconds } s por { $what }, viu { $seen }

## O provedor de pagamento falso (provider.rs)

provider-request-not-held = o pedido { $number } terminou sem ficar retido no provedor falso ({ $held } retido(s)): ele nunca chamou o provedor, e respondeu a partir do banco
provider-waited-held = esperou { $seconds } s até { $count ->
    [1] 1 pedido ficar retido
   *[other] { $count } pedidos ficarem retidos
} no provedor falso, viu { $held }: a rota chamou o provedor (POST /charges na URL que recebeu)?

## Chamadas HTTP (http.rs)

http-no-free-port = harness: nenhuma porta livre em 127.0.0.1 para o servidor: { $error }
http-server-stopped = o servidor parou: { $error }
http-timed-out = nenhuma resposta em { $seconds } s
http-no-answer = nenhuma resposta HTTP ({ $error })
http-not-json = status { $status } com um corpo que não é JSON: { $body }
http-got = { $call } recebeu { $error }
http-got-server-panicked = { $call } recebeu { $error }; o servidor entrou em pânico (um todo!() ainda não escrito)?

## O relé do protocolo (wire.rs)

wire-no-shell = harness: o relé do protocolo não conseguiu iniciar o sh: { $error }
wire-no-directory = harness: o relé do protocolo não conseguiu criar { $dir }: { $error }
wire-cannot-listen = harness: o relé do protocolo não conseguiu escutar em { $dir }: { $error }

## Cenários que várias etapas rodam (scenario.rs)

scenario-first-request-failed = o primeiro pedido com { $key } tem de pagar, e falhou: { $error }
scenario-retry-failed = a nova tentativa com { $key }, enviada depois da primeira resposta, tem de ser respondida, e falhou: { $error }
scenario-key-failed = um pedido com { $key } (uma chave nova) tem de pagar, e falhou: { $error }
