# O que tests/stage12_middleware.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage12_middleware.ftl; os fatos (números, status, respostas, a linha do
# resultado, o que um pedido recebeu) são argumentos.

## Os auxiliares: um pedido parado no ponto de queda, um pedido que termina em panic

the-request-on-its-way-to-the-crash-point = o pedido, a caminho do ponto de queda,
the-request-ended-without-stopping-at-the-crash-point = o pedido terminou sem parar em `config.after_route`: chame o `pass()` dele depois que a rota responder e antes de guardar a resposta ou liberar a chave. Rode `cargo workbook hint 12`.
a-request-ended-without-an-answer = { $request } terminou num panic em vez de uma resposta: { $error }
the-request-died-at-the-crash-point = o pedido tem de morrer no ponto de queda (a tarefa dele cancelada enquanto parada em `config.after_route`): ele terminou de outro jeito

## `cargo workbook api --stage 12`

the-api-pays = `cargo workbook api --stage 12` serve as rotas da etapa: um pagamento com uma chave nova tem de ser respondido com 201. Recebeu: { $got }
the-api-shows-the-layers-keys = `cargo workbook api --stage 12` imprime `psql ... -c 'table { $table }'` para mostrar as chaves: a chave da camada tem de estar lá, e { $keys ->
    [1] foi encontrada 1 linha
   *[other] foram encontradas { $keys } linhas
}

## Recusado antes de a rota rodar

the-layer-refuses-with-a-problem = a camada tem de recusar o pedido com { $status } e um problema (application/problem+json), antes que a rota possa pagar. Recebeu: { $got }
the-problem-says-why = o tipo do problema tem de dizer por que o pedido foi recusado: { $expected }. Recebeu: { $got }
the-route-never-pays-without-a-key = a rota não pode rodar: uma rota atrás da camada nunca paga sem um cliente e uma chave válida, e { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
a-refused-request-reserves-nothing = um pedido recusado não pode reservar chave nenhuma: { $keys ->
    [1] 1 linha foi gravada
   *[other] { $keys } linhas foram gravadas
} em idempotent_requests
a-body-too-large-is-refused-with-413 = o corpo ({ $bytes } bytes) é maior que `max_body_bytes` (16): a camada não consegue tirar a impressão digital dele, e tem de recusá-lo com 413 e um problema (body-too-large). Recebeu: { $got }
a-refused-request-pays-nothing = a rota não pode rodar para um pedido recusado, e { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
a-key-that-cannot-be-reserved-is-a-500 = a camada não conseguiu reservar a chave: ela tem de responder 500 com um problema, e nunca rodar a rota sem uma reserva. Recebeu: { $got }
no-route-runs-without-a-reservation = a rota não pode rodar sem uma reserva, e { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}

## A rajada, sem a camada e atrás dela

payments-made-by-now = { $wanted ->
    [1] 1 pagamento deveria ter sido feito
   *[other] { $wanted } pagamentos deveriam ter sido feitos
} até aqui: há { $payments }
without-the-layer-each-request-pays = a rota não tem código de idempotência próprio: sem a camada, cada um dos 20 pedidos paga. { $outcome }
behind-the-layer-twenty-requests-pay-once = a mesma rota atrás da camada tem de pagar uma vez para 20 pedidos com uma chave. A camada tem de reservar a chave (num comando só dela, confirmado) antes de rodar a rota. Rode `cargo workbook hint 12`. Resultado: { $outcome }
the-first-request-of-the-burst-pays = o primeiro pedido tem de pagar e ser respondido com 201: as respostas foram { $got }
every-duplicate-in-flight-is-told-409 = toda duplicata chegou enquanto o primeiro estava em andamento (reservado, ainda sem resposta): cada uma tem de receber 409 (tente mais tarde); { $count } de 19 receberam. Resultado: { $outcome }
once-answered-a-retry-gets-the-201-replayed = depois que o primeiro pedido é respondido, uma nova tentativa tem de receber o 201 dele, marcado como resposta repetida (`Idempotent-Replayed: true`). O primeiro recebeu { $first }; a nova tentativa, { $got }

## Uma segunda rota

twenty-refunds-with-one-key-make-one = 20 POST /refunds com uma chave têm de fazer um estorno: { $refunds ->
    [1] foi feito 1 estorno
   *[other] foram feitos { $refunds } estornos
}. As respostas: { $got }
every-201-is-the-one-refunds-answer = todo 201 tem de ser a resposta do único estorno, o mesmo corpo toda vez: { $got }
a-duplicate-refund-gets-the-201-or-409 = uma duplicata tem de receber o 201 do estorno, ou 409 enquanto o primeiro está em andamento; nada além disso: { $got }

## Respostas repetidas

a-new-key-is-answered-201 = um pedido com uma chave nova tem de pagar e ser respondido com 201. Recebeu: { $got }
the-first-answer-is-no-replay = a primeira resposta a uma chave não é repetida: ela não pode trazer `Idempotent-Replayed`. Recebeu: { $got }
the-route-says-where = o 201 da rota diz onde está o pagamento (`Location`), e a camada tem de repassá-lo. Recebeu: { $got }
the-repeat-gets-the-first-answer-again = a repetição tem de receber de novo a primeira resposta: o status, o corpo e os cabeçalhos que valem repetir (`Location`, `Content-Type`), guardados pela camada depois que a rota respondeu; não um novo pagamento. O primeiro recebeu { $first }; a repetição, { $got }
a-replay-says-so = uma resposta repetida tem de dizer isso, com `Idempotent-Replayed: true`. Recebeu: { $got }
the-repeat-paid-nothing = a repetição não pode pagar nada, um pagamento no total: { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Outro pedido com a chave

another-request-with-the-key-is-refused-with-422 = a chave foi usada para outro pedido ({ $path } com { $body }): a impressão digital cobre o método, o caminho e o corpo, então a camada tem de recusá-lo com 422 (key-reused), sem rodar a rota. Rode `cargo workbook hint 12`. Recebeu: { $got }
the-refused-request-paid-nothing = o pedido recusado não pode pagar nada, um pagamento no total: { $payments ->
    [1] há 1
   *[other] há { $payments }
}
the-refused-request-refunded-nothing = o pedido recusado não pode estornar nada: { $refunds ->
    [1] foi feito 1 estorno
   *[other] foram feitos { $refunds } estornos
}
the-same-body-written-differently-is-the-same-request = o mesmo pedido escrito com os campos em outra ordem é o mesmo pedido, e tem de receber de novo o primeiro 201: tire a impressão digital do corpo normalizado (o request_hash da etapa 4). O primeiro recebeu { $first }; este, { $got }

## Uma rota que falhou; o que a camada guarda e o que ela libera

a-refused-payment-is-answered-500 = o INSERT do pagamento foi recusado pelo PostgreSQL: a rota responde 500, e a camada tem de repassar essa resposta. Recebeu: { $got }
a-failed-route-frees-its-key = o pagamento da rota falhou com um ERROR, então nada foi pago, e a rota diz isso (`NothingDone`): a camada tem de liberar a chave, e a nova tentativa, rodar a rota e pagar. Recebeu: { $got }
the-layer-sends-the-routes-status = a rota respondeu { $status }: a camada tem de repassar essa resposta como ela é. Recebeu: { $got }
a-not-done-status-frees-the-key = uma rota respondeu { $status } (e não disse mais nada sobre o efeito dela). O HTTP define 408, 409, 425, 429 e 503 como "não feito, mande de novo": a camada tem de liberar a chave (como com o `NothingDone` de uma rota), e a nova tentativa, rodar a rota. A primeira resposta: { $first }; a da nova tentativa: { $got }
any-other-status-is-kept-and-replayed = uma rota respondeu { $status } (e não disse mais nada sobre o efeito dela). Qualquer resposta que não seja 408, 409, 425, 429 ou 503 tem de ser guardada e repetida: um 2xx ou 4xx é o resultado do pedido, e um 5xx o deixa incerto (o efeito pode ter sido confirmado antes da falha): uma nova tentativa que rodasse a rota de novo poderia fazê-lo duas vezes. A primeira resposta: { $first }; a da nova tentativa: { $got }
a-body-without-an-amount-is-refused-by-the-route = um corpo sem valor tem de ser recusado pela rota com 400 (invalid-body). Recebeu: { $got }
a-refused-body-frees-its-key = a rota recusou o corpo antes de fazer qualquer coisa, e diz isso (`NothingDone` nas extensions da resposta): a camada não pode guardar nada, para que o pedido corrigido com a mesma chave pague. Recebeu: { $got }
the-corrected-request-is-the-only-payment = o pagamento do pedido corrigido tem de ser o único da chave, uma linha em payments: { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Resultado incerto: uma confirmação perdida, uma sessão encerrada, nenhuma conexão

the-relay-lost-the-inserts-answer = o relé do harness perde a resposta do PostgreSQL ao INSERT do pagamento da rota, e não perdeu nada: o INSERT nunca passou por ele. A camada tem de rodar a rota para uma chave nova. O primeiro pedido recebeu { $got }
postgresql-committed-the-payment-before-its-answer-was-lost = o PostgreSQL confirmou (commit) o pagamento antes de a resposta se perder: um pagamento, e { $payments ->
    [1] há 1
   *[other] há { $payments }
}
a-broken-connection-is-answered-500 = a conexão da rota quebrou no meio do comando: a rota não tem como saber se o pagamento foi feito, e responde 500, que a camada tem de repassar. Recebeu: { $got }
an-unknown-outcome-is-kept-as-the-keys-answer = um 5xx cuja rota não disse `NothingDone` deixa o resultado incerto: a camada tem de guardá-lo como a resposta da chave em vez de liberar a chave, para que a nova tentativa receba o mesmo 500, repetido, e não pague uma segunda vez. Rode `cargo workbook hint 12`. O primeiro recebeu { $first }; a nova tentativa, { $got }
one-payment-not-two = um pagamento, não dois: { $payments ->
    [1] há 1
   *[other] há { $payments }
}
the-request-whose-session-ended = o pedido cuja sessão foi encerrada
the-first-request = o primeiro pedido
a-session-ended-mid-payment-is-answered-500 = a sessão do pagamento retido foi encerrada (FATAL): a rota responde 500, que a camada tem de repassar. Recebeu: { $got }
a-fatal-keeps-the-500 = um FATAL encerra a sessão: a rota não tem como provar que ele veio antes do commit, então não diz `NothingDone`, e a camada tem de guardar o 500 e repeti-lo. O primeiro recebeu { $first }; a nova tentativa, { $got }
the-price-of-not-knowing = o preço de não saber: nenhum pagamento foi feito aqui (o pagamento esperava por um bloqueio quando a sessão dele foi encerrada), e a chave continua respondendo que o resultado é incerto; mas { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
every-connection-of-its-pool-taken = todas as conexões do pool dela ficaram ocupadas por mais tempo que o acquire timeout do pool
its-pool-closed = o pool dela foi fechado
a-route-without-a-connection-is-answered-500 = a rota não conseguiu uma conexão ({ $how }): ela responde 500, que a camada tem de repassar. Recebeu: { $got }
a-route-that-got-no-connection-frees-its-key = a rota nunca enviou o INSERT dela ({ $how }): ela sabe que nada foi feito e diz `NothingDone`, então a camada tem de liberar a chave, e a nova tentativa com a mesma chave, pagar. Recebeu: { $got }
the-retrys-is-the-only-payment = o pagamento da nova tentativa tem de ser o único, uma linha em payments: { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Um pedido que nenhuma rota atende

no-route-answers-get-payments = nenhuma rota atende GET /payments: ele tem de receber 405. Recebeu: { $got }
a-request-no-route-answers-reserves-no-key = um pedido que nenhuma rota atende não pode reservar chave nenhuma: a camada só roda para um pedido que uma rota atende (`MethodRouter::route_layer`; `MethodRouter::layer` envolve também o 405). { $keys ->
    [1] 1 linha foi gravada
   *[other] { $keys } linhas foram gravadas
} em idempotent_requests
the-post-is-the-keys-first-request = o POST com a chave é o primeiro pedido da chave: ele tem de pagar e ser respondido com 201 (não repetido). Recebeu: { $got }
the-post-paid-once = o POST com a chave tem de pagar uma vez, uma linha em payments: { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Uma resposta grande demais para guardar

an-answer-too-large-to-keep-is-sent = o pagamento foi feito: a resposta dele tem de ser enviada, por maior que seja, e não um 500 que convidaria a uma nova tentativa. Recebeu: { $got }
the-whole-answer-arrives = a resposta inteira tem de chegar, o `Location` e o id no corpo. Recebeu: { $got }
a-retry-is-told-the-answer-was-not-kept = a chave foi respondida, e a resposta era grande demais para guardar: uma nova tentativa tem de ouvir isso, com 410 e um problema (answer-not-kept), e não 409, que um cliente tenta de novo para sempre. Recebeu: { $got }
an-answered-key-never-runs-the-route-again = a chave está respondida: nenhuma nova tentativa pode rodar a rota de novo, nem depois do prazo de reserva. Um pagamento, e { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## O que a impressão digital deixa de fora

the-fingerprint-ignores-the-query-string-and-the-headers = UM LIMITE, mantido como lição: a impressão digital é o método, o caminho e o corpo; uma query string ou um cabeçalho que muda o pedido (aqui { $uri } com Content-Type { $content_type }) fica de fora dela, e a primeira resposta tem de ser repetida. O primeiro recebeu { $first }; este, { $got }
the-replayed-request-paid-nothing-more = o pedido com a resposta repetida não pode pagar mais nada, uma linha em payments: { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## O limite: uma queda entre o commit da rota e a camada guardar a resposta

the-route-committed-before-the-request-died = a rota tem de ter confirmado (commit) o pagamento antes de o pedido morrer no ponto de queda: { $payments ->
    [1] há 1 pagamento
   *[other] há { $payments } pagamentos
}, não 1
a-reserved-key-without-an-answer-is-409 = a chave está reservada e não tem resposta: a camada não consegue distinguir um pedido em andamento de um morto, então tem de responder 409. Recebeu: { $got }
past-the-lease-the-layer-takes-the-key-over = passado o prazo de reserva, a camada tem de retomar a chave e rodar a rota de novo (um 201 próprio, não repetido): ela não tem como saber que o efeito da rota foi confirmado (commit). Recebeu: { $got }
the-limit-a-crash-in-the-gap-pays-again = O LIMITE, mantido como lição: o efeito foi confirmado na transação da rota, e a resposta seria guardada na da camada; uma queda entre as duas faz a nova tentativa pagar de novo, dois pagamentos, e { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## O prazo de reserva: um pedido mais lento que o prazo dele

past-the-lease-the-duplicate-takes-the-key-over = passado o prazo de reserva, a duplicata tem de retomar a chave e rodar a rota (um 201 próprio, não repetido). Recebeu: { $got }
the-leases-cost-a-slow-route-is-run-again = o custo do prazo de reserva, mantido como lição: uma rota que ainda roda depois do prazo de reserva dela é rodada de novo, então o prazo tem de ser maior do que qualquer rota pode levar. Dois pagamentos, e { $payments ->
    [1] há 1
   *[other] há { $payments }
}
the-keys-answer-is-its-lease-holders = a resposta da chave é a que o dono do prazo de reserva guardou, e nunca muda: a gravação do primeiro pedido tem de citar o número `lease` dele (um token de cercamento, fencing token) e não mudar nada depois que a chave foi retomada. Rode `cargo workbook hint 12`. A duplicata recebeu { $duplicate }; a nova tentativa, { $got }
a-request-that-lost-its-lease-answers-what-the-key-says = o primeiro pedido perdeu o prazo de reserva: ele tem de responder o que a chave diz (o 201 da duplicata), como qualquer duplicata, para que toda resposta para a chave seja a mesma. A duplicata recebeu { $duplicate }; o primeiro pedido, { $got }

## A mesma queda com a rota da etapa 8

in-the-route-the-answer-was-committed-with-the-payment = a resposta foi confirmada (commit) com o pagamento, na única transação da rota: a nova tentativa tem de receber essa resposta repetida. Recebeu: { $got }
in-the-route-one-payment = um pagamento: a chave e o efeito foram gravados juntos; { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Uma rota que ainda roda no fim do prazo de reserva

the-answer-to-a-request-whose-route-outlives-its-lease = a resposta da camada a um pedido cuja rota ainda roda no fim do prazo de reserva (a camada tem de parar de esperar pela rota quando `config.lease` acaba)
the-duplicates-answer = a resposta da duplicata
a-route-past-its-lease-is-answered-outcome-unknown = a rota não respondeu dentro do prazo de reserva: a camada tem de parar de esperar e responder 500 dizendo que o resultado é incerto (outcome-unknown: a rota ainda pode fazer commit). Rode `cargo workbook hint 12`. Recebeu: { $got }
the-key-keeps-the-outcome-unknown = a chave tem de guardar essa resposta: nenhuma retomada pode rodar a rota uma segunda vez enquanto o primeiro ainda pode pagar, então uma duplicata recebe o mesmo 500, repetido. O primeiro recebeu { $first }; a duplicata, { $got }

## Quem pode retomar uma reserva morta

another-request-never-takes-a-dead-reservation-over = a reserva morta foi feita para outro pedido (valor 100): um pedido com valor 999 não pode retomá-la, nem depois do prazo de reserva, e é recusado com 422. Recebeu: { $got }
the-clients-own-retry-takes-the-key-over = a própria nova tentativa do cliente tem de retomar a chave e pagar os 100 dela (um 201 próprio), como depois de qualquer queda na brecha; ela não pode receber repetida a resposta de outro pedido. Recebeu: { $got }

## Um token de cercamento nunca é dado duas vezes: um pedido atrasado depois que a chave foi reservada de novo

the-stale-request = o pedido atrasado (A, mais lento que o prazo de reserva dele)
request-b = o pedido B
request-c = o pedido C
request-d = o pedido D
the-duplicate = a duplicata
bs-payment-was-refused = o pagamento de B foi recusado pelo trigger do teste: ele tem de ser respondido com 500. Recebeu: { $got }
a-stale-release-must-not-free-cs-key = D chegou enquanto C segurava a chave: ele tem de receber 409. Se D pagou, a liberação atrasada de A apagou a reserva de C: o número de prazo de reserva (`lease`) de A foi dado de novo à linha nova de C. Um token de cercamento (fencing token) nunca pode ser dado duas vezes para uma chave (tire-o de uma sequência, ou nunca apague uma linha). Rode `cargo workbook hint 12`. D recebeu { $got }
c-alone-paid = só C pode pagar, um pagamento: { $payments ->
    [1] há 1
   *[other] há { $payments }
}
c-held-the-key-and-paid = C segurava a chave e tem de pagar, respondido com o seu próprio 201 (não repetido). Recebeu: { $got }
a-lost-its-key-its-release-changes-nothing = A perdeu a chave para B: a liberação dele não pode mudar nada, e A tem de responder o que a chave diz (C em andamento: 409), não o seu próprio 500. Recebeu: { $got }
a-stale-store-must-not-answer-for-cs-key = C segura a chave: o seu próprio 201 tem de ser a resposta da chave. Se C recebeu um 201 repetido, a gravação atrasada de A escreveu a resposta de A na linha nova de C: o número de prazo de reserva (`lease`) de A foi dado de novo a C. Um token de cercamento (fencing token) nunca pode ser dado duas vezes para uma chave. Rode `cargo workbook hint 12`. C recebeu { $c }; A, { $a }
the-keys-answer-is-cs = a resposta da chave tem de ser a de C, repetida. C recebeu { $c }; a nova tentativa, { $got }
a-lost-its-key-its-store-changes-nothing = A perdeu a chave: a gravação dele não pode mudar nada, e A tem de responder o que a chave diz (C em andamento: 409). Recebeu: { $got }
a-and-c-both-paid = o custo do prazo de reserva, mantido: A (mais lento que o prazo de reserva dele) e C pagaram os dois, dois pagamentos, e { $payments ->
    [1] há 1
   *[other] há { $payments }
}
a-release-queued-behind-a-take-over-deletes-nothing = a liberação de A esperou pela retomada de B e então encontrou a linha com outro prazo de reserva: ela não pode apagar nada, e A tem de responder o que a chave diz (B em andamento: 409). Confira o `lease` de novo no próprio comando que libera (no `WHERE` dele), não antes. Recebeu: { $got }
b-holds-the-key-a-duplicate-is-told-409 = B segura a chave: uma duplicata tem de receber 409. Se ela pagou, a liberação de A apagou a reserva de B. Recebeu: { $got }
b-took-the-key-over-and-paid = B retomou a chave: ele tem de pagar, respondido com o seu próprio 201 (não repetido). Recebeu: { $got }
b-alone-paid = só B pode pagar, um pagamento: { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Uma limpeza, depois uma retomada

a-stale-store-must-not-match-a-row-made-again = o prazo de reserva de A acabou e a linha dele foi apagada: a linha nova de B tem um `lease` que A nunca teve, então a gravação de A não pode mudar nada, e A tem de responder o que a chave diz (B em andamento: 409). Se A respondeu o seu 201, a gravação dele casou com a linha nova de B: um número de prazo de reserva foi dado de novo a uma linha criada de novo (tire-o de uma sequência). Rode `cargo workbook hint 12`. Recebeu: { $got }
b-owns-the-key-after-the-clean-up = B é o dono da chave depois da limpeza: o seu próprio 201 tem de ser a resposta da chave (não repetido). Recebeu: { $got }
the-keys-answer-is-bs = a resposta da chave tem de ser a de B, repetida. B recebeu { $b }; a nova tentativa, { $got }
a-and-b-both-paid = o custo do prazo de reserva, mantido: A (mais lento que o prazo de reserva dele) e B pagaram os dois, dois pagamentos, e { $payments ->
    [1] há 1
   *[other] há { $payments }
}

## Uma chave liberada entre a reserva e a leitura

the-table-lock = o bloqueio de tabela do teste
the-release = a liberação da chave
a-key-freed-before-the-read-is-reserved-again = a duplicata encontrou a chave reservada, e depois nenhuma linha: o pedido que segurava a chave a liberou nesse meio-tempo. A chave está livre: reserve-a de novo (e rode a rota), em vez de responder 409 para um pedido que não está mais em andamento. Rode `cargo workbook hint 12`. Recebeu: { $got }
the-request-that-reserved-the-key-again-is-its-only-payment = o pagamento do pedido que reservou a chave de novo tem de ser o único da chave, uma linha em payments: { $payments ->
    [1] há 1
   *[other] há { $payments }
}
a-request-through-the-layer = um pedido através da camada, ou parado num ponto de queda onde só o primeiro pedido para,
