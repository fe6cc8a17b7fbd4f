# O que tests/stage5_small_pool.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage5_small_pool.ftl; os fatos (números, respostas, o estado do pool,
# a linha do resultado) são argumentos.

deadlock = TRAVAMENTO (deadlock do pool): { $count } de { $requests } pedidos esperaram { $seconds } s por uma conexão e desistiram.
    Enquanto esperavam: { $state }.
    Cada conexão estava presa a um pedido cuja transação ainda estava aberta enquanto ele pedia outra ao pool: quem travou foi o pool, não o PostgreSQL (as sessões dele estão idle in transaction). Rode `cargo workbook hint 5`. ({ $outcome })
the-burst-ended-before-the-pool-was-looked-at = a rajada terminou antes de o pool ser examinado
one-key-one-payment = uma chave, um pagamento: { $outcome }
every-caller-gets-the-201 = todo chamador tem de receber o 201, os 20: { $outcome }
the-same-payment-replayed = os 20 corpos têm de ser o mesmo pagamento, repetido: { $outcome }
the-request-for-the-other-key-took = o pedido da outra chave: { $reply } depois de { $took } ms
another-key-is-starved = um pedido de outra chave falhou enquanto um pedido lento segurava a chave dele: recebeu { $got }.
    Enquanto esperava: { $state }.
    As duplicatas do pedido lento seguraram, cada uma, uma conexão enquanto esperavam pelo lock da linha da chave dele, até o pool ficar sem nenhuma. Limite essa espera (`lock_timeout` no INSERT que reserva a chave) e responda 409, para que a duplicata devolva a conexão. Rode `cargo workbook hint 5`.
duplicates-of-a-slow-request-are-answered-while-it-is-held = enquanto o primeiro pedido ainda estava em andamento, cada uma das 19 duplicatas dele deveria ouvir 409 (tente mais tarde) dentro da espera limitada; nem todas foram respondidas enquanto ele estava retido ({ $count } × 409). Rode `cargo workbook hint 5`.
duplicates-of-a-slow-request-are-told-409 = enquanto o primeiro pedido ainda estava em andamento, cada uma das 19 duplicatas dele deveria ouvir 409 (tente mais tarde) dentro da espera limitada; { $count } ouviram. Rode `cargo workbook hint 5`.
the-slow-request-completes-once-let-go = o próprio pedido lento tem de terminar quando liberado: recebeu { $got }
the-slow-request-and-the-other-key-pay = o pedido lento e o da outra chave têm de pagar uma vez cada, dois pagamentos: { $payments ->
    [1] foi feito 1 pagamento
   *[other] foram feitos { $payments } pagamentos
}
a-new-key-is-answered-201 = um pedido com uma chave nova tem de ser respondido com 201: recebeu { $got }
the-triggers-table-can-be-read = o harness não conseguiu ler a tabela do trigger: { $error }
the-payment-runs-under-the-databases-lock-timeout = o pagamento tem de rodar sob o lock_timeout do próprio banco (7s aqui), e rodou sob: { $seen }. Volte ao que `current_setting('lock_timeout')` dizia antes do INSERT que reserva a chave, não a '0', que passaria por cima das configurações do banco e do papel (role). Rode `cargo workbook hint 5`.
a-failed-payment-fails-the-call = o INSERT do pagamento falha, então create_payment tem de falhar: retornou { $got }
rolled-back-before-the-error-is-returned = create_payment retornou o erro com a transação ainda aberta (as sessões: { $sessions }). Descartar `tx` só enfileira o ROLLBACK, enviado quando a conexão volta ao pool; até lá a chave continua bloqueada, e uma nova tentativa enviada na hora espera por ela, ou ouve 409. Faça o rollback antes de retornar o erro. Rode `cargo workbook hint 5`.
only-a-lock-timeout-is-a-409 = só um lock timeout (SQLSTATE 55P03) quer dizer que outro pedido segura a chave; qualquer outro erro do INSERT que reserva a chave tem de ser retornado como erro, e não respondido com 409: recebeu { $got }
