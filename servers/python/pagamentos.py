"""POST /pagamentos made safe to retry: the source article's Python version.

The key and the payment are written in ONE transaction, and the key is reserved by an
INSERT into a table whose primary key is the key: a second request with the same key
waits for the first transaction to end, then does nothing, then replays the stored
answer. The names (criar_pagamento, chave, corpo, resposta) are the article's, so this
file can be read beside it.
"""

import hashlib
import json
import os
import time
from dataclasses import dataclass

import psycopg
from psycopg.types.json import Jsonb


@dataclass(frozen=True)
class Resultado:
    """What the HTTP layer sends: a status, a JSON body, and whether it is a replay."""

    status: int
    corpo: dict
    repetida: bool = False


# Same key, another body: refused, nothing paid (422, as the IETF draft on the
# Idempotency-Key header says).
OUTRO_CONTEUDO = Resultado(
    422,
    {
        "type": "https://api.loja.com.br/erros/chave-com-outro-conteudo",
        "title": "Chave de idempotência usada com outro conteúdo",
        "status": 422,
    },
)


def hash_do_corpo(corpo: dict) -> str:
    """SHA-256 of the body, normalised first.

    Sorted keys and no spaces: the same request written differently (fields in another
    order, other spacing) has the same hash, so a retry that a client library
    re-serialised is still recognised as the same request.
    """
    normalizado = json.dumps(corpo, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(normalizado.encode()).hexdigest()


# Milliseconds a card authorisation takes in these servers (AUTORIZACAO_MS, default 20).
AUTORIZACAO_MS = int(os.environ.get("AUTORIZACAO_MS", "20"))


def autorizar_no_cartao() -> None:
    """Stands for the call to the card network that a real payment makes.

    In production it is a call to the provider, with a key derived from this one (the
    article's checklist). Here a pause of the same order, so that the requests of a
    burst overlap as they would in production: a race or a pool deadlock then shows
    in every burst, not in some (see servers/README.md for the figures without it).
    """
    time.sleep(AUTORIZACAO_MS / 1000)


# ANCHOR: criar_pagamento
def criar_pagamento(conexao: psycopg.Connection, chave: str, corpo: dict) -> Resultado:
    """Pay once per key; every repetition gets the first answer again."""
    hash_corpo = hash_do_corpo(corpo)
    with conexao.transaction():
        # If another transaction already wrote this key, this INSERT waits for it to
        # end: committed, it does nothing (0 rows); rolled back, this one inserts.
        nova = conexao.execute(
            """INSERT INTO chaves_idempotencia (chave, hash_corpo) VALUES (%s, %s)
               ON CONFLICT (chave) DO NOTHING""",
            (chave, hash_corpo),
        ).rowcount
        if nova:
            return Resultado(201, gravar_pagamento(conexao, chave, corpo))
    # The key existed: answer what is stored. On the SAME connection, after the
    # transaction block: asking the pool for a second connection while holding this
    # one is what hung the article's first TypeScript version under load.
    linha = buscar_chave(conexao, chave)
    return resposta_guardada(linha, hash_corpo)
    # ANCHOR_END: criar_pagamento


def gravar_pagamento(conexao: psycopg.Connection, chave: str, corpo: dict) -> dict:
    """The effect and its answer, inside the caller's transaction that holds the key."""
    resposta = pagar(conexao, corpo)
    # RETURNING gives the answer back as the JSONB column stores it (JSONB orders the
    # keys its own way): the first answer and every replay are then the same bytes.
    (guardada,) = conexao.execute(
        "UPDATE chaves_idempotencia SET status_http = 201, resposta = %s WHERE chave = %s RETURNING resposta",
        (Jsonb(resposta), chave),
    ).fetchone()
    return guardada


def pagar(conexao: psycopg.Connection, corpo: dict) -> dict:
    """Authorise with the card network, insert the payment, and return the answer."""
    autorizar_no_cartao()
    (pagamento_id,) = conexao.execute(
        "INSERT INTO pagamentos (pedido_id, valor) VALUES (%s, %s) RETURNING id",
        (corpo["pedidoId"], corpo["valor"]),
    ).fetchone()
    return {"id": str(pagamento_id), **corpo, "status": "aprovado"}


def buscar_chave(conexao: psycopg.Connection, chave: str) -> tuple[str, int, dict] | None:
    """The stored row of a key: (hash_corpo, status_http, resposta), or None."""
    return conexao.execute(
        "SELECT hash_corpo, status_http, resposta FROM chaves_idempotencia WHERE chave = %s",
        (chave,),
    ).fetchone()


def resposta_guardada(linha: tuple[str, int, dict], hash_corpo: str) -> Resultado:
    """The first answer again, but only for the same body."""
    hash_salvo, status, resposta = linha
    if hash_salvo != hash_corpo:
        return OUTRO_CONTEUDO
    return Resultado(status, resposta, repetida=True)
