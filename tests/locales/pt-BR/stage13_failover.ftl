# O que tests/stage13_failover.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage13_failover.ftl; os fatos (chaves, respostas, números,
# configurações, as palavras de um erro) são argumentos.

answer-with-a-payment = { $status } (pagamento { $id })
answer-replaying-a-payment = { $status } (pagamento { $id }, resposta repetida)
the-first-payment-is-answered-201 = o primeiro pagamento tem de ser respondido com 201, com o standby recebendo o stream e os servidores saudáveis: recebeu { $got }
the-route-waits-for-the-standby-forever = o pagamento não teve resposta em { $seconds } s enquanto o standby estava fora: a rota espera pelo standby enquanto ele estiver fora. Limite a espera do COMMIT (config.commit_wait) e depois cancele-a pelo pool watchdog. Rode `cargo workbook hint 13`.
only-the-paying-transaction-waits = { $what } não teve resposta em { $seconds } s enquanto o standby estava fora: esperou pelo standby. Só a transação que paga pode esperar: deixe toda outra gravação local (synchronous_commit = local em primary.conf) e peça a espera com SET LOCAL só na transação que paga. Rode `cargo workbook hint 13`.
a-replay-of-a-key-answered-before = a repetição de uma chave já respondida
the-same-key-with-another-body = a mesma chave com outro corpo
a-request-from-an-unknown-client = um pedido de um cliente desconhecido
a-write-that-is-not-a-payment = uma gravação que não é um pagamento
the-call-failed = a chamada falhou: { $error }; o servidor entrou em pânico (um todo!() ainda por escrever)?
the-calls-task-panicked = a tarefa da chamada entrou em pânico: { $error }
the-experiment-loses-an-acknowledged-payment = o experimento: o cliente recebeu 201 ({ $first }), o failover perdeu esse pagamento, e a nova tentativa pagou de novo ({ $retry }): dois pagamentos para uma chave, um deles mantido. Foram { $payments } pagamentos, { $kept } mantido(s) pelo standby promovido.
acknowledged-then-lost = o pedido com a chave { $key } foi respondido com 201 ({ $first }) enquanto o standby não recebia nada. Esse pagamento estava só no primário: o failover o perdeu, e a nova tentativa do cliente pagou de novo ({ $retry }). Dois pagamentos para uma chave. Nomeie o standby em primary.conf (synchronous_standby_names = 'FIRST 1 (standby1)') e faça a transação que paga esperar por ele (SET LOCAL synchronous_commit = on): assim nenhum cliente recebe 201 antes de o standby ter o pagamento. Rode `cargo workbook hint 13`.
a-commit-cut-short-asks-for-a-retry = o COMMIT do pedido com a chave { $key } estava esperando pelo standby quando o primário caiu; a rota tem de responder com um 5xx que peça uma nova tentativa com a mesma chave (500, resultado desconhecido, ou 503 payment-unconfirmed), já que o pagamento pode sobreviver ou não. Respondeu { $got }.
replayed-after-the-failover = o pedido com a chave { $key } foi pago e respondido com 201 ({ $first }) antes do failover; a nova tentativa dele no standby promovido tem de repetir essa resposta (Idempotent-Replayed: true, o mesmo corpo). Recebeu { $retry }.
in-flight-paid-once-after-the-failover = o pagamento do pedido com a chave { $key } morreu com o primário antes de o standby tê-lo; a nova tentativa do cliente tem de pagar uma vez, no standby promovido. Recebeu { $retry }, e o standby promovido tem { $kept ->
    [0] nenhum pagamento
    [1] 1 pagamento
   *[other] { $kept } pagamentos
} para essa chave.
one-commit-waited-and-was-cancelled = um COMMIT esperou pelo standby, e a espera dele tem de ser cancelada: COMMITs cancelados: { $cancelled }
a-commit-whose-client-went-still-waits = o COMMIT cujo cliente foi embora tem de continuar esperando pelo standby (o cliente ir embora não encerra a espera): um COMMIT a cancelar; COMMITs cancelados: { $cancelled }
statement-timeout-does-not-end-the-wait = o experimento: o statement_timeout não encerra a espera de um COMMIT pelo standby; um cancelamento encerra, e o COMMIT então retorna, confirmado (commit) no primário e não no standby. Aqui o COMMIT { $commit ->
    [still-waiting] ainda esperava quando foi cancelado
    [committed] retornou, confirmado (commit),
    [rolled-back] retornou, desfeito (rollback),
   *[other] ficou { $commit }
}, a rota da etapa 8 respondeu { $got }, e o pagamento está no primário { $on_primary ->
    [0] nenhuma vez
    [1] uma vez
   *[other] { $on_primary } vezes
}, no standby { $on_standby ->
    [0] nenhuma vez
    [1] uma vez
   *[other] { $on_standby } vezes
}.
a-commit-past-the-bound-is-unconfirmed = com o standby fora, um pagamento cujo COMMIT esperou mais que config.commit_wait tem de ser respondido com 503 payment-unconfirmed e Retry-After (Commit::Unconfirmed); recebeu { $got }
the-commits-wait-is-cancelled = a rota respondeu, mas a espera do COMMIT dela não foi cancelada: { $waiting } COMMIT(s) ainda esperam pelo standby, e o primário mostra { $on_primary } pagamento(s). Abandonar o COMMIT (um timeout que o descarta, uma conexão fechada) deixa a sessão esperando, com a chave bloqueada; cancele a espera: SELECT pg_cancel_backend(pid) em app.watchdog. Rode `cargo workbook hint 13`.
the-retry-of-an-unconfirmed-payment-replays-it = a nova tentativa do pagamento respondido com 503 tem de repeti-lo (201, Idempotent-Replayed: true): o COMMIT dele retornou quando a espera foi cancelada, então o pagamento está no primário. Recebeu { $got }
the-standby-back-has-the-unconfirmed-payment = quando o standby volta e se atualiza, ele tem de ter o pagamento respondido com 503, uma linha: tem { $rows }
an-uncancellable-commit-is-answered-500 = com um COMMIT cuja espera não pôde ser cancelada, a rota tem de responder 500 (resultado desconhecido: Commit::Unknown) dentro dos limites dela; recebeu { $got }
the-pool-lost-a-connection-to-a-busy-commit = depois de um COMMIT cuja espera não pôde ser cancelada, a repetição de uma chave já respondida não teve resposta em { $seconds } s: a conexão daquele COMMIT voltou ao pool, ainda ocupada. Feche-a em vez disso (conn.close_on_drop()) quando o commit for Commit::Unknown.
the-pool-lost-a-connection-the-replay-got = depois de um COMMIT cuja espera não pôde ser cancelada, a repetição de uma chave já respondida tem de repetir o 201 dela: recebeu { $got }. A conexão daquele COMMIT voltou ao pool ainda ocupada? Feche-a em vez disso (conn.close_on_drop()) quando o commit for Commit::Unknown.
the-uncancelled-commit-returns-and-its-retry-replays = quando o standby voltou, o COMMIT que não pôde ser cancelado retornou, e a nova tentativa deveria repetir o pagamento dele; recebeu { $got }
a-replay-while-the-standby-is-away = uma repetição com o standby fora tem de repetir o 201; recebeu { $got }
another-body-while-the-standby-is-away = a mesma chave com outro corpo tem de ser recusada com 422 key-reused, na hora, enquanto o standby está fora; recebeu { $got }
an-unknown-client-while-the-standby-is-away = um pedido de um cliente desconhecido tem de ser recusado com 401, na hora, enquanto o standby está fora; recebeu { $got }
the-other-write-failed = uma gravação que não é um pagamento (um cliente novo, no pool da rota) falhou: { $error }
a-retry-is-answered-from-the-primary = a chave foi confirmada (commit) no primário e ainda não aparece no standby, que está atrasado; a nova tentativa dela tem de repetir o primeiro 201 (Idempotent-Replayed: true). Recebeu { $got }. Leia chaves e respostas no primário (app.primary), nunca em app.reader: um standby pode dizer 'essa chave não existe' sobre uma chave que o primário tem.
one-payment-for-one-key = um pagamento para uma chave: o primário tem { $payments }
