# O que tests/stage1_tables.rs diz quando uma tabela não está como a etapa 1
# pede, em português do Brasil. Mesmos ids que ../en/stage1_tables.ftl; os fatos
# (tabelas, colunas, tipos, SQL, as palavras do servidor) são argumentos.

the-server-did-not-answer = o servidor não respondeu em { $what }: { $error }
there-is-no-table-yet = Ainda não há a tabela `{ $table }`. Escreva `CREATE TABLE { $table } (...)` em { $file } (os comentários de lá listam as colunas dela; `cargo workbook hint 1` dá uma dica).
the-table-has-no-such-column = A tabela `{ $table }` não tem a coluna `{ $column }`. Acrescente-a em { $file } (os nomes importam: as etapas seguintes os consultam).
the-column-must-be-of-type = { $column } tem de ser do tipo { $wanted }: a sua é { $yours }
the-column-must-accept-null = { $column } tem de aceitar NULL (um pedido em andamento ainda não tem resposta): a sua é NOT NULL
the-column-must-be-not-null = { $column } tem de ser NOT NULL: a sua aceita NULL
the-table-has-no-primary-key = a tabela não tem chave primária
its-primary-key-is = a chave primária dela é ({ $columns })
yours-is-generated-as-identity = a sua é GENERATED { $how } AS IDENTITY
yours-is-not-an-identity-column = a sua não é uma coluna identity
payments-id-must-be-generated-always = payments.id tem de ser GENERATED ALWAYS AS IDENTITY, para que nenhum INSERT possa escolher um id: { $yours }
payments-id-must-be-the-primary-key = payments.id tem de ser a PRIMARY KEY: { $yours }
payments-must-accept-an-insert-without-an-id = payments tem de aceitar um INSERT sem id, e a sua o recusou: { $error }
two-payments-get-two-ids = dois pagamentos inseridos sem id têm de receber um id cada: os seus receberam { $ids }
the-key-must-be-the-primary-key = idempotency_keys.key tem de ser a PRIMARY KEY (é ela que faz um segundo INSERT da chave esperar e depois falhar): { $yours }
the-first-insert-of-a-key-must-work = o primeiro INSERT de uma chave tem de funcionar, e o seu falhou: { $error }
a-second-insert-of-the-key-must-fail-with-23505 = um segundo INSERT da mesma chave tem de falhar com uma violação de unicidade (SQLSTATE 23505): o seu { $yours }
yours-succeeded-with-two-rows = funcionou, e agora a tabela tem duas linhas para a chave
yours-succeeded-and-replaced-the-row = funcionou, e substituiu a primeira linha
yours-failed-otherwise = falhou com outro erro: { $error }
a-key-must-be-insertable-with-its-hash-alone = tem de ser possível inserir uma chave só com o hash do corpo (o status e a resposta vêm depois, quando o pagamento é feito), e a sua tabela o recusou: { $error }
a-reserved-key-has-no-answer-yet = uma chave inserida só com o hash do corpo ainda não pode ter { $column } (NULL), e a sua recebeu um: `{ $column }` tem um DEFAULT?
a-reserved-key-is-dated-now = uma chave inserida sem created_at tem de receber a data de agora: dê a idempotency_keys.created_at o DEFAULT now()
created-at-defaults-to-now = idempotency_keys.created_at tem de ter DEFAULT now(); o default dela é { $yours }
