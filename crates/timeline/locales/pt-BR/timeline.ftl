# Todas as palavras de uma linha do tempo, em português do Brasil (o glossário
# do livro: pedido, rajada, comando, lock, comporta, pool de conexões). Os fatos
# (números dos pedidos, durações já formatadas, SQL, SQLSTATEs, status) são
# argumentos e não se traduzem. O plural "one" do português vale para 0 e 1:
# o zero tem a sua variante, [0].

## O título
title = Linha do tempo de { $test }: { $requests ->
    [0] 0 pedidos
    [1] 1 pedido
   *[other] { $requests } pedidos
}, { $duration }
title-no-test = Linha do tempo da rajada: { $requests ->
    [0] 0 pedidos
    [1] 1 pedido
   *[other] { $requests } pedidos
}, { $duration }
title-client = Linha do tempo da rajada, vista do cliente: { $requests ->
    [0] 0 pedidos
    [1] 1 pedido
   *[other] { $requests } pedidos
}, { $duration }

## Quem uma faixa representa
members-one = #{ $n }
members-many = ×{ $count }
members-range = ×{ $count } (#{ $first }–#{ $last })
members-others = ×{ $count } (os outros)

## O que uma faixa dobrada fez, cada fato com seus números
fact-waited-connection = esperou { $duration } por uma conexão
fact-blocked-by-request = bloqueado por #{ $holder } durante { $duration } no { $statement }
fact-blocked-by-gate = retido na comporta do teste durante { $duration } no { $statement }
fact-blocked-by-other = bloqueado por uma sessão fora da rajada (pid { $pid }) durante { $duration } no { $statement }
fact-blocked-unnamed = bloqueado durante { $duration } no { $statement } (quem segurava o lock já tinha saído quando o harness perguntou)
fact-some-blocked = { $count } deles: { $fact }
fact-idle-in-transaction = ocioso na transação durante { $duration }
fact-paid = pagou
fact-paid-twice = pagou { $count } vezes
fact-paid-nothing = não pagou nada
fact-paid-rolled-back = pagou, depois fez rollback
fact-no-statement = não mandou nenhum comando
fact-statements = { $count ->
    [0] 0 comandos
    [1] 1 comando
   *[other] { $count } comandos
}
fact-sent = enviado em { $at }
fact-each = cada um { $fact }
fact-answered-after = respondido após { $duration }
fact-replayed = marcado como resposta repetida
fact-not-replayed = sem marca de resposta repetida
step-rows = { $statement } ({ $count ->
    [0] 0 linhas
    [1] 1 linha
   *[other] { $count } linhas
})
step-failed = { $statement } ✗ { $sqlstate }

## Como uma faixa terminou
end-answered = { $answer }
end-panicked = pânico: { $message }
end-unfinished = ainda rodando quando a rajada foi abandonada
answer-pool-timed-out = tempo esgotado no pool
answer-unique-violation = violação de unicidade (23505)
answer-lock-timeout = tempo de lock esgotado (55P03)
answer-unanswered = sem resposta a tempo
answer-no-answer = fechou sem resposta

## A legenda: uma palavra por símbolo
legend-waiting = esperando uma conexão
legend-code = no próprio código
legend-statement = comando rodando
legend-blocked = bloqueado por um lock
legend-gate = retido pelo teste
legend-idle-in-transaction = ocioso na transação
legend-answer = resposta
legend-panicked = pânico
legend-unfinished = ainda rodando
legend-in-flight = em andamento
legend-unanswered = sem resposta dentro do limite
legend-no-answer = a conexão fechou (ou falhou) sem resposta
legend-heading = Legenda

## O que a gravação não pôde ver
seen-lock-waits = Locks: os relatos do próprio PostgreSQL de cada espera de { $duration } ou mais; uma espera mais curta não aparece.
missing-database-url = Um servidor de DATABASE_URL: as conexões dele não passam pelo relay, então não se veem comandos nem locks, só quando cada pedido recebeu a conexão e como terminou.
missing-not-superuser = O papel não pode ativar log_lock_waits: as esperas por lock não aparecem.
missing-client-side = Visto do cliente: quando cada pedido foi enviado e quando a resposta voltou; os locks e as transações do servidor não aparecem.
missing-untraced-pool = O pool da rajada não era do harness: não se veem conexões, comandos nem locks.

## Em volta da figura
more-kinds = … { $count ->
    [1] mais 1 tipo de faixa
   *[other] mais { $count } tipos de faixa
} ({ $requests } pedidos), deixados de fora para a figura caber
axis-unit-ms = ms
axis-unit-s = s
shown-again = { $command } mostra de novo; { $test_command }, a linha do tempo de outro teste.
# The placeholder for a test's name in `timeline N --test NAME`.
test-name-placeholder = NOME
no-trace = Sem linha do tempo: { $why }
no-trace-none-recorded = esta execução não gravou nenhuma rajada (os testes dela não disparam nenhuma, ou falharam antes).
no-trace-not-that-test = nenhuma rajada de um teste chamado { $test } nesta execução. Rajadas: { $tests }.
