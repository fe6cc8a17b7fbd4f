# O que tests/stage6_http_route.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage6_http_route.ftl; os fatos (números, respostas, chaves, status,
# cabeçalhos, tipos de problema) são argumentos. Os plurais vão pelo número
# exato ([0], [1]), nunca por [one], que no português do CLDR também pega o 0.

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
a-refused-request-pays-nothing = um pedido recusado não pode pagar nada, e mesmo assim { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}: recuse antes de chamar create_payment
a-refused-request-stores-no-key = um pedido recusado não pode guardar chave nenhuma, e mesmo assim { $keys ->
    [1] foi gravada 1 linha de chave
   *[other] foram gravadas { $keys } linhas de chave
}: recuse antes de chamar create_payment
every-request-gets-the-201 = os 20 pedidos mandam uma só chave e um só corpo, então cada um tem de receber um 201: o primeiro porque pagou, os outros 19 porque recebem a resposta dele repetida. Receberam { $statuses }
the-twenty-answers-are-identical = as 20 respostas têm de ser idênticas, no status, no Content-Type e no corpo: uma resposta repetida é a primeira resposta de novo. O primeiro pedido recebeu { $first }; o pedido { $number } recebeu { $other }
a-payment-is-answered-in-json = um pagamento é respondido em JSON: o Content-Type da resposta tem de ser "{ $wanted }", e é "{ $got }"
one-key-one-payment = uma chave, um pagamento: { $payments ->
    [0] não foi feito nenhum pagamento
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
the-first-request-is-answered-201 = o primeiro pedido tem de ser respondido com 201: recebeu { $got }
a-repeat-gets-the-first-answer-again = um pedido repetido com a mesma chave e o mesmo corpo tem de receber a primeira resposta de novo, com status, Content-Type e corpo: o primeiro recebeu { $first }, o repetido { $again }
a-quoted-key-is-accepted = Idempotency-Key: { $sent } é uma sf-string válida (uma chave entre aspas, com uma aspa e uma barra invertida escapadas): o pedido tem de ser respondido com 201; recebeu { $got }
a-quoted-key-is-stored-unescaped = Idempotency-Key: { $sent } é a chave { $key } (com os escapes desfeitos): nenhuma linha de chave guarda esse texto. Guarde o texto que a sf-string representa, sem as aspas e as barras invertidas
each-keys-first-request-pays = o primeiro pedido de cada chave tem de pagar e ser respondido com 201: key-a recebeu { $a }, key-b recebeu { $b }
two-keys-are-two-payments = duas chaves são dois pagamentos, mesmo com o mesmo corpo: os dois receberam o id de pagamento { $id }. A rota tem de passar a create_payment a chave de cada pedido
the-bare-key-is-answered-201 = o pedido com a chave sem aspas { $key } tem de ser respondido com 201: recebeu { $got }
a-quoted-key-is-the-bare-key = Idempotency-Key: { $quoted } (uma sf-string) é a chave { $key }, a mesma chave que a sem aspas: tem de receber a primeira resposta de novo. O pedido sem aspas recebeu { $bare }, o com aspas { $got }
with-the-key = com `Idempotency-Key: { $key }`
with-no-key = sem Idempotency-Key
a-bad-request-is-refused = um pedido { $key } e com o corpo { $body } tem de ser recusado com { $status }: recebeu { $got }
the-problem-type-says-what-was-wrong = o tipo do problema tem de dizer o que estava errado, { $wanted }: é { $got }
a-problem-repeats-its-status = um problema repete no corpo o status HTTP ("status": { $status }): diz { $got }
a-problem-has-a-title-and-a-detail = o corpo de um problema tem de trazer um "title" e um "detail", os dois em texto: é { $body }
a-key-in-two-field-lines-is-refused = uma Idempotency-Key enviada em duas linhas de campo é uma lista, não uma chave, mesmo quando as duas linhas trazem a mesma chave: o pedido tem de ser recusado com 400; recebeu { $got }
a-key-of-the-limit-is-accepted = uma chave de exatamente { $length } caracteres está dentro do limite: o pedido tem de ser respondido com 201; recebeu { $got }
another-body-is-refused-with-422 = a chave foi usada com outro corpo: o pedido tem de ser recusado com 422; recebeu { $got }
the-request-gets-an-answer = o pedido não recebeu resposta HTTP: { $error }
the-answers-body-arrives = o corpo da resposta não chegou inteiro: { $error }
the-answers-body-is-json = o corpo da resposta tem de ser JSON (um problema, application/problem+json): é { $text } (status { $status })
a-body-over-the-limit-is-a-413 = um corpo de { $megabytes } MB passa do limite da rota: o pedido tem de ser recusado com 413 Payload Too Large, e recebeu { $status } { $body }
no-answer-after-the-body-stopped = nenhuma resposta { $seconds } s depois de o corpo parar de chegar, e a conexão { $closed ->
    [true] foi fechada
   *[other] continuou aberta
}: a rota espera o resto do corpo para sempre. Limite a leitura do corpo ({ $timeout }). Rode `cargo workbook hint 6`
a-body-that-stops-arriving-is-a-408 = um corpo que para de chegar é um 408 Request Timeout: o pedido recebeu { $got }
no-such-header = nenhum
the-server-closes-after-a-408 = o resto do corpo ainda pode chegar, e o próximo pedido não poderia ser distinguido dele: a resposta tem de dizer `Connection: close` e o servidor tem de fechar a conexão. A conexão { $closed ->
    [true] foi fechada
   *[other] continuou aberta
}; o cabeçalho Connection da resposta: { $connection }
answered-before-the-client-had-its-time = respondeu { $after } s depois de o corpo parar: antes de o cliente ter os { $timeout } s dele para enviá-lo
another-method-is-a-405 = { $request } tem de ser recusado com 405 Method Not Allowed: recebeu { $status } { $body }
the-allow-header-says-post = um 405 diz quais métodos o caminho aceita: o cabeçalho Allow da resposta tem de ser { $wanted }, e é { $got }
another-path-is-a-404 = { $request } tem de ser respondido com 404 Not Found: recebeu { $status } { $body }
