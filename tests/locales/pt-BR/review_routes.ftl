# O que tests/review_routes.rs diz de uma rota, em português do Brasil. Uma falha
# diz o que foi observado (ID), depois `; ` e por que isso importa (ID-why), duas
# mensagens que o teste junta: o `cargo workbook review` mostra o que foi
# observado como a evidência. Os fatos (status, contagens, corpos) são argumentos.

no-client-for-the-fake-provider = o harness não conseguiu criar um cliente para o provedor falso: { $error }
post-payments-got = POST /payments falhou: { $error }
the-trigger-is-not-created = o harness não conseguiu criar o trigger que recusa o pedido de compra 13: { $error }
the-trigger-is-not-dropped = o harness não conseguiu remover o trigger que recusa o pedido de compra 13: { $error }
a-request-without-a-key-was-answered = um pedido sem Idempotency-Key foi respondido com { $status } e fez { $payments } pagamento(s)
a-request-without-a-key-was-answered-why = uma rota que paga tem de recusá-lo (400) antes de gravar qualquer coisa
twenty-concurrent-requests-with-one-key-made = 20 pedidos simultâneos com uma chave fizeram { $payments } pagamentos
twenty-concurrent-requests-with-one-key-made-why = a chave tem de ser reservada por um comando atômico (uma restrição única), não conferida e depois gravada. Respostas: { $answers }
the-payment-insert-failed-and-its-retry-left = o INSERT do pagamento falhou (respondido com { $first }), e a nova tentativa (respondida com { $retry }) deixou { $payments } pagamento(s)
the-payment-insert-failed-and-its-retry-left-why = a chave, o pagamento e a resposta têm de ser gravados numa transação, para que uma falha mantenha todos ou nenhum
storing-the-answer-failed-and-its-retry-left = guardar a resposta falhou (respondido com { $first }), e a nova tentativa (respondida com { $retry }) deixou { $payments } pagamento(s)
storing-the-answer-failed-and-its-retry-left-why = a chave, o pagamento e a resposta têm de ser gravados numa transação, para que uma falha mantenha todos ou nenhum
the-first-request-was-answered = o primeiro pedido foi respondido com { $got }
the-first-request-was-answered-why = ele tem de pagar e ser respondido com 201
the-retry-was-answered-instead-of-the-first-answer = a nova tentativa foi respondida com { $retry } em vez da primeira resposta, { $first }
the-retry-was-answered-instead-of-the-first-answer-why = a resposta tem de ser guardada com a chave e repetida como foi dada
the-same-key-with-another-amount-was-answered = a mesma chave com outro valor foi respondida com { $got }
the-same-key-with-another-amount-was-answered-why = tem de ser recusada (422), senão o cliente acredita que 999 foi pago
requests-through-a-pool-of-five-got-no-answer = { $count } de 20 pedidos por um pool de 5 conexões ficaram sem resposta ou receberam um 5xx (o pool estourou o acquire timeout)
requests-through-a-pool-of-five-got-no-answer-why = um pedido segurou a conexão dele enquanto pedia outra ao pool. { $first }
a-lost-provider-answer-then-a-retry-left = uma resposta do provedor perdida depois da cobrança, e então uma nova tentativa, deixaram { $charges } cobrança(s) no provedor ({ $calls } chamadas, o pedido respondido com { $first }, a nova tentativa com { $retry })
a-lost-provider-answer-then-a-retry-left-why = o provedor tem de receber uma chave de idempotência derivada da do cliente, a mesma em toda tentativa, para que uma nova tentativa nossa seja uma nova tentativa para ele
