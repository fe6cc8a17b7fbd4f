# O que tests/stage8_key_per_client.rs diz, em português do Brasil. Mesmos ids
# que ../en/stage8_key_per_client.ftl; os fatos (números, respostas, cabeçalhos,
# SQLSTATEs, tipos de problema, a linha do resultado) são argumentos. Os plurais
# vão pelo número exato ([0], [1]), nunca por [one], que no português do CLDR
# também pega o 0.

payments-made-by-now = { $wanted ->
    [0] nenhum pagamento deveria ter sido feito
    [1] 1 pagamento deveria ter sido feito
   *[other] { $wanted } pagamentos deveriam ter sido feitos
} até aqui: { $payments ->
    [0] não há nenhum
    [1] há 1
   *[other] há { $payments }
}
a-refusal-is-a-problem = uma recusa é um problema da RFC 9457: o Content-Type tem de ser "{ $wanted }", e é "{ $got }"
the-problem-type-says-what-was-wrong = o tipo do problema tem de dizer o que estava errado, { $wanted }: a resposta foi { $got }
a-refused-request-stores-no-key = um pedido recusado não pode guardar chave nenhuma, e mesmo assim { $keys ->
    [1] foi gravada 1 linha de chave
   *[other] foram gravadas { $keys } linhas de chave
}: recuse antes da transação
a-refused-request-pays-nothing = um pedido recusado não pode pagar nada, e mesmo assim { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}: recuse antes da transação
one-payment-for-each-client = um pagamento para cada cliente: o cliente A tem { $a }, o cliente B tem { $b }
with-the-authorization = com `Authorization: { $value }`
with-no-authorization = sem Authorization
with-the-key = com `Idempotency-Key: { $key }`
with-no-key = sem Idempotency-Key
a-request-is-refused = um pedido { $authorization } e { $key } tem de ser recusado com { $status }: recebeu { $got }
a-401-says-how-to-authenticate = um 401 diz como se autenticar: o cabeçalho WWW-Authenticate tem de começar com Bearer (RFC 9110 e RFC 6750); a resposta foi { $got }
a-body-over-the-limit-is-a-413 = um corpo de { $megabytes } MB de um cliente conhecido passa do limite (o axum lê no máximo { $limit } MB): tem de ser recusado com 413 Payload Too Large; recebeu { $got }
no-answer-after-the-body-stopped = nenhuma resposta { $seconds } s depois de o corpo parar de chegar: a rota espera para sempre. Limite a leitura do corpo, como a etapa 6 faz
a-body-that-stops-arriving-is-a-408 = um corpo que para de chegar é um 408 Request Timeout: o pedido recebeu { $got }
the-server-closes-after-a-408 = o servidor tem de fechar a conexão depois de um 408: o resto do corpo ainda pode chegar, e o próximo pedido não poderia ser distinguido dele
each-clients-first-request-pays = o primeiro pedido de cada cliente com a chave { $key } tem de pagar e ser respondido com 201: A recebeu { $a }, B recebeu { $b }
two-clients-two-payments = dois clientes, dois pagamentos, mesmo com o mesmo texto de chave: A e B receberam, os dois, o id de pagamento { $id }. Uma chave pertence ao seu cliente: PRIMARY KEY (client_id, key). Rode `cargo workbook hint 8`
a-repeat-replays-its-own-clients-answer = um pedido repetido recebe a resposta repetida do próprio cliente: leia a resposta guardada por (client_id, key). A primeira resposta de A foi { $a }, a repetição recebeu { $again_a }; a primeira de B foi { $b }, a repetição recebeu { $again_b }
the-repeats-paid-nothing = as repetições não podem pagar nada: um pagamento para cada cliente, e o cliente A tem { $a }, o cliente B tem { $b }
a-clients-twenty-answers-are-one-201 = as 20 respostas do cliente { $name } têm de ser, todas, um mesmo 201 com um só corpo: foram { $statuses }, com { $bodies } corpos diferentes
one-of-a-clients-answers-is-the-first = as 20 respostas do cliente { $name } têm de ser uma primeira resposta e 19 repetições que dizem Idempotent-Replayed; { $firsts } delas vieram sem esse cabeçalho, e não 1
a-and-b-each-get-their-own-payment = A e B têm de receber, cada um, o próprio pagamento: os dois receberam o id de pagamento { $id }
two-clients-one-key-each-two-payments = dois clientes, uma chave cada: dois pagamentos, e { $payments ->
    [0] não foi feito nenhum
    [1] foi feito 1
   *[other] foram feitos { $payments }
}
as-first-request-pays = o primeiro pedido de A com a chave { $key } tem de pagar: recebeu { $got }
b-never-receives-as-answer = B nunca pode receber a resposta guardada de A (o id de pagamento e o valor de A): isso é um vazamento de dados. B recebeu { $got }. Leia e guarde a chave por (client_id, key)
bs-key-is-bs-own = a chave de B é de B: o primeiro uso dela paga e é respondido com 201; B recebeu { $got }
bs-answer-is-no-replay = a resposta de B não é uma repetição, e mesmo assim diz Idempotent-Replayed: { $got }
the-first-request-is-answered-201 = o primeiro pedido tem de ser respondido com 201: recebeu { $got }
the-first-answer-is-no-replay = a primeira resposta não é uma repetição, e mesmo assim diz Idempotent-Replayed: { $got }
a-repeat-replays-the-201 = um pedido repetido com a mesma chave e o mesmo corpo tem de receber o primeiro 201 e o corpo dele, repetidos: o primeiro recebeu { $first }, o repetido { $again }
a-replay-says-so = uma resposta repetida diz isso, com Idempotent-Replayed: true; o pedido repetido recebeu { $got }
another-body-is-refused-with-422 = a chave foi usada com outro corpo: o pedido tem de ser recusado com 422; recebeu { $got }
a-refusal-is-no-replay = uma recusa é uma resposta própria, não uma repetição, e mesmo assim diz Idempotent-Replayed: { $got }
a-new-key-is-answered-201 = um pedido com uma chave nova tem de ser respondido com 201: recebeu { $got }
the-triggers-table-can-be-read = o harness não conseguiu ler a tabela do trigger: { $error }
the-payment-runs-under-the-databases-lock-timeout = o pagamento tem de rodar sob o lock_timeout do próprio banco (7s aqui), e rodou sob: { $seen }. Volte ao que `current_setting('lock_timeout')` dizia antes do INSERT que reserva a chave, não a '0', que passaria por cima das configurações do banco e do papel (role). Rode `cargo workbook hint 8`.
one-key-one-payment-at-any-isolation-level = uma chave, um pagamento, em qualquer nível de isolamento: { $outcome }
the-duplicates-are-run-again-into-replays = os 20 pedidos têm de receber o 201: a primeira transação de cada duplicata falha com uma falha de serialização (SQLSTATE 40001), não confirmou nada e é executada de novo; aí ela repete o 201. Rode `cargo workbook hint 8`. ({ $outcome })
the-same-payment-replayed = os 20 corpos têm de ser o mesmo pagamento, repetido: { $outcome }
with-one-attempt-the-duplicates-fail-with-a-500 = com `attempts: 1` nada é executado de novo: ao lado do único 201, as 19 duplicatas que esperaram pela chave têm de falhar com 40001, respondidas com um problema 500 (nada cobrado, tente de novo). ({ $outcome })
a-failed-payment-fails-the-call = o INSERT do pagamento falha, então create_payment tem de falhar: retornou { $got }
rolled-back-before-the-error-is-returned = create_payment retornou o erro com a transação ainda aberta (as sessões: { $sessions }). Descartar `tx` (`?`) só enfileira o ROLLBACK, enviado quando a conexão volta ao pool; até lá a chave continua bloqueada. Faça o rollback antes de retornar o erro, como a etapa 5 faz.
the-first-request = o primeiro pedido
the-first-requests-task-ends = a task do primeiro pedido entrou em pânico: { $error }
a-duplicate-in-flight-is-told-409 = uma duplicata de um pedido ainda em andamento espera pela chave os 250 ms do limite e depois recebe 409 (o lock da chave estourou o tempo: SQLSTATE 55P03): recebeu { $got }
the-first-request-pays-once-let-go = o primeiro pedido tem de pagar quando liberado: recebeu { $got }
every-run-fails-so-create-payment-does = toda execução falha com SQLSTATE { $sqlstate }, então create_payment tem de retornar esse erro: retornou { $got }
the-transaction-runs-at-most-the-configured-attempts = SQLSTATE { $sqlstate }: a transação deveria ter sido executada { $runs ->
    [1] 1 vez
   *[other] { $runs } vezes
} (config.attempts é 3; só 40001 e 40P01 são executados de novo), e foi executada { $ran ->
    [0] nenhuma vez
    [1] 1 vez
   *[other] { $ran } vezes
}
