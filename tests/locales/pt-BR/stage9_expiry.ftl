# O que tests/stage9_expiry.rs diz, em português do Brasil. Mesmos ids que
# ../en/stage9_expiry.ftl; os fatos (números, respostas, SQLSTATEs, configurações,
# as palavras de um erro, a linha do resultado) são argumentos.

payments-made-by-now = { $wanted ->
    [1] 1 pagamento deveria ter sido feito
   *[other] { $wanted } pagamentos deveriam ter sido feitos
} até aqui: { $payments ->
    [0] não há nenhum
    [1] há 1
   *[other] há { $payments }
}
a-task-panicked = { $what } entrou em pânico (veja o panic acima; um todo!() ainda por escrever?): { $error }
the-reaper-returned-an-error = a rotina de limpeza retornou um erro: { $error }
a-new-key-is-answered-201 = um pedido com uma chave nova tem de ser respondido com 201: recebeu { $got }
inside-the-window-the-stored-answer-is-replayed = uma chave a um minuto do fim do prazo de validade de 24 h tem de repetir a resposta guardada (201, o mesmo corpo, Idempotent-Replayed): o primeiro pedido recebeu { $first }, a repetição { $again }
an-expired-key-is-a-new-payment = uma chave um minuto além do prazo de validade de 24 h é uma chave nova, tenha a rotina de limpeza passado ou não: o pedido tem de ser um pagamento novo (201, sem repetir a resposta). O primeiro pedido recebeu { $first }, o feito depois da expiração { $got }. Rode `cargo workbook hint 9`.
a-new-payment-has-a-new-id = um pagamento novo tem um id novo: o primeiro recebeu { $first }, o pagamento novo { $got }
the-key-now-replays-the-new-payment = a chave agora guarda a resposta do pagamento novo, e tem de repeti-la: o pagamento novo recebeu { $paid }, a repetição { $again }
the-expired-row-is-taken-over = a linha da chave expirada tem de ser retomada, não duplicada: idempotency_keys tem { $rows ->
    [1] 1 linha
   *[other] { $rows } linhas
} (esperada 1)
the-reaper-deletes-in-bounded-batches = 250 chaves expiradas, no máximo 100 por transação, são apagadas em 3 lotes (100 + 100 + 50): a rotina de limpeza apagou { $keys ->
    [0] nenhuma chave
    [1] 1 chave
   *[other] { $keys } chaves
} em { $batches ->
    [0] nenhum lote
    [1] 1 lote
   *[other] { $batches } lotes
}
the-keys-inside-the-window-stay = as 5 chaves dentro do prazo de validade têm de ficar: { $left ->
    [0] não sobrou nenhuma
    [1] sobrou 1
   *[other] sobraram { $left }
}
nothing-is-left-to-reap = uma segunda passada da rotina de limpeza não acha mais nada para apagar (1 lote, nenhuma chave): ela apagou { $keys ->
    [0] nenhuma chave
    [1] 1 chave
   *[other] { $keys } chaves
} em { $batches ->
    [0] nenhum lote
    [1] 1 lote
   *[other] { $batches } lotes
}
one-index-starts-with-created-at = idempotency_keys precisa de um índice que comece por created_at, para que cada lote da rotina de limpeza leia só as chaves mais antigas (CREATE INDEX ... ON idempotency_keys (created_at)): a sua tabela tem { $indexes }. Rode `cargo workbook hint 9`.
the-reaper-while-a-request-holds-an-expired-key = a rotina de limpeza, enquanto um pedido segura uma chave expirada,
the-reaper-skips-a-key-in-flight = a única linha expirada está presa a um pedido em andamento: a rotina de limpeza tem de pulá-la, e apagou { $keys ->
    [0] nenhuma chave
    [1] 1 chave
   *[other] { $keys } chaves
}. Rode `cargo workbook hint 9`.
the-held-request = o pedido retido
a-take-over-is-a-new-payment = o pedido que retomou a chave expirada tem de pagar e ser respondido com 201, sem repetir resposta: recebeu { $got }
the-key-survived-the-reaper = a chave sobreviveu à rotina de limpeza e tem de repetir a resposta nova: o pedido que pagou recebeu { $paid }, a repetição { $again }
the-first-request-ended-before-its-payment = o primeiro pedido terminou sem chegar ao pagamento (veja o panic ou a resposta dele acima)
the-first-request-did-not-reach-its-payment = o primeiro pedido não chegou ao pagamento em { $seconds } s
the-reaper-did-not-run-twice-during-the-burst = a rotina de limpeza não terminou duas passadas em { $seconds } s enquanto a rajada estava retida (completou { $runs }): ela espera pela chave em andamento? Rode `cargo workbook hint 9`.
a-request-of-the-burst = um pedido da rajada
the-reapers-last-run = a última passada da rotina de limpeza
the-burst-pays-once = 20 pedidos com uma chave expirada, com a rotina de limpeza rodando em laço ao lado, têm de fazer um pagamento: { $outcome }
every-request-of-the-burst-gets-the-201 = todo pedido da rajada recebe o 201 do único pagamento: { $outcome }
the-reaper-deletes-the-2000-others = a rotina de limpeza tem de apagar as outras 2000 chaves expiradas, e não a que foi retomada em andamento: apagou { $reaped }
valid-settings-are-refused = a rotina de limpeza em segundo plano recusou configurações válidas: { $error }
the-background-reaper-stopped = a rotina de limpeza em segundo plano parou: a tarefa dela entrou em pânico (veja o panic acima; um todo!() ainda por escrever?), com { $left ->
    [1] 1 chave sobrando
   *[other] { $left } chaves sobrando
} (esperadas 5)
the-background-reaper-left-keys = a rotina de limpeza em segundo plano deixou { $left ->
    [1] 1 chave
   *[other] { $left } chaves
} depois de { $seconds } s (esperadas 5)
the-api-pays = a rota de `cargo workbook api --stage 9` tem de pagar: recebeu { $got }
the-apis-reaper-stopped = a rotina de limpeza da api parou: a tarefa dela entrou em pânico (veja o panic acima; um todo!() ainda por escrever?), com { $left ->
    [1] 1 chave antiga sobrando
   *[other] { $left } chaves antigas sobrando
} (esperadas 5)
the-api-runs-no-reaper = { $seconds } s depois de `cargo workbook api --stage 9` começar, { $left ->
    [1] sobra 1 chave antiga
   *[other] sobram { $left } chaves antigas
} (esperadas 5): o servidor dela não roda a rotina de limpeza ao lado da rota
the-first-request-must-pay = o primeiro pedido tem de pagar, e falhou: { $error }
the-stand-in-for-the-reaper-taking-the-table = o substituto da rotina de limpeza, esperando pelo lock da tabela,
the-repeat = a repetição
a-key-reaped-mid-request-is-run-again = a chave foi apagada pela rotina de limpeza entre o INSERT da repetição e a leitura da resposta: essa tentativa não confirmou nada (commit), então é executada de novo, e a chave, que sumiu, é uma chave nova. create_payment retornou { $error }
a-reaped-key-is-a-new-payment = a repetição, com a chave apagada pela rotina de limpeza, tem de pagar e ser respondida com 201, sem repetir resposta: recebeu { $got }
a-failed-payment-fails-the-call = o INSERT do pagamento falha, então create_payment tem de falhar: retornou { $got }
rolled-back-before-the-error-is-returned = create_payment retornou o erro com a transação ainda aberta (as sessões: { $sessions }): a chave continua bloqueada até o sqlx mandar o ROLLBACK enfileirado. Faça o rollback antes de retornar o erro.
the-reaper-with-settings-it-cannot-work-with = a rotina de limpeza, com configurações com que não consegue trabalhar,
settings-that-cannot-work-are-refused = { $settings }: Config::validate tem de recusar essas configurações, e as aceitou
the-reaper-refuses-them-before-deleting = { $settings }: a rotina de limpeza deveria recusá-las com { $expected }, antes de apagar qualquer coisa; retornou { $got }
the-background-reaper-is-refused-at-its-start = { $settings }: a rotina de limpeza em segundo plano tem de ser recusada ao começar, não a cada passada
the-default-settings-are-valid = as configurações padrão têm de ser válidas: Config::validate retornou { $got }
the-smallest-settings-are-valid = um lote de 1 chave e um prazo de validade de 1 ms são lentos e curtos, não errados: Config::validate retornou { $got }
create-payment = create_payment
every-run-fails-so-create-payment-does = toda execução falha com SQLSTATE { $sqlstate }, então create_payment tem de falhar com ele: retornou { $got }
only-a-serialization-failure-is-run-again = SQLSTATE { $sqlstate }: a transação deveria ter rodado { $runs ->
    [1] uma vez
   *[other] { $runs } vezes
} (attempts é 3; só uma falha de serialização, ou uma chave apagada pela rotina de limpeza no meio do pedido, é executada de novo), e rodou { $ran ->
    [1] uma vez
   *[other] { $ran } vezes
}
the-first-request = o primeiro pedido
a-duplicate-in-flight-is-told-409 = uma duplicata de um pedido ainda em andamento tem de receber 409 quando a espera pelo lock da chave passa do limite (SQLSTATE 55P03): recebeu { $got }
the-first-request-pays-once-let-go = o primeiro pedido tem de pagar depois de solto: recebeu { $got }
only-a-lock-timeout-is-a-409 = só um lock timeout (SQLSTATE 55P03) quer dizer que outro pedido segura a chave; qualquer outro erro da reserva tem de ser retornado como erro, e não respondido com 409: recebeu { $got }
the-background-reaper-connects = a rotina de limpeza em segundo plano deveria se conectar ao banco em até { $seconds } s depois de começar, para a primeira passada: a conexão dela nunca apareceu
a-dropped-reaper-stops = a rotina de limpeza em segundo plano foi descartada (drop), então tem de parar: a tarefa dela termina, e o pool que ela recebeu fecha a conexão. { $seconds } s depois, a conexão ainda estava aberta: o Drop de Reaper termina a tarefa?
a-run-of-the-reaper = uma passada da rotina de limpeza (reap_expired_keys),
