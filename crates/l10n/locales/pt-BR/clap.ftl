# As palavras do próprio clap, para todo programa do workbook que lê seus
# argumentos com o clap (src/cli.rs). Os textos do programa ficam no catálogo dele.

clap-usage = Uso:
# A linha de uso: o comando, as opções e os argumentos dele.
clap-usage-line = { $usage }
clap-commands = Comandos
clap-arguments = Argumentos
clap-options = Opções
# Os marcadores de uma linha de uso.
clap-options-value = [OPÇÕES]
clap-command-value = COMANDO
clap-help-flag = Mostra a ajuda
clap-version-flag = Mostra a versão
clap-help-command = Mostra esta mensagem ou a ajuda de um comando
clap-help-command-which = O comando cuja ajuda mostrar
clap-default = [padrão: { $value }]
clap-env = [variável: { $variable }]
# The values an argument takes, each with its help, under --help.
clap-possible-values = Valores possíveis:
clap-possible-value = { $value } { $help }

clap-error = erro:
clap-error-value-required = '{ $arg }' precisa de um valor, e nenhum foi dado
clap-error-invalid-value = valor inválido '{ $value }' para '{ $arg }'
clap-error-possible-values = [valores possíveis: { $values }]
clap-error-invalid-value-because = valor inválido '{ $value }' para '{ $arg }': { $why }
clap-error-not-a-number = não é um número inteiro
clap-error-unknown-argument = argumento inesperado '{ $arg }'
clap-error-unknown-command = comando desconhecido '{ $command }'
clap-error-missing-argument = faltam argumentos obrigatórios: { $arg }
clap-error-missing-command = falta um comando: { $commands }
clap-error-conflict = o argumento '{ $arg }' não pode ser usado com '{ $other }'
clap-error-too-many-values = valor inesperado '{ $value }' para '{ $arg }'; nenhum outro era esperado
clap-error-number-of-values = número errado de valores para '{ $arg }'
clap-error-no-equals = '{ $arg }' recebe o valor com um sinal de igual
clap-error-not-utf8 = um argumento não é UTF-8 válido
clap-error-other = { $said }
clap-tip-command = dica: existe um comando parecido: '{ $similar }'
clap-tip-argument = dica: existe um argumento parecido: '{ $similar }'
clap-tip-value = dica: existe um valor parecido: '{ $similar }'
clap-more = Para mais informações, tente '{ $help }'.
