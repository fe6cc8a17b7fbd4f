"""WRONG ON PURPOSE: the naive version, "check, then write" (the article's last row).

Kept so that a test (or `workbook probe`) can show what it misses. Each statement runs
in its own transaction (the pool's connections are in autocommit), and nothing reserves
the key before the payment: between the SELECT that finds no key and the INSERT that
stores it, every concurrent request with the same key also finds nothing, and each one
pays. A burst of 20 requests with one key creates several payments.

Compare with pagamentos.criar_pagamento: there the key is reserved first, by an INSERT
that the primary key makes wait, in the same transaction as the payment.
"""

import psycopg
from psycopg.types.json import Jsonb

from pagamentos import Resultado, buscar_chave, hash_do_corpo, pagar, resposta_guardada


def criar_pagamento(conexao: psycopg.Connection, chave: str, corpo: dict) -> Resultado:
    hash_corpo = hash_do_corpo(corpo)
    linha = buscar_chave(conexao, chave)
    if linha is not None:
        return resposta_guardada(linha, hash_corpo)
    # The race window: from here to the INSERT of the key, the key is still unknown,
    # and paying takes a while (the card authorisation).
    resposta = pagar(conexao, corpo)
    # ON CONFLICT DO NOTHING spares the losers a unique-violation error, but it comes
    # too late: their payments are already committed.
    conexao.execute(
        """INSERT INTO chaves_idempotencia (chave, hash_corpo, status_http, resposta)
           VALUES (%s, %s, 201, %s) ON CONFLICT (chave) DO NOTHING""",
        (chave, hash_corpo, Jsonb(resposta)),
    )
    return Resultado(201, resposta)
