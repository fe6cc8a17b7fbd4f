# O que tests/stage4_changed_body.rs diz, em português do Brasil. Mesmos ids
# que ../en/stage4_changed_body.ftl; os fatos (números, respostas, corpos, a
# linha do resultado) são argumentos.

payments-made-by-now = { $wanted ->
    [1] 1 pagamento deveria ter sido feito
   *[other] { $wanted } pagamentos deveriam ter sido feitos
} até aqui: { $payments ->
    [1] há 1
   *[other] há { $payments }
}
the-first-request-must-pay = o primeiro pedido tem de pagar, e falhou: { $error }
the-second-request-must-be-answered = o segundo pedido tem de ser respondido, e falhou: { $error }
the-original-must-be-answered = o corpo original, enviado de novo, tem de ser respondido, e falhou: { $error }
the-repeat-must-be-answered = o mesmo corpo escrito de outro jeito tem de ser respondido, e falhou: { $error }
every-request-must-be-answered = todo pedido da rajada tem de ser respondido, e um falhou: { $error }
a-valid-body-hashes = request_hash tem de calcular o hash de um corpo válido ({ $body }), e falhou: { $error }
the-same-body-written-differently-hashes-the-same = { $body } é o mesmo pedido que {"{"}"orderId":1,"amount":100{"}"}: normalize o JSON (chaves ordenadas, sem espaços) antes de calcular o hash
another-amount-is-another-request = outro valor é outro pedido: os dois corpos não podem ter o mesmo hash
the-hash-is-sha256-of-the-canonical-text = o hash é o SHA-256 (em hexadecimal) do texto canônico { $canonical }: chaves ordenadas, uma vírgula entre os membros, sem espaços
nested-objects-are-canonical-too = objetos aninhados também têm as chaves ordenadas, e um array mantém a ordem, com uma vírgula entre os itens: [1,2] e [12] não são o mesmo corpo
another-order-is-another-request = outro pedido de compra é outro pedido: todo campo do corpo entra no hash
the-first-request-is-answered-201 = o primeiro pedido tem de ser respondido com 201: recebeu { $got }
another-body-is-refused-with-422 = a chave foi usada com outro corpo: o pedido tem de ser recusado com 422; recebeu { $got }
the-problems-title-says-what-went-wrong = o título do corpo do problema tem de dizer o que deu errado ("{ $title }"): recebeu { $got }
the-refused-request-pays-nothing = o pedido recusado não pode pagar nada: { $payments ->
    [1] há 1 pagamento
   *[other] há { $payments } pagamentos
}, não 1
the-refusal-changed-nothing = a recusa não muda nada: o corpo original, enviado de novo, tem de continuar repetindo o 201 dele; o primeiro recebeu { $first }, o original enviado de novo { $replay }
another-order-is-refused-with-422 = a chave foi usada para o pedido de compra 1 e agora vem para o pedido de compra 2, com o mesmo valor: é outro pedido, então 422; repetir a resposta diria ao cliente que o pedido de compra 2 foi pago (calcule o hash de todo campo do corpo, não só do valor). Recebeu { $got }
the-same-body-written-differently-replays-the-201 = { $body } quer dizer o mesmo que o primeiro corpo, então tem de repetir o 201, e não ser recusado: o primeiro recebeu { $first }, este { $again }
an-invalid-body-is-refused = um corpo que não é um pagamento tem de ser recusado (PaymentError::InvalidBody) antes de qualquer gravação: recebeu { $got }
no-key-is-reserved-for-an-invalid-body = um corpo que não é um pagamento não pode reservar chave nenhuma: { $keys ->
    [1] 1 linha de chave foi gravada
   *[other] { $keys } linhas de chave foram gravadas
}
one-key-one-payment = uma chave, um pagamento: { $outcome }
the-winners-ten-get-its-201 = os dez pedidos com o corpo vencedor têm de receber, todos, o 201 dele; { $count } receberam: { $outcome }
the-other-bodys-ten-get-422 = os dez pedidos com o outro corpo têm de ser, todos, recusados com 422; { $count } foram: { $outcome }
one-201-body-one-problem-body = as respostas têm de trazer dois corpos, o do 201 e o do problema; trouxeram { $bodies }: { $outcome }
a-request-with-the-winning-body-gets-201 = o pedido { $number } (valor { $amount }) mandou o corpo vencedor, então tem de receber o 201: recebeu { $got }
a-request-with-the-other-body-gets-422 = o pedido { $number } (valor { $amount }) mandou o outro corpo, então tem de ser recusado com 422: recebeu { $got }
