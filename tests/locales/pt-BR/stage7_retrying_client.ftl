# O que tests/stage7_retrying_client.rs diz, em português do Brasil. Mesmos ids
# que ../en/stage7_retrying_client.ftl; os fatos (números, chaves, respostas,
# erros, as tentativas que o proxy viu) são argumentos. Os plurais vão pelo
# número exato ([0], [1]), nunca por [one], que no português do CLDR também
# pega o 0.

payments-made-by-now = { $wanted ->
    [0] nenhum pagamento deveria ter sido feito
    [1] 1 pagamento deveria ter sido feito
   *[other] { $wanted } pagamentos deveriam ter sido feitos
} até aqui: { $payments ->
    [0] não há nenhum
    [1] há 1
   *[other] há { $payments }
}

## O que o proxy fez com uma tentativa, e as tentativas que ele viu.

fault-pass = passou sem falha
fault-drop-request = o pedido se perdeu antes do servidor
fault-drop-response = a resposta se perdeu depois do commit
fault-hold-response = a resposta ficou retida até o cliente desistir
fault-answer = um { $status } do próprio proxy
fault-answer-429 = um { $status } do próprio proxy, com Retry-After: { $retry_after }
fault-html-page = a resposta trocada por uma página HTML
fault-hold-request = o pedido retido no proxy
a-try = tentativa { $number }: { $fault }; Idempotency-Key: { $key }; { $server }
no-key-sent = nenhuma
the-server-answered = o servidor respondeu { $status }
the-server-did-not-answer = o servidor não respondeu
the-server-never-saw-it = o servidor nunca a viu
no-try = nenhuma tentativa chegou ao proxy

## Os testes.

pay-succeeds-on-a-retry = pay() deveria dar certo numa nova tentativa depois de { $fault }: retornou o erro { $error }. As tentativas: { $tries }
pay-ends-with-the-payments-201 = depois de { $fault }, pay() tem de terminar com o 201 do pagamento: retornou { $got }
a-broken-first-try-is-retried = { $fault } na primeira tentativa exige pelo menos uma nova tentativa, e o proxy viu { $count ->
    [0] nenhuma tentativa
    [1] 1 tentativa
   *[other] { $count } tentativas
}: { $tries }
however-many-tries-one-payment = { $fault }: não importa quantas tentativas chegaram ao servidor, elas têm de fazer um pagamento, e { $payments ->
    [0] não foi feito nenhum
    [1] foi feito 1
   *[other] foram feitos { $payments }
}. Toda tentativa tem de enviar a chave do Payment recebido, sempre a mesma (rode `cargo workbook hint 7`). As tentativas: { $tries }
every-try-sends-the-payments-key = toda tentativa tem de enviar a Idempotency-Key do pagamento, { $key }: { $tries }
no-try-reached-the-server = nenhuma tentativa chegou ao servidor: { $tries }
the-client-ends-with-the-one-payments-body = o cliente tem de terminar com o corpo do único pagamento, a resposta que o servidor deu à primeira tentativa que chegou a ele, { $first }: terminou com { $got }
a-refusal-is-an-answer = um 400 é uma resposta, e definitiva: pay() tem de retorná-la, e não um erro; retornou { $error }
an-amount-of-0-is-refused = um valor 0 é recusado com 400: pay() retornou { $got }
a-refusal-is-not-retried = um 4xx que não seja 408, 409 ou 429 é definitivo: uma nova tentativa receberia a mesma recusa. O proxy viu { $count ->
    [0] nenhuma tentativa
    [1] 1 tentativa
   *[other] { $count } tentativas
}: { $tries }
pay-gives-up-after-four-tries = todos os pedidos se perderam: depois de 4 tentativas, pay() tem de desistir com PayError::GaveUp, attempts: 4 e a chave do pagamento, { $key }; retornou { $got }
four-tries-in-all = 4 tentativas ao todo, contando a primeira: o proxy viu { $count }: { $tries }
the-first-payment-is-made = o primeiro pagamento tem de ser feito: pay() retornou o erro { $error }
the-second-payment-is-made = o segundo pagamento tem de ser feito: pay() retornou o erro { $error }
each-payment-new-has-a-key-of-its-own = cada Payment::new é uma operação nova, com uma chave própria, logo dois pagamentos: os dois receberam o id de pagamento { $id }. As tentativas: { $tries }
not-now-is-retried = { $fault } quer dizer "agora não": pay() deveria tentar de novo com a mesma chave, e retornou o erro { $error }. As tentativas: { $tries }
the-answer-then-the-retry = { $fault }, depois a nova tentativa: 2 tentativas, e o proxy viu { $count }: { $tries }
the-retry-sends-the-same-key = a nova tentativa tem de enviar a mesma chave que a primeira: { $tries }
no-wait-past-the-budget = o servidor pede uma espera de { $retry_after } s, além do orçamento de tempo do cliente, de { $budget } s: pay() tem de desistir na hora, depois de 1 tentativa, com PayError::GaveUp e o 429 como última resposta, em vez de dormir; retornou { $got }
no-second-try-past-the-budget = nenhuma segunda tentativa além do orçamento de tempo: o proxy viu { $count }: { $tries }
waiting-for-the-second-try = a segunda tentativa do cliente, ou o fim de pay(),
the-first-request = o primeiro pedido
pay-panicked = pay() entrou em pânico: { $error }
pay-ends-with-the-first-requests-201 = pay() deveria terminar com o 201 do primeiro pedido: retornou o erro { $error }. As tentativas: { $tries }
the-first-try-is-told-409 = a primeira tentativa do cliente deveria ter recebido 409 (um pedido com a chave dela em andamento): { $tries }
a-409-is-retried-with-the-same-key = um 409 diz que um pedido com esta chave ainda está em andamento: não é resposta nenhuma sobre o pagamento, e um chamador que o tomasse por "não pago" pagaria de novo com outra chave. Tente de novo com a mesma chave, como num 5xx. pay() retornou { $got }; o primeiro pedido recebeu { $first }
pay-gives-up-after-four-unanswered-tries = 4 tentativas sem resposta: pay() deveria desistir com PayError::GaveUp, attempts: 4; retornou { $got }
the-error-hands-back-the-key = o erro tem de devolver a chave do pagamento, { $key }, para que o chamador possa pagar de novo com ela: devolveu { $got }
pay-again = pay() de novo
paying-again-is-answered = ao pagar de novo com a chave que o erro devolveu, pay() deveria receber uma resposta: retornou o erro { $error }
paying-again-with-the-key-replays-the-payment = a primeira tentativa pagou, e a resposta dela se perdeu; pago de novo com a mesma chave, o pagamento tem a resposta repetida, e não é feito de novo. { $payments ->
    [0] Não foi feito nenhum pagamento
    [1] Foi feito 1 pagamento
   *[other] Foram feitos { $payments } pagamentos
}: pay() gerou uma chave própria em vez de enviar a do pagamento?
paying-again-ends-in-201 = pago de novo com a mesma chave, pay() tem de terminar com o 201 do pagamento: retornou { $got }
the-caller-ends-with-the-one-payments-body = o chamador tem de terminar com o corpo do único pagamento, { $first }: terminou com { $got }
every-try-of-both-calls-sends-the-payments-key = toda tentativa das duas chamadas tem de enviar a chave do pagamento, { $key }: { $tries }
an-html-page-is-not-an-answer = um 200 com uma página HTML não é uma resposta que pay() consiga ler: ele tem de retornar PayError::NotJson com status: 200; retornou { $got }
paying-again-replays-the-first-answer = pagar de novo com a chave devolvida tem de trazer a resposta guardada do primeiro pagamento, { $first }, repetida, e não a de um pagamento novo: recebeu { $got }
the-only-tries-answer-was-lost = a resposta da única tentativa se perdeu, então pay() com uma tentativa só tem de retornar um erro: retornou { $got }
the-restarted-client-is-answered = o pay() do cliente reiniciado deveria receber uma resposta: retornou o erro { $error }
the-restarted-process-sends-the-kept-key = o primeiro processo pagou o pedido de compra e morreu antes de ler a resposta. O processo que começou de novo tem de enviar a chave guardada com o pedido de compra e receber o 201 desse pagamento, repetido; { $payments ->
    [0] não foi feito nenhum pagamento
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}: pay() gerou uma chave própria, que morreu com o primeiro processo?
the-restarted-client-ends-in-201 = o cliente reiniciado tem de terminar com o 201 do pagamento: recebeu { $got }
the-restarted-client-ends-with-the-one-payments-body = o cliente reiniciado tem de terminar com o corpo do único pagamento, { $first }: terminou com { $got }
every-try-of-both-processes-sends-the-kept-key = toda tentativa dos dois processos tem de enviar a chave guardada com o pedido de compra, { $key }: { $tries }
retry-after-in-seconds = Retry-After: { $value } pede uma espera de { $seconds } s (RFC 9110 §10.2.3: delay-seconds): retry_after() retornou { $got }
retry-after-as-a-date = Retry-After: { $value } é uma data HTTP: pede o tempo de agora até ela, { $seconds } s aqui (nenhuma espera quando a data já passou); retry_after() retornou { $got }
retry-after-neither = Retry-After: { $value } não é um número de segundos nem uma data HTTP: retry_after() tem de ignorá-lo (None), e o cliente volta ao próprio backoff; retornou { $got }
the-backoff-doubles-within-its-jitter = depois da tentativa { $attempt }, o backoff é { $first } ms dobrados a cada tentativa anterior, multiplicados por um fator aleatório em [0,5, 1,5): entre { $low } e { $high } ms. backoff() retornou { $got } ms
the-wait-is-what-the-server-asked-for = o servidor pediu { $asked } s com Retry-After: o cliente espera o que ele pediu, nunca mais que max_delay ({ $max } s), então { $wanted } s; wait_before_next_try() retornou { $got }
without-retry-after-the-wait-is-the-backoff = sem Retry-After, a espera depois da primeira tentativa é o backoff, entre { $low } e { $high } ms: wait_before_next_try() retornou { $got }
