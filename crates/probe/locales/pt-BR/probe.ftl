# Cada palavra dos relatórios do probe, em português do Brasil (quem as diz é
# crates/probe/src/words.rs). Mesmos ids que ../en/probe.ftl; os fatos (status,
# contagens, chaves, cabeçalhos, o que o servidor mandou) são argumentos. Os
# campos de máquina dos relatórios JSON e JUnit (ids das verificações, códigos
# de veredito, chaves e argumentos das mensagens, nomes da suíte e dos casos de
# teste) não estão aqui: são os mesmos em todo idioma.

## Os títulos das verificações (title-ID).
title-burst = pedidos simultâneos, uma chave: um efeito, uma resposta
title-replay = uma nova tentativa posterior repete a resposta
title-different-body = mesma chave, outro corpo: recusado
title-concurrent-body = mesma chave, outro corpo, com o primeiro em andamento: recusado
title-distinct-keys = duas chaves, mesmo corpo: dois efeitos
title-rewritten-body = o mesmo pedido escrito de outro jeito: resposta repetida
title-bad-keys = chave ausente, vazia, longa demais: recusada
title-bad-bodies = não é JSON, passa do limite de tamanho: nenhum efeito, a menos que aceito
title-lost-answer = resposta perdida, pedido perdido, resposta atrasada: a nova tentativa é segura
title-hang = rajadas maiores que um pool: todas respondidas

## Vereditos, cabeçalhos, o resumo.
verdict-pass = passa
verdict-warn = alerta
verdict-fail = falha
verdict-skipped = pulada
heading-check = verificação
heading-verdict = veredito
heading-why = por quê
heading-where-the-draft-leaves-it-open = onde o rascunho deixa em aberto
heading-what-this-api-does = o que esta API faz
profile-title = O que a API escolheu onde o rascunho do IETF deixa em aberto:
summary = { $pass } passaram, { $warn } com alerta, { $fail } falharam, { $skipped } puladas em { $seconds } s; { $effects }
summary-effects-counted = efeitos contados no banco
summary-effects-not-counted = efeitos não contados (passe --database-url e --count-sql para contá-los)
summary-warnings-fail = (--fail-on-warn: os alertas reprovam a execução)
junit-warned = alerta: { $why }

## O perfil: o que a API escolheu onde o rascunho deixa em aberto.
profile-in-flight = uma duplicata com o primeiro em andamento
profile-replay-marker = uma resposta repetida vem marcada
profile-concurrent-other-body = outro corpo com o primeiro em andamento
profile-key-lifetime = quanto tempo uma chave vive, anunciado
profile-not-observed = não observado ({ $check } não passou)
profile-in-flight-waits = espera o primeiro e recebe a resposta dele (sem 409)
profile-in-flight-conflict-after = 409 Conflict, Retry-After: { $after }
profile-in-flight-conflict = 409 Conflict, sem Retry-After
profile-replay-not-marked = não marcada (nenhum cabeçalho indica uma resposta repetida)
profile-other-body-unprocessable = 422, a resposta do rascunho para outro conteúdo
profile-other-body-conflict = 409, a resposta do rascunho para um pedido em andamento; depois { $then }
profile-other-body-refused = recusado com { $status }
profile-key-lifetime-not-advertised = não vem num cabeçalho (o rascunho pede isso na documentação)

## As palavras dos fatos.
tallied-unanswered = sem resposta no prazo
tallied-no-answer = sem resposta
case-key-missing = ausente
case-key-empty = vazia
case-key-too-long = longa demais ({ $characters } caracteres)
case-not-json = não é JSON
case-over-the-limit = acima do limite ({ $bytes } bytes)
fault-answer-lost = resposta perdida depois que o servidor respondeu
fault-request-lost = pedido perdido antes do servidor
fault-answer-late = resposta retida além do timeout do cliente
server-saw-nothing = nada
no-answer-connect = não conseguiu conectar: { $reason }
no-answer-timeout = sem resposta em { $bound }
no-answer-closed = a conexão fechou antes de uma resposta
no-answer-malformed = a resposta não é HTTP/1.1: { $excerpt }

## Cada frase de um relatório (said-CHAVE, CHAVE como as mensagens do relatório JSON a nomeiam).
said-skipped-on-request = pulada a pedido (--skip)
said-stuck-burst-deadlock = suspeita de travamento do pool: a rajada deixou pedidos sem resposta
said-skipped-after-stuck-burst = a rajada deixou pedidos sem resposta (veja hang): as respostas seguintes só mostrariam o servidor travado
said-effects = efeitos: { $created } criados
said-effects-expected = efeitos: { $created } criados (esperados: { $expected })
said-effects-mismatch = { $created } efeitos onde se esperavam { $expected }
said-no-retry-after = respostas que pedem uma nova tentativa vieram sem Retry-After ({ $tally }): o cliente não tem como saber quando voltar
said-not-answered-within = sem resposta em { $bound }
said-answered = { $status } { $media_type } { $body }
said-not-answered = sem resposta: { $why }
said-first-answer = primeiro: { $answer }
said-retry-answer = nova tentativa: { $answer }
said-other-body-answer = outro corpo: { $answer }
said-key-answer = chave { $key }: { $answer }
said-rewritten-answer = como { $body }: { $answer }
said-case-answer = { $case }: { $answer }
said-burst-sent = { $size } pedidos, chave { $key }, cabeçalhos primeiro e depois todos os corpos de uma vez: { $tally } em { $ms } ms
said-burst-sent-across = { $size } pedidos, chave { $key }, cabeçalhos primeiro e depois todos os corpos de uma vez, espalhados por { $instances } instâncias: { $tally } em { $ms } ms
said-burst-unanswered = { $answered } de { $size } respondidos em { $bound }; { $unanswered } sem resposta
said-burst-left-unanswered = rajada de { $size }, uma chave: { $answered } de { $size } respondidos em { $bound }; { $unanswered } sem resposta
said-burst-deadlock = { $unanswered } de { $size } pedidos ficaram sem resposta: suspeita de travamento do pool
said-in-flight-retried = { $count } respostas 409 (em andamento) tentadas de novo com a mesma chave: depois, { $tally }
said-no-final-answer = alguns pedidos nunca receberam uma resposta final (ainda 409, ou nenhuma)
said-ids = ids: { $ids }
said-bodies-identical = corpos: idênticos, byte a byte
said-bodies-same-json = corpos: o mesmo JSON, não os mesmos bytes (chaves reordenadas ou espaçadas)
said-bodies-different = corpos: diferentes
said-many-ids = { $ids } ids diferentes para uma chave: { $ids } efeitos
said-answers-differ = as respostas para uma chave diferem
said-no-success = todo pedido foi respondido com { $status }, não com um sucesso
said-burst-passed = { $size } × { $status }, um id, o mesmo corpo
said-in-flight-without-retry-after = mas um 409 em andamento veio sem Retry-After
said-no-answer-to-a-request = um pedido ficou sem resposta
said-replay-marked = a nova tentativa traz { $header }: { $value }
said-replay-not-marked = nenhum cabeçalho marca a nova tentativa como resposta repetida (opcional: o rascunho não define nenhum)
said-retry-got-another-id = a nova tentativa recebeu outra resposta, com outro id
said-retry-got-another = a nova tentativa recebeu outra resposta
said-replayed-byte-for-byte = a nova tentativa recebeu o mesmo { $status } e o mesmo corpo, byte a byte
said-replayed-same-json = a nova tentativa recebeu o mesmo { $status } e o mesmo corpo, o mesmo JSON, não os mesmos bytes
said-second-not-answered = o segundo pedido ficou sem resposta
said-refused422 = recusado com 422, como diz o rascunho do IETF
said-refused-not422 = recusado com { $status }; o rascunho do IETF responde 422 a uma chave reutilizada
said-accepted-other-body = aceito com { $status }: ou um segundo efeito, ou a primeira resposta passada como se fosse desta
said-answered-error = respondido com { $status }: um erro, não uma recusa
said-pair-sent = os dois pedidos enviados menos o último byte do corpo, depois o do primeiro e, logo em seguida, o do segundo: respondidos em { $ms } ms
said-pair-body-answer = o corpo: { $answer }
said-pair-other-body-answer = outro corpo, mesma chave: { $answer }
said-pair-retried-after409 = o recusado, tentado de novo { $count } vezes depois do 409 dele: { $answer }
said-pair-refused = outro corpo com o primeiro em andamento: recusado com { $status }, um efeito
said-pair-conflict-then = outro corpo com o primeiro em andamento: 409, depois { $then } quando o primeiro terminou
said-pair-refused-other = outro corpo com o primeiro em andamento: recusado com { $status }; o rascunho responde 422 (outro conteúdo) ou 409 (em andamento)
said-pair-both-accepted = os dois corpos aceitos com dois ids: dois efeitos para uma chave
said-pair-passed-off = os dois corpos aceitos com um só id: o outro corpo ouviu que o pagamento do primeiro era dele
said-pair-accepted-after-conflict = 409 com o primeiro em andamento, depois aceito com { $status } quando tentado de novo com o outro corpo
said-pair-none-accepted = nenhum pedido foi aceito: o primeiro de uma chave nova deveria ser
said-two-keys-two-ids = duas chaves, dois ids
said-two-keys-one-id = duas chaves receberam o mesmo id: o servidor identifica pelo corpo, não pela chave
said-new-key-not-created = uma chave nova não foi respondida com um recurso criado
said-nothing-to-reorder = o corpo não é um objeto JSON de dois campos ou mais: nada a reordenar
said-rewritten-replayed = resposta repetida: o servidor compara pedidos, não bytes
said-rewritten-refused = recusado com { $status }: trata um corpo reordenado como outro pedido
said-rewritten-accepted = aceito como pedido novo: um segundo efeito
said-answered-status = respondido com { $status }
said-not-refused = não recusados com um 4xx: { $cases }
said-not-a-problem = recusados, mas não como application/problem+json: { $cases }
said-bad-keys-refused = chaves ausente, vazia e longa demais: cada uma recusada com um problema 4xx
said-bodies-accepted = aceitos: { $cases } (sem limite, ou sem validação: higiene, não idempotência)
said-neither-accepted-nor-refused = nem aceitos nem recusados com um 4xx: { $cases }
said-bad-bodies-refused = um corpo que não é JSON e um grande demais: cada um recusado com um problema 4xx
said-lost-exchange = { $fault }: o cliente viu { $client }; o servidor tinha respondido { $server }; nova tentativa: { $retry }
said-lost-retry-unanswered = { $fault }: a nova tentativa ficou sem resposta
said-lost-retry-got = { $fault }: a nova tentativa recebeu { $status }
said-lost-retry-differs = { $fault }: a nova tentativa não recebeu a resposta perdida
said-lost-answers-replayed = cada nova tentativa com a mesma chave recebeu a resposta que o cliente perdeu
said-hang-burst = { $size } pedidos, uma chave: { $tally } em { $ms } ms
said-hang-unanswered = { $answered } de { $size } respondidos em { $bound }
said-hang-deadlock = suspeita de travamento do pool: { $answered } de { $size } respondidos em { $bound }
said-hang-gave-up = todo pedido respondido, mas { $errors } com um 5xx: o servidor desistiu deles
said-hang-no-retry-after = todo pedido respondido, mas algum 409 ou 5xx sem Retry-After
said-hang-answered = todo pedido de toda rajada respondido

## A saída de erro.
error-line = erro: probe: { $error }
warning-line = aviso: { $warning }
remote-warning = --allow-remote: o probe manda pedidos reais, que criam recursos reais
unknown-lang = erro: { $given } não é um idioma do probe (dado por { $by }): use en ou pt-BR
report-format-unknown = não há formato de relatório { $name }: table, markdown, json ou junit, por exemplo junit=probe.xml
report-names-no-file = { $text } não dá nome de arquivo: { $name }=ARQUIVO, ou só { $name } para a saída padrão

## idempotency-probe --help (os argumentos de src/main.rs e src/cli.rs, por id:
## cli-arg-ARG; cli-value-NOME para o nome de um valor; o cli do l10n diz as
## palavras do próprio clap).
cli-about = Verifica a idempotência de qualquer API HTTP por fora: uma rajada com uma chave, respostas repetidas, corpos alterados, chaves e corpos inválidos, respostas perdidas, travamentos.
cli-after-help = Códigos de saída: 0 nenhuma verificação falhou (alertas também não, a menos que --fail-on-warn); 1 uma verificação falhou; 2 o probe não conseguiu rodar; 3 só alertas, com --fail-on-warn.
cli-arg-urls = O servidor, por exemplo http://127.0.0.1:8080 (HTTP simples; só esta máquina, a menos que --allow-remote). Várias URLs: instâncias de uma API sobre um banco; cada rajada é distribuída entre elas
cli-arg-path = A rota que cria, acrescentada à URL
cli-arg-method = O método HTTP da rota que cria
cli-arg-key_header = O cabeçalho da chave de idempotência
cli-arg-body = O corpo JSON; { $placeholder } vira um número novo em cada cenário
cli-arg-other_body = Outro corpo para o mesmo { $placeholder }: o que "mesma chave, outro corpo" manda
cli-arg-id_pointer = Ponteiro JSON para o id do recurso criado numa resposta 2xx
cli-arg-headers = Um cabeçalho a mais em todo pedido, por exemplo -H 'Authorization: Bearer t' (pode repetir)
cli-arg-burst = Pedidos na rajada, todos com uma chave
cli-arg-hang = As rajadas da verificação de travamento, em ordem
cli-arg-timeout_ms = O limite de cada pedido, em milissegundos
cli-arg-database_url = Onde contar os efeitos (URL do PostgreSQL); com --count-sql
cli-arg-count_sql = Uma consulta que devolve quantos efeitos existem, por exemplo "select count(*) from payments"
cli-arg-skip = Uma verificação a não rodar (pode repetir)
cli-arg-allow_remote = Verifica um servidor que não está nesta máquina (o probe manda pedidos reais)
cli-arg-reports = Um relatório a escrever: table, markdown, json ou junit, num arquivo depois do = (por exemplo --report junit=probe.xml) ou na saída padrão (pode repetir; a tabela vai para a saída padrão, a menos que outro relatório vá)
cli-arg-fail_on_warn = Um alerta também reprova a execução: código de saída 3 quando nenhuma verificação falhou mas uma deu alerta, e alertas são falhas no relatório JUnit
cli-arg-json = Imprime o relatório em JSON (para CI): --report json
cli-arg-markdown = Imprime o relatório como tabela Markdown: --report markdown
cli-arg-verbose = Mostra a evidência de toda verificação, não só das que falharam ou deram alerta
cli-arg-timeline = Desenha a linha do tempo da rajada sob a sua evidência mesmo quando ela passou (ela é desenhada sempre que a rajada falha ou dá alerta, e com --verbose): uma faixa por pedido, de quando foi enviado a quando a resposta chegou (ou ao limite), com o status e se veio marcada como resposta repetida; faixas iguais dobradas numa só. O probe não vê os locks nem as transações do servidor, só quando cada resposta voltou
cli-arg-lang = O idioma das palavras do relatório: en ou pt-BR [padrão: WORKBOOK_LANG, depois a localidade (LC_ALL, LC_MESSAGES, LANG), depois en]. Os identificadores dos relatórios JSON e JUnit (ids das verificações, códigos de veredito, chaves das mensagens) são os mesmos em todo idioma
cli-value-url = URL
cli-value-path = CAMINHO
cli-value-method = MÉTODO
cli-value-name = NOME
cli-value-template = MODELO
cli-value-pointer = PONTEIRO
cli-value-name-value = 'NOME: VALOR'
cli-value-n = N
cli-value-n-n = N,N
cli-value-ms = MS
cli-value-sql = SQL
cli-value-check = VERIFICAÇÃO
cli-value-format-file = FORMATO[=ARQUIVO]
cli-value-lang = IDIOMA

# O que para o probe antes de ele ter o que relatar (o ProbeError de error.rs): uma
# linha cada, dizendo o que mudar.
probe-error-remote = { $host } resolve para { $addr }, que não é esta máquina: o probe manda pedidos reais, que criam recursos reais; passe --allow-remote se é isso que você quer
probe-error-resolve = não foi possível resolver { $host }: { $reason }
probe-error-unreachable = nada responde em { $addr } ({ $reason }): o servidor está rodando, e nesta porta?
probe-error-no-answer = o servidor em { $target } aceitou as conexões mas não respondeu nenhum dos { $sent } pedidos em { $bound }: ele está travado, ou nem é um servidor HTTP?
probe-error-not-json = o servidor em { $target } respondeu { $status } com um corpo que não é JSON ({ $media_type }: { $excerpt }): o probe precisa de uma resposta JSON com o id do recurso criado
probe-error-refused = o servidor em { $target } recusou o primeiro pedido do probe com { $status } ({ $excerpt }): ajuste --path, --body ou --header ao que a rota espera
probe-error-no-id = o servidor em { $target } respondeu 2xx sem um id no ponteiro JSON { $pointer } (corpo: { $excerpt }): ajuste --id-pointer
probe-error-count = a contagem de efeitos falhou ({ $reason }): confira --database-url e --count-sql
probe-error-no-counting = este probe foi compilado sem PostgreSQL, então não consegue contar efeitos: instale-o com `cargo install --locked --path crates/probe --features postgres`, ou deixe de fora --database-url e --count-sql
probe-error-write = não foi possível gravar o relatório { $format } em { $path }: { $reason }

# Um erro nas opções ou na URL do probe (options.rs, cli.rs): o que está errado e
# como corrigir. O valor dado é um argumento, entre aspas como foi dado.
probe-mistake-no-url = nenhuma URL: dê a do servidor, por exemplo http://127.0.0.1:8080
probe-mistake-body-without-n = --body { $body } não tem {"{"}n{"}"}: cada cenário precisa de um corpo próprio (por exemplo {"{"}"orderId": {"{"}n{"}"}, "amount": 100{"}"})
probe-mistake-body-not-json = --body { $body } não é JSON quando {"{"}n{"}"} vira um número
probe-mistake-same-bodies = --other-body tem de ser diferente de --body
probe-mistake-id-pointer = --id-pointer { $pointer } não é um ponteiro JSON: ele começa com / (por exemplo /id, /data/id)
probe-mistake-path = --path { $path } tem de começar com /
probe-mistake-burst-size = as rajadas têm de 2 a 200 pedidos
probe-mistake-count-alone = --database-url e --count-sql andam juntos: onde contar, e o quê (por exemplo --count-sql "select count(*) from payments")
probe-mistake-url-https = { $url }: o probe só fala HTTP simples; teste o servidor na porta HTTP simples dele (por exemplo http://127.0.0.1:8080)
probe-mistake-url-scheme = { $url }: esperava http://HOST:PORTA (por exemplo http://127.0.0.1:8080)
probe-mistake-url-bracket = { $url }: [ sem fechar no host
probe-mistake-url-no-host = { $url }: falta o host
probe-mistake-url-port = { $url }: a porta não é um número de 1 a 65535
probe-mistake-header = -H { $line } não é 'NOME: VALOR'
probe-mistake-reports-on-stdout = { $count } relatórios na saída padrão ({ $formats }): dê um arquivo a todos menos um, por exemplo --report junit=probe.xml
probe-mistake-no-runtime = não foi possível iniciar um runtime do tokio: { $error }
probe-mistake-no-proxy-port = o proxy de falhas não encontrou porta livre em 127.0.0.1: { $error }
