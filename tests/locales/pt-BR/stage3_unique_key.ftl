# O que tests/stage3_unique_key.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage3_unique_key.ftl; os fatos (números, respostas, a linha do
# resultado) são argumentos.

payments-made-by-now = { $wanted ->
    [1] 1 pagamento deveria ter sido feito
   *[other] { $wanted } pagamentos deveriam ter sido feitos
} até aqui: { $payments ->
    [1] há 1
   *[other] há { $payments }
}
twenty-requests-with-one-key-pay-once = 20 pedidos com uma chave têm de pagar uma vez: { $outcome }
every-caller-gets-the-201 = todo chamador tem de receber o 201, o primeiro e os 19 que esperaram por ele: { $outcome }
all-twenty-bodies-are-the-same = os 20 corpos têm de ser iguais: o mesmo id de pagamento, repetido: { $outcome }
the-first-request-is-answered-201 = o primeiro pedido tem de ser respondido com 201: recebeu { $got }
a-retry-gets-the-stored-answer-byte-for-byte = uma nova tentativa tem de receber o status e o corpo guardados, byte a byte: o primeiro recebeu { $first }, a nova tentativa { $retry }
two-keys-are-two-payments = duas chaves são duas operações, logo dois pagamentos: os dois receberam o id de pagamento { $id }
a-failed-payment-fails-the-call = o INSERT do pagamento falha, então create_payment tem de falhar: retornou { $got }
the-failed-payments-key-is-rolled-back = a chave foi reservada na mesma transação do pagamento que falhou, então tem de ser desfeita (rollback) junto com ele, e { $keys ->
    [1] 1 linha de chave ficou
   *[other] { $keys } linhas de chave ficaram
} para trás; uma chave deixada para trás recusaria toda nova tentativa
the-retry-pays-once-payments-work = quando os pagamentos voltam a funcionar, a nova tentativa com a mesma chave tem de pagar: recebeu { $got }
a-failed-answer-fails-the-call = guardar a resposta falha, então create_payment tem de falhar: retornou { $got }
the-payment-and-its-answer-commit-together = o pedido morreu antes de a resposta ser guardada, e mesmo assim sobraram { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
} e { $keys ->
    [1] 1 linha de chave
   *[other] { $keys } linhas de chave
}: o pagamento e a resposta têm de ser confirmados (commit) numa ÚNICA transação. Um pagamento confirmado antes da resposta deixa uma chave que responde 409 a toda nova tentativa, para sempre (rode `cargo workbook hint 3`)
the-retry-pays-once-answers-are-stored = quando o servidor volta a guardar respostas, a nova tentativa tem de pagar: recebeu { $got }
a-later-retry-replays-the-201 = uma tentativa posterior tem de repetir o 201 da nova tentativa: a nova tentativa recebeu { $first }, a posterior { $again }
