# O que tests/stage10_one_round_trip.rs diz, em português do Brasil. Mesmos ids
# que ../en/stage10_one_round_trip.ftl; os fatos (números, respostas, o que
# passou pelo protocolo) são argumentos.

a-new-key-must-be-paid = um pedido com uma chave nova tem de pagar, e falhou: { $error }
the-first-request-must-pay = o primeiro pedido tem de pagar, e falhou: { $error }
the-retry-must-be-answered = a nova tentativa tem de ser respondida, e falhou: { $error }
another-amount-must-be-answered = o pedido com a mesma chave e outro valor tem de ser respondido, e falhou: { $error }
a-retry-after-the-burst-must-be-answered = uma nova tentativa depois da rajada tem de ser respondida, e falhou: { $error }
no-connection-through-the-relay = o harness não conseguiu abrir uma conexão pelo relé do protocolo: { $error }
a-new-key-is-answered-201 = um pedido com uma chave nova tem de ser respondido com 201: recebeu { $got }
one-statement-in-one-transaction = a chave, o pagamento e a resposta têm de ser gravados por UM comando em UMA transação; foram { $writes } escrita(s) de linha vindas de { $statements } comando(s) em { $transactions } transação(ões). Reserve a chave, pague e guarde a resposta numa só CTE que modifica dados. Rode `cargo workbook hint 10`.
two-row-writes = uma chave nova custa duas escritas de linha, a linha da chave inserida completa (status e resposta no mesmo INSERT) e o pagamento: a sua custou { $writes } (um UPDATE da linha da chave é uma terceira escrita)
the-answer-built-in-sql-is-reply-created = a resposta montada em SQL tem de ser a que `Reply::created` monta, para o pagamento de fato feito: { $expected }; a sua foi { $got }
a-new-key-is-paid-in-autocommit = uma chave nova tem de ser paga em autocommit: sem BEGIN, sem COMMIT, nunca um bloco de transação aberto. No protocolo: { $wire }. Mande o único comando no próprio pool (`.fetch_optional(pool)`), não dentro de `pool.begin()`: um comando sozinho já é uma transação. Rode `cargo workbook hint 10`.
one-statement-for-a-new-key = uma chave nova tem de ser paga por um único comando executado. No protocolo: { $wire }
twenty-requests-with-one-key-pay-once = 20 pedidos com uma chave têm de pagar uma vez: { $outcome }
the-first-request-pays = o primeiro pedido tem de pagar e ser respondido com 201: recebeu { $got }
a-duplicate-gets-the-201-replayed-or-409 = a duplicata { $number } tem de receber o 201 do primeiro pedido, repetido, ou 409 (ainda em andamento); recebeu { $got }. Quando o comando não devolve linha nenhuma, leia a resposta guardada num comando novo: o snapshot dele não pode mostrar a linha que recebeu commit enquanto ele esperava. ({ $outcome })
a-retry-after-the-commit-replays-the-201 = depois que o primeiro pedido foi confirmado (commit), uma nova tentativa tem de repetir o 201 dele: o primeiro recebeu { $first }, a nova tentativa { $retry }
duplicates-of-a-slow-request-are-told-409 = enquanto o primeiro pedido ainda estava em andamento, cada uma das 19 duplicatas dele deveria receber 409 (tente mais tarde) dentro da espera limitada; { $count } receberam. Limite a espera do INSERT que reserva com `set_config('lock_timeout', ..., true)` dentro do comando, e responda 409 ao SQLSTATE 55P03. Rode `cargo workbook hint 10`.
duplicates-of-a-slow-request-are-answered-while-it-is-held = enquanto o primeiro pedido ainda estava em andamento, cada uma das 19 duplicatas dele deveria receber 409 (tente mais tarde) dentro da espera limitada; nem todas foram respondidas enquanto ele estava retido ({ $count } × 409). Limite a espera do INSERT que reserva com `set_config('lock_timeout', ..., true)` dentro do comando, e responda 409 ao SQLSTATE 55P03. Rode `cargo workbook hint 10`.
another-key-is-not-starved = um pedido de outra chave não pode ficar sem conexão enquanto o lento está retido: recebeu { $got }; { $state }
the-slow-request-completes-once-let-go = o próprio pedido lento tem de terminar depois de solto, sob o lock_timeout do próprio banco (restaure-o antes do pagamento): recebeu { $got }
the-slow-request-and-the-other-key-pay = o pedido lento e o de outra chave têm de pagar uma vez cada: { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
a-retry-gets-the-stored-answer-byte-for-byte = uma nova tentativa tem de receber o status e o corpo guardados, byte a byte: o primeiro recebeu { $first }, a nova tentativa { $retry }. Um 409 aqui quer dizer que a linha da chave foi confirmada (commit) sem a resposta: num só comando, um UPDATE não enxerga a linha que uma CTE irmã inseriu; então insira a linha da chave completa. Rode `cargo workbook hint 10`.
payments-made-by-now = { $wanted ->
    [1] já deveria haver 1 pagamento
   *[other] já deveria haver { $wanted } pagamentos
}: há { $payments }
a-key-answered-before-replays-or-refuses = uma chave já respondida: a nova tentativa tem de repetir o 201, e outro valor receber 422; a nova tentativa recebeu { $retry }, o outro valor { $other }
the-retry-is-answered-by-one-statement = a nova tentativa de uma chave confirmada (commit) antes de o pedido começar tem de ser respondida pelo próprio comando, a partir da linha da chave que o snapshot dele mostra: um comando, não um segundo para ler a resposta. No protocolo: { $wire }. Rode `cargo workbook hint 10`.
another-amount-is-answered-by-one-statement = outro valor para uma chave confirmada (commit) antes de o pedido começar tem de ser respondido pelo próprio comando, a partir da linha da chave que o snapshot dele mostra: um comando, não um segundo para ler a resposta. No protocolo: { $wire }. Rode `cargo workbook hint 10`.
a-key-answered-before-takes-no-payment-id = a nova tentativa e o 422 gastaram ids da sequência dos pagamentos: o pagamento seguinte recebeu { $got } depois de { $paid }. Para uma chave já respondida, o comando não pode chegar ao `nextval`: nada é pago, então nenhum id é gasto. Rode `cargo workbook hint 10`.
another-body-is-refused-with-422 = a chave foi usada com outro corpo: tem de ser recusada com 422, sem pagar nada; recebeu { $got }
two-keys-are-two-payments = duas chaves são duas operações, portanto dois pagamentos: as duas receberam o id de pagamento { $id }
a-failed-payment-fails-the-call = o INSERT do pagamento falha, então create_payment tem de falhar: devolveu { $got }
the-failed-payments-key-is-rolled-back = um comando é uma transação: a chave que ele reservou tem de ser desfeita com o pagamento que falhou, e { $keys } chave(s) ficaram para trás; uma chave deixada para trás recusaria toda nova tentativa
the-retry-pays-once-payments-work = quando os pagamentos voltam a funcionar, a nova tentativa com a mesma chave tem de pagar: recebeu { $got }
