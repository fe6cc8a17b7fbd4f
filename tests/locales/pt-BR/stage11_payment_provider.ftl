# O que tests/stage11_payment_provider.rs diz, em português do Brasil. Mesmos ids
# que ../en/stage11_payment_provider.ftl; os fatos (números, respostas, chaves,
# ids de cobrança, pontos de recuperação, identificadores) são argumentos.

# Uma resposta como as mensagens a mostram: `201 {"amount":100,...}`, e se ela
# foi repetida.
an-answer = { $replayed ->
    [true] { $reply } (repetida)
   *[other] { $reply }
}
the-request-panicked = a tarefa do pedido não terminou normalmente: { $error }
a-request-failed = { $what } falhou: { $error }
create-payment-failed = create_payment retornou um erro em vez de uma resposta: { $error }
the-payments-can-be-read = o harness não conseguiu ler os pagamentos: { $error }
the-keys-can-be-read = o harness não conseguiu ler as chaves: { $error }
the-reaper = a rotina de limpeza
the-reaper-failed = a rotina de limpeza (`reap`) falhou: { $error }
charged-twice = o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}; o provedor recebeu as chaves { $keys }. Uma nova tentativa do nosso pedido tem de ser uma nova tentativa no provedor: mande a chave derivada do cliente, da chave dele e do passo (`derived_key`), nunca uma chave nova. Rode `cargo workbook hint 11`.

## a_derived_key_is_the_same_for_a_retry_and_never_shared
a-retry-sends-the-same-key = uma nova tentativa tem de mandar ao provedor a mesma chave: `derived_key` deu { $first }, depois { $again }
the-clients-own-key-is-not-sent = o provedor não pode ver a chave do próprio cliente: `derived_key` deu { $key }. Calcule o hash do cliente, da chave dele, do hash do corpo e do passo. Rode `cargo workbook hint 11`.
two-clients-two-keys = o order-1 de um cliente e o de outro são dois pagamentos: o provedor tem de ver duas chaves, e os dois receberam { $key }. O id do cliente é uma das partes. Rode `cargo workbook hint 11`.
another-body-another-key = a chave usada de novo com outro corpo (depois que a linha dela foi apagada pela rotina de limpeza) é outro pagamento: o provedor tem de ver outra chave, senão ele repete (ou recusa) a do primeiro; os dois corpos receberam { $key }. O hash do corpo é uma das partes. Rode `cargo workbook hint 11`.
two-steps-two-keys = dois passos de um mesmo pedido nunca podem colidir no provedor: tanto a cobrança quanto o estorno receberam { $key }. O passo é uma das partes.
the-parts-do-not-run-into-each-other = as partes não podem se emendar umas nas outras: (order-1, charge) não é (order-1c, harge), e mesmo assim as duas receberam { $key }. Prefixe cada parte com o tamanho dela, antes dos bytes dela. Rode `cargo workbook hint 11`.

## a_new_payment_charges_the_card_once_and_records_the_charge
a-new-key-is-charged-and-answered-201 = um pedido com uma chave nova tem de cobrar o cartão e ser respondido com 201, não como resposta repetida: recebeu { $got }
the-provider-got-the-clients-own-key = o provedor recebeu a chave do próprio cliente: mande uma chave derivada do cliente, da chave dele e do passo (`derived_key`). Rode `cargo workbook hint 11`.
the-provider-charges-the-bodys-amount = o provedor tem de cobrar o valor do corpo, 100: cobrou { $charged }
one-payment-row-for-the-charge = uma linha de pagamento, com o id da cobrança do provedor, { $charge }: os ids de cobrança dos pagamentos são { $ids }
the-key-ends-finished = a chave tem de terminar no último ponto de recuperação, 'finished': { $finished ->
    [1] 1 chave terminou
   *[other] { $finished } chaves terminaram
}
a-retry-replays-the-answer = uma nova tentativa tem de repetir a resposta, marcada como repetida: o primeiro pedido recebeu { $first }, a nova tentativa { $retry }
a-finished-key-does-not-ask-the-provider = uma chave concluída repete a resposta guardada sem perguntar de novo ao provedor: o provedor foi chamado { $calls ->
    [1] uma vez
   *[other] { $calls } vezes
}

## a_crash_after_each_phase_is_retried_into_one_charge
the-first-request = o primeiro pedido
closing-the-dead-requests-connections = o fechamento das conexões do pedido morto
the-retry-of-a-dead-request-finishes-the-payment = a nova tentativa, depois que o prazo de reserva do pedido morto venceu, tem de concluir o pagamento; recebeu { $got }. Uma chave deixada sem concluir ('started' ou 'charged') cujo `locked_until` já passou pertence a um pedido que morreu: retome-a (renove o prazo de reserva dela) e continue do ponto de recuperação dela. Rode `cargo workbook hint 11`.
the-retry-replays-the-lost-answer = a nova tentativa tem de repetir a resposta que o cliente perdeu ({ $lost }): recebeu { $retry }
every-later-retry-gets-the-same-body = toda nova tentativa posterior tem de receber o mesmo corpo, marcado como repetido: a nova tentativa anterior recebeu { $before }, esta { $again }
a-retry-resumes-from-the-recovery-point = uma nova tentativa continua do ponto de recuperação da chave: depois que a cobrança foi registrada ('charged'), o provedor não é chamado de novo. O provedor foi chamado { $calls ->
    [1] uma vez
   *[other] { $calls } vezes
}, e não { $expected ->
    [1] uma vez
   *[other] { $expected } vezes
}. Rode `cargo workbook hint 11`.

## a_failed_provider_call_is_answered_502_and_the_retry_charges_once
an-unconfirmed-charge-is-answered-502 = o provedor não confirmou a cobrança: responda 502, e deixe o cliente tentar de novo com a mesma chave; recebeu { $got }
never-say-nothing-was-charged = o provedor pode ter cobrado: nunca diga ao cliente que nada foi cobrado. A resposta tem de ser `provider_failed()`, { $expected }; foi { $got }
the-retry-takes-a-released-key-over-at-once = o pedido que falhou liberou o prazo de reserva (`locked_until = now()`): a nova tentativa tem de retomar na hora a chave não concluída e concluir o pagamento; recebeu { $got }. Rode `cargo workbook hint 11`.
the-retry-sends-the-first-tries-key = a nova tentativa tem de mandar ao provedor a chave da primeira tentativa, e o provedor recebeu as chaves { $keys }
payments-made-by-now = { $wanted ->
    [1] já deveria haver 1 pagamento
   *[other] já deveria haver { $wanted } pagamentos
}: há { $payments }

## duplicates_of_a_request_held_at_the_provider_are_told_409
the-key-is-committed-started-before-the-call = enquanto o provedor é chamado, a chave já tem de estar confirmada (commit) como 'started' (a fase 1 faz o commit antes da chamada): uma chamada dentro da transação segura o lock da chave e uma conexão do pool por todo o tempo que o provedor levar. As chaves, como as outras sessões as veem: { $points }
duplicates-of-a-live-lease-are-told-409 = o prazo de reserva da chave não venceu: o pedido dela está vivo, e cada uma das 19 duplicatas tem de receber 409 sem retomá-la; { $count } receberam 409. As respostas: { $got }
the-held-request = o pedido retido
the-held-request-pays = o pedido retido tem de pagar depois de liberado: recebeu { $got }

## twenty_concurrent_requests_with_one_key_charge_once
one-key-one-payment = uma chave, um pagamento: { $outcome }
each-request-gets-the-201-or-409 = cada pedido tem de receber o 201 do pagamento, ou 409 enquanto ele está em andamento: { $outcome }
a-retry-after-the-burst-replays-the-201 = uma nova tentativa depois da rajada tem de repetir o 201 do pagamento: recebeu { $got }

## the_same_key_from_two_clients_charges_twice
two-clients-reach-the-provider-as-two-keys = no provedor, todos os nossos clientes são uma conta só: o order-1 de A e o de B têm de chegar lá como duas chaves (derive a chave também do cliente), senão B recebe a cobrança de A (B recebeu { $got }); o provedor recebeu as chaves { $keys }. Rode `cargo workbook hint 11`.
bs-payment = o pagamento de B
two-clients-two-payments = dois clientes, dois pagamentos, cada um respondido com 201: A recebeu { $of_a }, B { $of_b }
one-charge-per-client = uma cobrança por cliente, duas no total: o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}

## the_same_key_with_another_body_is_refused_without_a_charge
the-first-request-pays = o primeiro pedido tem de pagar e ser respondido com 201: recebeu { $got }
another-body-with-a-used-key-is-refused = outro corpo com uma chave já usada tem de ser recusado (422): recebeu { $got }
the-refused-request-charges-nothing = o pedido recusado não pode cobrar nada: o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
} no total, e não uma vez só
the-refused-request-does-not-ask-the-provider = o pedido recusado não pode chamar o provedor: ele foi chamado { $calls ->
    [1] uma vez
   *[other] { $calls } vezes
} no total, e não uma vez só

## a_slow_provider_does_not_starve_requests_for_other_keys
the-request-for-another-key = o pedido de outra chave
a-slow-request-once-released = um pedido lento, depois de liberado
a-slow-request-pays-once-released = cada pagamento lento tem de ser respondido com 201 quando o provedor responde: um recebeu { $got }
another-key-is-starved-by-a-slow-provider = um pedido de outra chave falhou enquanto cinco pagamentos esperavam o provedor: recebeu { $got }.
    Enquanto ele esperava: { $state }.
    Cada pagamento lento segurou uma conexão do pool (e o lock da chave dele) por todo o tempo que o provedor levou: o provedor foi chamado dentro da transação. Confirme (commit) a chave como 'started' primeiro, chame o provedor sem segurar nenhuma conexão, e só então registre. Rode `cargo workbook hint 11`.
five-slow-payments-and-the-other-keys = cinco pagamentos lentos e o da outra chave: o cartão tem de ser cobrado 6 vezes, e foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}

## a_request_that_was_taken_over_writes_nothing
a-phase-failed = `{ $phase }` retornou um erro: { $error }
a-new-key-is-reserved = uma chave nova tem de ser reservada: `reserve` tem de devolver a linha dela (Some), e devolveu None
a-dead-key-is-taken-over = uma chave cujo prazo de reserva venceu tem de ser retomada: `reserve` tem de devolver a linha dela (Some), e devolveu None. Rode `cargo workbook hint 11`.
a-takeover-gives-a-new-lease-number = uma retomada tem de dar à chave um novo número de lease (incremente `lease` no DO UPDATE), e a chave ficou com { $lease }: o número de lease é o token de cercamento (fencing token) que avisa o pedido parado que a chave não é mais dele. Rode `cargo workbook hint 11`.
a-stale-release-ends-the-new-owners-lease = a liberação feita pelo pedido parado encerrou o prazo de reserva do pedido que retomou a chave: uma duplicata então retomou a chave também, enquanto aquele pedido estava vivo. Toda escrita depois da reserva tem de citar o lease do pedido (`AND lease = $n`) e não mudar nada quando o lease não é mais do pedido.
a-stale-request-records-no-charge = o pedido parado registrou uma cobrança numa chave que não é mais dele: `record_charge` tem de citar o lease dele (`AND lease = $n`)
a-stale-request-stores-no-final-answer = o pedido parado guardou uma resposta definitiva numa chave que não é mais dele (`refuse` devolveu { $refused }, `set_aside` { $set_aside }): cada um tem de citar o lease dele (`AND lease = $n`)
the-key-is-as-its-new-owner-left-it = a chave tem de estar como o pedido que a retomou a deixou ('started', sem id de cobrança): { $points }
the-new-owner-records-its-charge = o pedido que retomou a chave tem de registrar a cobrança dele: `record_charge` sob o lease dele devolveu false
a-stale-request-writes-no-payment = o pedido parado gravou numa chave que não é mais dele: `finish` tem de responder a partir da chave (409 enquanto ela está em andamento) e não gravar pagamento nenhum; respondeu { $got }, e há { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
}

## a_request_taken_over_does_not_end_the_lease_of_the_request_that_took_the_key
the-request-that-took-the-key-over = o pedido que retomou a chave
a-request-taken-over-answers-from-the-key = o primeiro pedido foi retomado: a liberação dele não mudou nada, e ele tem de responder a partir da chave (409 enquanto o pedido que a retomou trabalha), não como se a chave ainda fosse dele (`release` diz se o lease ainda era nosso); respondeu { $got }
a-stale-release-lets-a-duplicate-in = o pedido que retomou a chave ainda está esperando a resposta do provedor, e o prazo de reserva dele está vigente; mesmo assim uma duplicata recebeu { $got }. A liberação do primeiro pedido encerrou o prazo de reserva do novo dono: `release` tem de citar o lease dele (`AND lease = $n`).
the-new-owner-pays = o pedido que retomou a chave tem de pagar quando o provedor responde: recebeu { $got }
a-stale-release-lets-no-second-payment-in = uma cobrança no cartão tem de ser uma linha em payments: a liberação do pedido parado não pode deixar entrar um segundo pagamento; há { $payments }

## a_refusal_the_provider_keeps_is_the_keys_final_answer
a-kept-refusal-is-final = o provedor guarda a resposta dele para a chave e a repete a cada nova tentativa: uma recusa que ele guarda é definitiva (guardada com a nossa chave, um 402); um erro que ele guarda deixa a cobrança incerta de vez (um 202, a chave posta de lado para a reconciliação), nunca um 402 que diz que nada foi cobrado, nem um 502 pedindo uma nova tentativa que só pode receber o mesmo erro. (Um 409 depois do primeiro 502 quer dizer que a nova tentativa não retomou a chave que o pedido que falhou liberou: veja `reserve`.) As três tentativas têm de receber { $expected }, e receberam { $got }: { $answers }
the-final-answer-is-stored-and-replayed = a resposta definitiva tem de ser guardada com a chave e repetida: a tentativa anterior recebeu { $before }, a última { $last }
a-stored-refusal-is-replayed-without-asking-the-provider = depois que a recusa foi guardada, as novas tentativas a repetem sem perguntar ao provedor: ele foi chamado { $calls ->
    [1] uma vez
   *[other] { $calls } vezes
}, e não { $expected ->
    [1] uma vez
   *[other] { $expected } vezes
}
nothing-was-charged = nada foi cobrado, e mesmo assim o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}
no-payment-was-written = nenhum pagamento pode ser gravado para uma recusa, e há { $payments }

## a_charge_still_running_at_the_provider_is_told_409_and_a_later_retry_charges_once
the-retry-takes-the-key-over-and-asks-the-provider = a nova tentativa, depois que o prazo de reserva do primeiro pedido venceu, tem de retomar a chave e perguntar de novo ao provedor (veja `reserve`); ela respondeu { $got } sem chamá-lo
the-providers-409-is-answered-409 = o provedor respondeu 409 (um pedido com esta chave está sendo executado lá, nada guardado): o pagamento está em andamento, então responda 409, não 502; respondeu { $got }
a-request-taken-over-records-nothing = o primeiro pedido foi retomado: ele não registra nada, e responde a partir da chave (409); respondeu { $got }
a-later-retry-charges-once-and-pays = depois que a cobrança do provedor terminou, uma nova tentativa posterior tem de concluir o pagamento e ser respondida com 201, não como resposta repetida: recebeu { $got }
the-providers-409-ends-in-one-payment = o 409 do provedor (a chave dele em andamento) tem de terminar em uma linha em payments, não num segundo pagamento sob outra chave; há { $payments }

## the_reaper_deletes_old_finished_keys_and_never_a_charged_one
the-reaper-keeps-a-charged-key = a rotina de limpeza apagou uma chave `charged`: a cobrança dela existe, e a chave é o único registro dela. Apague as chaves concluídas pela idade; uma chave não concluída é para a reconciliação
the-old-finished-key-is-deleted = a chave concluída antiga tem de ser apagada, uma chave: a rotina de limpeza apagou { $deleted }
the-charged-key-is-listed-for-reconciliation = a chave `charged`, com o prazo de reserva vencido, tem de ser listada para a reconciliação, ["order-1"]: a rotina de limpeza listou { $keys }
the-kept-charged-key-is-taken-over-and-finished = a chave `charged` mantida, com o prazo de reserva vencido há muito, tem de ser retomada pela nova tentativa e concluída: recebeu { $got }
the-old-payments-charge-and-this-ones = duas cobranças, a do pagamento antigo concluído e a deste: o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}
the-retry-resumed-from-charged = a nova tentativa continua de `charged`: não pode perguntar de novo ao provedor, duas chamadas no total, e houve { $calls }
the-old-payment-and-the-retrys = duas linhas em payments, a do pagamento antigo concluído e a da nova tentativa, concluída a partir de `charged` sem uma segunda cobrança: há { $payments }

## a_key_finished_today_replays_for_the_whole_retention_however_old_it_is
retention-counts-from-finished-at = a rotina de limpeza apagou uma chave concluída agora há pouco, porque ela foi usada pela primeira vez dois dias atrás: o prazo de validade é quanto tempo uma chave concluída repete a resposta dela, então ele conta a partir de quando a chave foi concluída (`finished_at`), não de `created_at`

## a_key_used_again_after_the_reaper_deleted_it_is_answered
the-key-is-past-its-retention = a chave passou do prazo de validade: a rotina de limpeza tem de apagá-la, uma chave, e apagou { $deleted }
create-payment-with-the-reused-key = create_payment com a chave usada de novo
the-reused-key-failed = a chave usada de novo depois que a rotina de limpeza a apagou falhou: { $error }. O provedor recebeu a chave que ele já conhece (chaves { $keys }): ele repetiu a cobrança do primeiro pagamento, que já tem a linha de pagamento dela, ou recusou o outro valor
a-reused-key-is-paid-once = { $reuse ->
    [same-body] a chave usada de novo com o mesmo corpo, enquanto o provedor se lembra da chave dele,
    [another-amount] a chave usada de novo com outro valor
   *[other] a chave usada de novo com o mesmo corpo, depois que o provedor esqueceu a chave dele,
} tem de ser respondida com 201 com { $reuse ->
    [same-body] a cobrança e a linha do primeiro pagamento
   *[other] uma cobrança e um pagamento só dela
}: recebeu { $got }, o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
} e há { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
} no total; o provedor recebeu as chaves { $keys }. Derive a chave do provedor também do hash do corpo (outro corpo é outro pagamento), e deixe `finish` responder a uma cobrança que já tem a linha de pagamento dela com aquele pagamento
a-reused-key-gets-its-answer = { $reuse ->
    [same-body] a chave usada de novo com o mesmo corpo, enquanto o provedor se lembra da chave dele, é o primeiro pagamento outra vez: tem de receber a primeira resposta ({ $first }), marcada como repetida
    [another-amount] a chave usada de novo com outro valor é outro pagamento: tem de receber uma resposta só dela, não marcada como repetida
   *[other] a chave usada de novo com o mesmo corpo, depois que o provedor esqueceu a chave dele, é outro pagamento: tem de receber uma resposta só dela, não marcada como repetida
}; recebeu { $got }

## a_dead_requests_key_is_not_taken_over_with_another_body
a-dead-key-is-not-taken-over-with-another-body = o pedido morto cobrou 100 com esta chave; uma nova tentativa com o valor 999 tem de ser recusada (422) e não cobrar nada. Recebeu { $got }, e o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}. Uma retomada é para uma nova tentativa do mesmo pedido: `AND k.body_hash = EXCLUDED.body_hash`
the-retry-with-the-first-body-finishes-the-payment = a nova tentativa com o primeiro corpo tem de concluir o pagamento, 201 com o valor 100: recebeu { $got }
one-charge-one-payment = uma cobrança, um pagamento: o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}, e há { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
}

## a_started_key_the_provider_may_have_forgotten_is_set_aside_not_charged_again
a-forgotten-key-is-not-asked-again = a nova tentativa não pode perguntar de novo ao provedor sobre uma chave que ele pode ter esquecido (ela respondeu { $got }): o provedor foi chamado { $calls ->
    [1] uma vez
   *[other] { $calls } vezes
}, e o cartão cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}. Retome uma chave `started` só enquanto o provedor ainda se lembra da chave dele: `k.created_at > now() - $5::interval` (`app.config.resume_window_interval()`)
a-forgotten-key-is-set-aside = a chave tem de ser posta de lado para a reconciliação, e o cliente avisado disso ({ $expected }): recebeu { $got }
the-reaper-lists-the-set-aside-key = a rotina de limpeza tem de listar a chave posta de lado para a reconciliação, [("order-1", "unknown")]: listou { $listed }

## a_request_that_outlived_its_key_writes_nothing_into_the_keys_next_use
the-stalled-request = o pedido parado
the-keys-next-use = o uso seguinte da chave
a-request-that-outlived-its-key-writes-nothing = o uso seguinte da chave tem de ser pago com a cobrança dele, 201 com o valor 999: recebeu { $got }. O pedido que sobreviveu ao primeiro uso da chave (ele respondeu { $stalled }) gravou nele. Um número de lease nunca pode ser dado duas vezes, nem a uma chave apagada pela rotina de limpeza e usada de novo: `lease = nextval('idempotency_key_leases')`. Rode `cargo workbook hint 11`.
one-payment-per-charge = um pagamento por cobrança, ["ch_1", "ch_2"]: os ids de cobrança dos pagamentos são { $ids }

## a_key_reaped_between_its_reservation_and_its_read_is_reserved_anew
the-retry-reading-the-key = a nova tentativa, lendo a chave
the-retry = a nova tentativa
a-key-reaped-under-a-read-is-reserved-anew = a chave foi apagada pela rotina de limpeza entre a reserva da nova tentativa e a leitura da resposta da chave, e a nova tentativa falhou: { $error }. Uma chave que a rotina de limpeza apagou não existe mais: reserve-a de novo
reserved-anew-the-key-replays-the-first-charge = reservada de novo, a chave manda ao provedor a mesma chave derivada, que repete a primeira cobrança: a nova tentativa tem de receber a resposta do primeiro pagamento ({ $first }), com uma cobrança e um pagamento. Recebeu { $got }; o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}, e há { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
}

## each_provider_answer_is_read_for_what_it_says_about_the_card
a-provider-answer-read-for-what-it-says = o { $fault } do provedor quer dizer: { $meaning ->
    [charged] o cartão foi cobrado, um pagamento, 201
    [not-charged-retry] nada foi cobrado nem guardado, um 502, e a nova tentativa com a mesma chave cobra
    [unknown] a cobrança está incerta de vez, a chave é posta de lado para a reconciliação (202) e nunca mais é mandada ao provedor
   *[other] recusa definitiva do provedor, nada foi cobrado (402)
}. O cliente tem de receber { $expected } (status), o provedor { $calls ->
    [1] 1 chamada
   *[other] { $calls } chamadas
}, o cartão { $charges ->
    [1] 1 cobrança
   *[other] { $charges } cobranças
}, com { $payments ->
    [1] 1 pagamento
   *[other] { $payments } pagamentos
}; recebeu { $got }, { $got_calls ->
    [1] 1 chamada
   *[other] { $got_calls } chamadas
}, { $got_charges ->
    [1] 1 cobrança
   *[other] { $got_charges } cobranças
} e { $got_payments ->
    [1] 1 pagamento
   *[other] { $got_payments } pagamentos
}. As respostas foram: { $answers }
nothing-was-charged-say-so = nada foi cobrado: diga isso, e peça uma nova tentativa com a mesma chave (`provider_not_charged()`, { $expected }); respondeu { $got }
an-unknown-charge-is-set-aside = a cobrança está incerta de vez: a chave tem de ser posta de lado (`unknown`) e a resposta pendente dela ({ $expected }) repetida, nunca um 402 que diz ao cliente que nada foi cobrado; recebeu { $got }, e as chaves são { $points }

## the_provider_client_returns_the_charge_id_or_why_there_is_none
the-charges-id-from-the-providers-answer = o cliente do provedor tem de devolver o id da cobrança que está na resposta do provedor, ch_1: devolveu { $got }
a-declined-card-is-a-final-refusal = um cartão recusado é a recusa definitiva do provedor (`ProviderError::Declined` com status 402): devolveu { $got }

## an_answer_marked_idempotent_replayed_false_is_not_a_replay
replayed-false-is-not-a-replay = o 503 do provedor disse `Idempotent-Replayed: false`: não é uma resposta guardada, então a primeira tentativa recebe 502 e a nova tentativa tem de cobrar, uma cobrança no total. Recebeu { $first }, depois { $retry }, e o cartão foi cobrado { $charges ->
    [1] uma vez
   *[other] { $charges } vezes
}
