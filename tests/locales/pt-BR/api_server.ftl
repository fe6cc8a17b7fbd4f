# O que `cargo workbook api` diz (tests/api_server.rs, e o reaper da etapa 9 de
# tests/stage9_api.rs). Os comandos que ele imprime são fatos: os mesmos em todo idioma.

api-your-exercise = o seu exercício
api-the-model-answer = a solução de referência
api-on-one-instance = em { $url }
api-on-instances = em { $count } instâncias (cada uma um processo, um só banco): { $urls }
api-served = O POST /payments da etapa { $stage } ({ $which }) { $instances }, banco { $name }.
api-beside-it = Ao lado dele: { $what }.
api-beside-each-instance = Ao lado dele, em cada instância: { $what }.
api-the-reaper = o reaper, a cada { $every } s, apagando as chaves com mais de { $hours } h
api-pay = Pague (rode duas vezes: a segunda é uma resposta repetida):
api-look-at-the-rows = Veja as linhas:
api-probe-it = Teste com o probe (de outro terminal):
api-ctrl-c = Ctrl-C o para e apaga o banco.
api-stopped = Parado; banco { $name } apagado.
api-port-argument = --port recebe um número de 0 (qualquer porta livre) a 65535
api-instances-argument = --instances recebe um número de 1 a 16
api-unknown-argument = argumento desconhecido { $given } (só --port N e --instances K)
api-past-last-port = { $instances } instâncias a partir da porta { $port } passam de 65535: escolha uma --port menor
api-listen = não foi possível escutar em 127.0.0.1:{ $port } ({ $error }): há outro servidor nessa porta? `cargo workbook api --port N` escolhe outra (0: qualquer porta livre)
