# Os textos do runner para quem aprende, em português do Brasil (sintaxe do
# Project Fluent). Mesmos ids que ../en/runner.ftl (um teste confere); comandos,
# opções, nomes de testes e identificadores de código ficam em inglês. Os termos
# seguem book/src/glossary.md: etapa, previsão, dica, pedido, chave de
# idempotência, solução de referência, travamento, pool de conexões...

# Plurais: `[1]` (o número exato), não `[one]`: no CLDR do português, 0 também é
# "one", e "0 teste passa" soa errado; "0 testes passam", não.

## Julgamentos

judgement-right = acertou
judgement-wrong = errou
judgement-not-yet = ainda não

## O cabeçalho da etapa e o desfecho

stage-title = Etapa { $number } de { $of } · { $title }
stage-you-edit = Você edita: { $files }
outcome-heading = O que aconteceu, e por quê

## Uma compilação que falhou

compile-errors = { $package } ainda não compila ({ $count ->
    [1] 1 erro
   *[other] { $count } erros
}).
compile-first-three = Os três primeiros:
more-lines = … ({ $count ->
    [1] mais 1 linha
   *[other] mais { $count } linhas
})
compile-again-watching = os testes rodam de novo quando você salvar
compile-again = depois rode { $command } de novo
compile-fix = Corrija o que o compilador aponta: { $again }. A saída completa: { $output }. Empacou? { $hint }.
command-failed = { $command } falhou:

## O que os testes registraram

observations-heading = O que aconteceu (registrado pelos testes)
observations-measured = o que foi medido
observations-seen = o que os testes viram
observations-in-all-runs = { $seen } (em todas as { $count } execuções)
observations-scenario = o cenário `{ $name }`
happened-no-metric = não registrado: o teste não registrou { $metric }
happened-not-recorded = não registrado: o teste não chegou até lá
happened-no-choice = nenhuma das opções

## As previsões

predictions-heading = Suas previsões
column-question = pergunta
column-you-said = você disse
column-what-happened = o que aconteceu
predictions-not-asked = (não perguntada)
predictions-because = porque: { $why }
predictions-none-recorded = { $count ->
    [1] A previsão ainda não foi registrada: o teste dela não chegou até lá.
   *[other] Nenhuma das { $count } previsões foi registrada ainda: os testes delas não chegaram até lá.
}
predictions-one-not-recorded = A previsão { $number } não foi registrada: o teste dela não chegou até lá.
predictions-not-recorded = As previsões { $numbers } não foram registradas: os testes delas não chegaram até lá.
predictions-judged-later = As suas serão julgadas quando chegarem.
predictions-score = { $right } de { $count ->
    [1] 1 previsão certa
   *[other] { $count } previsões certas
}, julgadas pelo que esta execução realmente fez.

## Os testes (os resultados do libtest, agrupados)

tests-heading = Testes
tests-pass = { $count ->
    [1] 1 teste passa
   *[other] { $count } testes passam
}
tests-ignored = { $count ->
    [1] 1 teste ignorado
   *[other] { $count } testes ignorados
}
tests-not-run = { $count ->
    [1] 1 teste não rodou
   *[other] { $count } testes não rodaram
}: o processo de teste terminou antes
tests-unfinished = { $count ->
    [1] 1 teste ainda rodava
   *[other] { $count } testes ainda rodavam
} quando a execução foi interrompida
tests-failed-silently = { $count ->
    [1] 1 teste falhou
   *[other] { $count } testes falharam
} sem mensagem
tests-failed = { $count ->
    [1] 1 teste
   *[other] { $count } testes
}: { $message }
tests-at = (em { $location })
# Um todo!() ainda no exercício (as palavras do std, depois as do exercício).
tests-todo = ainda não implementado: falta escrever o `todo!()` indicado abaixo (o comentário acima dele diz o quê)
tests-printed = O que { $name } imprimiu:

## O veredito

verdict-times = (compilação { $build } s, testes { $tests } s, { $all } s no total)
verdict-all-pass = Todos os { $count } testes passam { $times }.
verdict-hang = Os testes não terminaram em { $seconds } s e foram interrompidos: isso é um travamento.
verdict-still-running = Ainda rodando: { $tests }
verdict-hang-why = Algo espera para sempre: um lock que nunca é liberado, ou um pool cujas conexões estão todas com pedidos que esperam por mais uma. { $hint } ajuda.
verdict-no-test = { $command } não rodou nenhum teste.
verdict-some-fail = { $failed } de { $count } testes falham, { $passed ->
    [1] 1 passa
   *[other] { $passed } passam
} { $times }.
verdict-next-watching = Edite { $edit }: os testes rodam de novo quando você salvar. Empacou? { $hint }.
verdict-next = Edite { $edit } e rode { $stage } de novo (ou { $watch } para rodar toda vez que você salvar). Empacou? { $hint }.

## Causas que o harness relatou

cause-pool-state = Enquanto esperavam: { $state }.
cause-deadlock-label = travamento?
cause-deadlock = { $count ->
    [1] 1 chamada esperou por uma conexão do pool até desistir.
   *[other] { $count } chamadas esperaram por uma conexão do pool até desistir.
}{ $seen } Se cada conexão do pool está com um pedido que espera por outra, nada anda. { $hint }.
cause-stuck-label = travou?
cause-stuck = { $what } não terminou em { $seconds } s: algo esperou para sempre (um lock nunca liberado, ou um pool sem conexão livre). { $hint }.
cause-not-your-code-label = não é o seu código:
cause-connections-not-opened = o harness não conseguiu abrir suas { $count } conexões antes do teste começar ({ $error }): o servidor demorou a aceitá-las. Rode a etapa de novo; { $doctor } mostra qual servidor os testes usam.
cause-no-server-label = sem servidor:
cause-no-server = os testes não encontraram nenhum servidor PostgreSQL; { $doctor } diz o que falta e como resolver.

## O que vem depois

stage-done = A etapa { $number } está concluída.
next-press-n = tecle n
next-run = rode { $command }
next-stage = Próxima: etapa { $number } · { $title }: { $how }.
last-stage-all-done = Essa foi a última etapa, e todas estão concluídas. Muito bem!
last-stage-open = Essa foi a última etapa; ainda em aberto: etapa { $stages }.
progress-bar = Progresso { $cells } { $done } de { $stages } etapas concluídas · { $right } de { $predictions } previsões certas

## Como uma execução terminou, em uma linha (verify, flaky)

outcome-does-not-compile = não compila ({ $packages }): { $first }
outcome-not-built = não foi compilado: { $why }
outcome-hangs = trava: ainda rodando após { $seconds } s
outcome-no-test = não tem nenhum teste
outcome-passes = passa em todos os testes
outcome-no-server = falha porque não se conseguiu nenhum servidor PostgreSQL (veja { $doctor })
outcome-for-example = , por exemplo { $name }: { $line }
outcome-some-fail = { $failed } de { $count } testes falham{ $example }
outcome-failing-tests = { $failed } de { $count } testes falham: { $tests }

## Erros (os tipos de error.rs, como quem aprende os lê)

error-label = erro:
error-read = não foi possível ler { $path }: { $source }
error-write = não foi possível gravar { $path }: { $source }
error-stages-toml = { $path } não é um arquivo de etapas válido: { $source }
error-state-unreadable = { $path } não pode ser lido ({ $why }); apague-o para recomeçar (`rm { $path }`): o resto do seu progresso é mantido
error-no-root = nenhum caderno encontrado a partir de { $path }: não há stages.toml ao lado de um Cargo.toml aqui nem acima (rode da pasta do caderno, ou passe --root DIR / defina WORKBOOK_ROOT)
error-no-stage = não existe a etapa { $number }: { $available }
error-spawn = não foi possível rodar `{ $program }`: { $source }
error-command = `{ $command }` falhou: { $detail }
error-prompt = a pergunta falhou: { $source }
error-interrupted = interrompido
error-needs-confirmation = { $what } precisa de uma confirmação, e ninguém pode responder (não há terminal): rode com --yes
error-workspace-does-not-build = o workspace não compila; `cargo test --workspace --no-run` mostra por quê
error-workspace-does-not-build-in = o workspace não compila (primeiro erro em { $package }); `cargo test --workspace --no-run` mostra por quê
error-no-executable = o cargo não gerou o executável de teste `{ $target }` de { $package }, que o stages.toml nomeia
error-review-toml = { $path } não é um arquivo de revisão válido: { $source }
error-no-route = não existe a rota { $name } para revisar; as rotas são { $available }
error-probe = probe: { $why }
error-no-api = a etapa { $number } não serve nenhuma API HTTP; `cargo workbook api --stage N` serve as etapas { $served }
error-runtime = não foi possível iniciar um runtime do tokio: { $source }
error-twin-toml = { $path } não é uma tradução válida do arquivo de etapas: { $source }
stages-only-one = { $file } tem só a etapa { $number }
stages-from-to = { $file } tem as etapas { $first } a { $last }
stages-none = { $file } não tem etapas

## Previsões não perguntadas

quiet-ci = CI está definido
quiet-no-terminal = não há terminal para respondê-las

## Perguntar as previsões, rodar os testes

predictions-kept = (Suas previsões da primeira execução estão guardadas; { $reset } as esquece.)
predictions-not-asked-because = (Previsões não perguntadas: { $reason }.)
predict-heading = Antes de qualquer coisa rodar: qual é a sua previsão?
predict-prompt = Sua previsão
predict-why = Por quê? (opcional, Enter para pular)
running-stage-tests = os testes da etapa { $number } (o PostgreSQL sobe antes)
building-package = Compilando { $package }
running-for-predictions = { $package } (para as previsões)
phase-building = Compilando: { $command }
phase-running = Rodando { $what }
phase-tests-done = { $done }/{ $count } testes
run-stopped = a execução dos testes foi interrompida
crash-killed = foi encerrado pelo sinal { $signal }
crash-exited = saiu com o código { $code }
crash-ended = terminou
crash = o processo de teste { $how } antes de relatar os resultados
crash-it-said = o processo de teste { $how } antes de relatar os resultados; ele disse:

## hint

hint-none = A etapa { $number } não tem dicas.
hint-all-shown = Essas foram todas as dicas da etapa { $number } ({ $count } no total):
hint-solution = { $solution } mostra a solução de referência.
hint-title = Dica { $index } de { $count } da etapa { $number } · { $title }
hint-again = { $command } de novo
hint-next = ({ $again } mostra a próxima.)
hint-last = (Essa foi a última dica. { $solution } mostra a solução de referência.)

## progress

column-stage = etapa
column-title = título
column-status = situação
column-predictions = previsões
column-hints = dicas
status-done = concluída
status-tried = tentada ({ $count ->
    [1] 1 execução
   *[other] { $count } execuções
})
status-not-started = não começada
predictions-right = { $right } de { $count } certas
hints-used = { $used } de { $count }
every-stage-done = Todas as etapas estão concluídas. O desafio final: { $review }.
review-none-yet = Revise uma rota ({ $review }): nenhuma das { $count } rotas revisada ainda.
review-scored = Revise uma rota ({ $review }): { $scored } de { $count } rotas revisadas, { $points } de { $out_of } pontos.

## reset

reset-what = Reiniciar a etapa { $number } esquece as previsões, as dicas e o progresso dela.
reset-what-files = Reiniciar a etapa { $number } restaura { $files } como estão no commit (suas mudanças ali se perdem) e esquece as previsões, as dicas e o progresso dela.
reset-confirm = Reiniciar a etapa { $number }?
reset-nothing-changed = Nada foi alterado.
reset-done = A etapa { $number } voltou ao começo: as previsões, as dicas e o progresso dela foram esquecidos.
reset-done-files = A etapa { $number } voltou ao começo: { $files } restaurado; as previsões, as dicas e o progresso dela foram esquecidos.

## solution

solution-confirm = Você ainda não passou na etapa { $number }. Mostrar a solução de referência mesmo assim?
solution-confirm-what = `solution { $number }` antes de a etapa { $number } passar
solution-not-shown = Não mostrada. { $hint } dá uma dica em vez disso.
solution-title = A solução de referência da etapa { $number } · { $title } ({ $package })

## watch

quiet-watching = não há terminal para respondê-las; rode { $stage } uma vez para prever
watch-h-again = h de novo
watch-not-passing-yet = (A etapa { $number } ainda não passa: n avança quando passar.)
watch-last-stage = (Essa foi a última etapa.)
watch-key-next = n: para a etapa { $number }
watch-key-next-later = n: a próxima etapa, quando esta passar
watch-legend = Observando { $dir }: salve um arquivo para rodar de novo. Teclas: h: uma dica · { $next }r: rodar de novo · q: sair

## doctor (o que o harness encontra é citado como ele diz)

doctor-fix = como resolver: { $fix }
doctor-to-use-it = (para usá-lo: { $fix })
doctor-workbook-at = Caderno em { $root }
doctor-where-heading = Onde os testes encontrariam o PostgreSQL, na ordem do harness
doctor-db-unset = WORKBOOK_DB não está definido: o harness escolhe (DATABASE_URL, depois Docker, depois os binários locais).
doctor-db-forced = WORKBOOK_DB={ $value }: o harness usa só esse caminho.
doctor-db-unknown = WORKBOOK_DB={ $value } não é url, container nem local.
doctor-db-unknown-fix = remova WORKBOOK_DB, ou defina-o como url, container ou local
doctor-url-set = 1. DATABASE_URL está definido ({ $url })
doctor-url-unset = 1. DATABASE_URL não está definido (opcional: defina-o para usar um servidor seu).
doctor-engine-answers = 2. Motor de contêineres: { $engine } responde
doctor-engine-missing = 2. Motor de contêineres: { $why }
doctor-engine-fix = inicie um motor Docker, ou Podman, Colima, ... (`docker info` precisa responder)
doctor-binaries = 3. Binários locais: initdb e postgres em { $dir } (encontrados por { $found_by })
doctor-binaries-fix = instale o servidor do PostgreSQL: `apt-get install postgresql` (Debian/Ubuntu), `brew install postgresql@15` (macOS)
doctor-not-root = Não é root: o servidor local roda como você.
doctor-root = Rodando como root, o que o PostgreSQL recusa: o harness roda o servidor como o usuário `{ $user }`.
doctor-will-use = Os testes vão usar
doctor-use-forced-url = DATABASE_URL, porque WORKBOOK_DB=url
doctor-use-forced-container = um contêiner Docker, porque WORKBOOK_DB=container
doctor-use-forced-local = um cluster local descartável, porque WORKBOOK_DB=local
doctor-use-nothing-until-fixed = nada até WORKBOOK_DB ser corrigido
doctor-use-url = o servidor em DATABASE_URL, porque ele está definido
doctor-use-container = um contêiner Docker, porque DATABASE_URL não está definido e o Docker responde
doctor-use-local = um cluster local descartável, porque DATABASE_URL não está definido e o Docker não responde
doctor-use-nothing = nada: nenhum dos três caminhos está disponível
doctor-starting-heading = Subindo o servidor, como os testes fariam
doctor-starting-phase = Subindo o PostgreSQL
doctor-image-default = a padrão
doctor-image-from-variable = de WORKBOOK_PG_IMAGE
doctor-image-here = A imagem { $image } ({ $chosen }) está aqui.
doctor-image-not-here = A imagem { $image } ({ $chosen }) ainda não está aqui: a primeira execução a baixa. Sem acesso a um registro de imagens, { $build } monta workbook-postgres:15 a partir dos pacotes do Debian; WORKBOOK_PG_IMAGE=workbook-postgres:15 a usa.
doctor-image-error = Imagem { $image }: { $why }
doctor-check-engine = confira o motor de contêineres
doctor-kept = Contêiner mantido: { $kept }; { $stage } o reutiliza, { $stop } o remove.
doctor-not-kept = Nenhum contêiner mantido: o próximo { $stage } sobe { $container } e o mantém entre as execuções (o `cargo test` puro e o CI usam contêineres descartáveis).
doctor-kept-error = Contêiner mantido: { $why }
doctor-headroom = max_connections = { $max }: { $used } em uso (contando esta verificação), { $reserved } reservadas para superusuários, então { $free } livres; os testes abrem até umas { $need } de uma vez ({ $per_test } por teste × { $threads } testes em paralelo)
doctor-headroom-fix = aumente o max_connections desse servidor, feche outros clientes, ou rode menos testes de uma vez: RUST_TEST_THREADS=1
doctor-headroom-unknown = max_connections = { $max }, mas a contagem das conexões em uso falhou: { $error }
doctor-headroom-unknown-fix = confira se o servidor aceita conexões deste usuário
doctor-tools-heading = Ferramentas
doctor-git = { $version } ({ $reset } o usa)
doctor-no-git = o git não está no PATH
doctor-no-git-fix = instale o git (`apt-get install git`)
doctor-just = { $version } (opcional: `just stage 1` = `cargo workbook stage 1`)
doctor-no-just = o just não está instalado (opcional: todo comando roda como `cargo workbook ...`)

## O que o cargo está fazendo

build-compiling = compilando { $name } ({ $count } crates até agora; a primeira compilação compila algumas centenas, uma vez só)
build-waiting-for-lock = esperando outro cargo terminar (o lock do diretório de compilação)

## Os campos que os testes registram; um campo sem mensagem aqui aparece pela chave.

field-requests = pedidos
field-payments = pagamentos feitos
field-replies = respostas
field-distinct_bodies = corpos diferentes
field-charges = cobranças
field-statements = comandos
field-batches = lotes
field-reaped = chaves apagadas
field-duplicates_409 = duplicatas com 409
field-unrelated = o pedido da outra chave
field-second = o segundo pedido
field-retry = a nova tentativa
field-provider_calls = chamadas ao provedor
field-created = 201s
field-writes = escritas
field-unrelated_ms = a outra chave levou (ms)
field-tries = tentativas
field-transactions = transações
field-stranded = chaves encalhadas
field-statuses = respostas
field-statements_other_body = comandos (outro corpo)
field-sqlstate = SQLSTATE
field-runs_with_duplicates = execuções com duplicatas
field-runs = execuções
field-retry_gets = a nova tentativa recebe
field-payments_min = menos pagamentos
field-payments_max = mais pagamentos
field-last = a última resposta
field-keys = chaves
field-ids_taken = ids gastos
field-duplicate = a duplicata
field-deleted = apagadas
field-after_lease = depois do prazo de reserva
field-kept = pagamentos mantidos
field-first = a primeira chamada
field-first_status = o status da primeira chamada
field-first_id = o id do primeiro pagamento
field-retry_id = o id do pagamento da nova tentativa
field-acknowledged_at = WAL gravado quando o 201 saiu
field-standby_had = WAL que o standby tinha recebido
field-after_cancel = respondido depois do cancelamento
field-client_gone = um COMMIT cujo cliente foi embora
field-commit = o COMMIT
field-on_primary = no primário
field-on_standby = no standby
field-payment = o pagamento
field-a_retry = nova tentativa de um pagamento respondido antes da queda
field-in_flight_first = o pagamento em andamento, respondido com
field-in_flight_retry = a nova tentativa dele
field-kept_in_flight = pagamentos dele mantidos
field-payments_in_flight = pagamentos dele feitos

## review (o desafio final)

verdict-correct = correta
verdict-incorrect = incorreta
verdict-absent = ausente
verdict-not-applicable = não se aplica
review-evidence-only = (Ninguém pode responder aqui, não há terminal: mostrando só as evidências.)
review-all-reviewed = Todas as rotas estão revisadas. { $again } recomeça.
review-finishing-build = Terminando a compilação das rotas (começada enquanto você lia)
review-next-route = Próxima rota?
review-running-route = a rota { $name } contra os testes da lista de revisão
review-title = Revise uma rota · o desafio final
review-introduction = { $count ->
    [1] 1 rota
   *[other] { $count } rotas
} de `POST /payments`, uma de cada vez. Leia cada uma como um revisor leria, e diga de cada item abaixo se a rota o faz certo (correta), o faz errado (incorreta: diga a linha), ou não o faz de jeito nenhum (ausente). Depois a rota roda de verdade, no PostgreSQL, e os testes dela dizem o que realmente acontece.
review-route-heading = Rota { $name } ({ $file })
review-yours-heading = A sua revisão da rota { $name }
review-choice-correct = correta: ela faz isso, e certo
review-choice-incorrect = incorreta: ela faz isso, errado (você diz a linha)
review-choice-absent = ausente: nada nela faz isso
review-choice-not-applicable = não se aplica: a questão não surge aqui
review-prompt = A resposta da rota
review-lines = Rota, linhas { $from }–{ $to } de { $total } ({ $item }):
review-which-line = Qual linha? (um número; Enter para pular)
review-which-line-paged = Qual linha? (um número; Enter para pular; m: mais linhas, b: voltar)
review-not-a-line = { $text } não é uma linha da rota (1 a { $total }).
review-verdicts-heading = Rota { $name }: a sua revisão, e o que realmente aconteceu
column-item = item
column-route = rota
column-points = pontos
review-said-line = { $verdict }, linha { $line }
review-lines-between = (linhas { $first }–{ $last })
review-fix = Como corrigir: { $fix } A etapa { $stage } ensina isso.
review-broken = quebrado: { $seen }
review-holds-not-applicable = não se aplica: a rota não chama nada fora do banco
review-holds = correta: o teste dela passa
review-unknown = desconhecido: { $why }
review-not-run = desconhecido: não rodou
review-line-wrong = linha { $mark }
review-points = { $points } de { $out_of } pontos na rota { $name } (um por item julgado certo; mais um pela linha de cada falha que está no código).
review-summary-heading = As suas revisões
review-score = { $points } de { $out_of }
review-not-run-yet = ainda não rodou
review-not-reviewed = não revisada
review-in-all = No total: { $points } de { $out_of } pontos.
evidence-heading = As rotas, rodadas: o que os testes delas acham quebrado
evidence-column-broken = quebrado, pelas evidências
evidence-column-observed = o que foi observado
evidence-column-key = gabarito
evidence-none = nada
evidence-every-test-passes = todos os testes passam
evidence-agrees = confere
evidence-no-test-ran = nenhum teste `{ $test }` rodou
evidence-test-did-not-finish = o teste dele não terminou

## db-stop

db-stop-no-engine = Nenhum motor de contêineres responde ({ $why }): nenhum contêiner mantido para remover.
db-stop-removed = { $container } removido ({ $engine }). O próximo { $stage } sobe um novo.
db-stop-nothing = Nenhum { $container } para remover ({ $engine }).

## cargo workbook --help (os comandos e argumentos de main.rs, pelo caminho:
## cli-COMANDO-ARG, ou cli-arg-ARG para um argumento de vários comandos;
## cli-value-NOME para o nome de um valor). As palavras do próprio clap ficam no
## clap.ftl do crate l10n.

cli-about = O executor do Idempotency Workbook: preveja, rode os testes de uma etapa, compare.
cli-after-help = Comece com `cargo workbook stage 1` (ou `just stage 1`, se tiver o just instalado).
cli-arg-root = A raiz do caderno (onde ficam o stages.toml e o Cargo.toml do workspace)
cli-arg-stages = O arquivo das etapas [padrão: RAIZ/stages.toml]
cli-arg-state = Onde ficam as respostas, as dicas e o progresso [padrão: RAIZ/.workbook]
cli-arg-lang = O idioma: en ou pt-BR [padrão: WORKBOOK_LANG, depois o locale (LC_ALL, LC_MESSAGES, LANG), depois en]
cli-arg-number = O número da etapa
cli-arg-timeout = Para os testes depois de tantos segundos e os dá por travados
cli-arg-yes = Não pede confirmação
cli-stage-about = Preveja e depois rode os testes da etapa N no seu exercício
cli-arg-no_predict = Não fazer as perguntas de previsão
cli-hint-about = Mostra a próxima dica da etapa N (uma a mais a cada vez)
cli-watch-about = Roda a etapa N de novo a cada vez que você salva o exercício; teclas: h dica, n próxima etapa, r rodar de novo, q sair
cli-progress-about = Etapas concluídas, previsões certas ou erradas, dicas usadas
cli-timeline-about = Mostra de novo a linha do tempo da última execução de uma etapa: quem esperou por quem na rajada que a decidiu (ou na rajada de outro teste)
cli-timeline-number = A etapa [padrão: a última rodada]
cli-timeline-test = A última rajada deste teste, em vez daquela (o nome dele, ou o fim do nome)
cli-timeline-list = Lista as rajadas da execução, por teste
cli-reset-about = Restaura os arquivos da etapa N como estão no commit e esquece as respostas e dicas dela
cli-solution-about = Mostra a solução de referência da etapa N (pergunta antes, a menos que a etapa esteja concluída)
cli-doctor-about = Qual PostgreSQL os testes vão usar e por quê; o que falta e como resolver
cli-db-stop-about = Remove o contêiner de PostgreSQL mantido entre as execuções (`idempotency-workbook-pg`)
cli-review-about = O desafio final: revise rotas com a lista de revisão e deixe os testes delas corrigirem a sua revisão
cli-review-route = Só esta rota (A, B, ...)
cli-review-again = Esquece as revisões anteriores destas rotas e as revisa de novo
cli-review-evidence = Não pergunta nada: roda todas as rotas e mostra o que os testes delas acham quebrado (o que o CI imprime)
cli-verify-about = O que o CI roda: a solução, o exercício, as variantes sabidamente erradas e os gabaritos de cada etapa, depois cargo fmt e clippy
cli-verify-stage = Só as verificações destas etapas (com os metadados, a compilação e os lints; sem as da revisão); repita a opção para mais de uma etapa
cli-verify-timeout = O limite de cada execução dos testes, em segundos
cli-verify-build_only = Só compila os testes de todos os pacotes, como o verify faz primeiro, sem verificar nada: o CI os compila enquanto o `cargo test` puro roda os seus testes
cli-flaky-about = Se todo veredito do verify é certo: roda N vezes os testes de cada solução e cada pacote sabidamente errado e conta as falhas e as vezes em que um errado passou
cli-flaky-runs = Quantas vezes rodar cada um
cli-flaky-stage = Só esta etapa
cli-flaky-timeout = O limite de cada execução dos testes, em segundos
cli-probe-about = Verifica de fora a idempotência de qualquer API HTTP: uma rajada com uma chave, respostas repetidas, corpos alterados, chaves e corpos inválidos, respostas perdidas, travamentos. Várias URLs: instâncias de uma mesma API, com cada rajada repartida entre elas
cli-api-about = Serve o POST /payments de uma etapa HTTP em 127.0.0.1 (o seu exercício; --solution para a solução de referência) no PostgreSQL do harness, até o Ctrl-C
cli-api-stage = A etapa HTTP cuja API servir
cli-api-solution = Serve a solução de referência em vez do seu exercício
cli-api-port = A porta da primeira instância; 0 usa portas livres (impressas)
cli-api-instances = Quantas instâncias, em portas consecutivas, cada uma um processo próprio sobre um mesmo banco
cli-new-stage-about = Para mantenedores: escreve uma etapa nova (os crates, o arquivo de testes, as páginas e as entradas); `verify --stage N` e as verificações do livro dizem então o que falta escrever
cli-new-stage-slug = O nome curto: palavras minúsculas ligadas por hífens
cli-new-stage-title = O título [padrão: o nome curto em palavras]
cli-manifests-about = Para mantenedores: escreve o Cargo.toml de cada exercício a partir do da solução
cli-value-dir = DIR
cli-value-file = ARQUIVO
cli-value-lang = IDIOMA
cli-value-number = NÚMERO
cli-value-secs = SEGS
cli-value-name = NOME
cli-value-runs = VEZES
cli-value-n = N
cli-value-k = K
cli-value-port = PORTA
cli-value-slug = NOME-CURTO
cli-value-title = TÍTULO
error-unknown-lang = { $given } não é um idioma do caderno (dado por { $by }): use en ou pt-BR
