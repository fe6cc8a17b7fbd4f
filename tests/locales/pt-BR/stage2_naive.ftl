# O que tests/stage2_naive.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage2_naive.ftl; os fatos (números, respostas, a linha do resultado)
# são argumentos.

the-first-request-must-be-answered = o primeiro pedido tem de ser respondido, e falhou: { $error }
the-retry-must-be-answered = a nova tentativa tem de ser respondida, e falhou: { $error }
the-second-request-must-be-answered = o segundo pedido tem de ser respondido, e falhou: { $error }
all-twenty-checked-so-all-twenty-pay = os 20 pedidos conferiram antes de qualquer um gravar, então os 20 deveriam ter pagado: { $outcome }
each-payment-has-an-id-of-its-own = cada um dos 20 pagamentos tem de ter um id próprio: { $ids } ids distintos
one-caller-gets-a-201 = só o primeiro INSERT da chave funciona, então exatamente um chamador recebe um 201: { $outcome }
nineteen-key-inserts-are-rejected = a chave primária da tabela de chaves recusa os outros 19 INSERTs da chave com uma violação de unicidade, depois de os pagamentos deles já terem sido feitos: { $outcome }
a-burst-pays-at-least-once-at-most-twenty-times = execução { $run }: uma rajada paga ao menos uma vez e no máximo 20: { $outcome }
each-extra-payment-belongs-to-a-failed-key-insert = execução { $run }: cada pagamento além do primeiro é de um chamador cujo INSERT da chave falhou: { $outcome }
every-caller-gets-a-201-or-a-unique-violation = execução { $run }: todo chamador recebe um 201 ou uma violação de unicidade: { $outcome }
payments-per-run = pagamentos por execução: { $payments }; execuções com duplicatas: { $duplicates } de { $runs }
the-first-request-creates-the-payment = o primeiro pedido tem de criar o pagamento e responder 201: recebeu { $got }
one-after-the-other-the-stored-answer-is-replayed = um pedido depois do outro, a versão ingênua repete a resposta guardada: o primeiro recebeu { $first }, a nova tentativa { $retry }
one-after-the-other-it-pays-once = um pedido depois do outro, a versão ingênua paga uma vez: { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
the-naive-version-never-compares-bodies = a versão ingênua responde a um corpo diferente com o 201 do primeiro pagamento, porque nunca os compara: o primeiro recebeu { $first }, o outro corpo { $other }
the-client-asked-for-999-and-was-told-100 = o cliente pediu 999 e tem de ouvir o que foi pago, 100: ouviu { $amount }
one-payment-for-the-key = a chave foi paga uma vez, então deveria haver 1 pagamento: há { $payments }
