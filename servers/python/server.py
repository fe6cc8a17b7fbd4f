"""HTTP for POST /pagamentos: the standard library's ThreadingHTTPServer and a psycopg pool.

Usage: DATABASE_URL=... PORT=8081 [POOL_SIZE=10] python server.py [idempotente|ingenuo]

Serves on 127.0.0.1 only. Every refusal is an application/problem+json body (RFC 9457),
so a client, or `workbook probe`, can tell a refusal from a payment without guessing.
"""

import json
import logging
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
from psycopg_pool import ConnectionPool

import pagamentos
import pagamentos_ingenuo

OPERACOES = {
    "idempotente": pagamentos.criar_pagamento,
    "ingenuo": pagamentos_ingenuo.criar_pagamento,
}
SCHEMA = Path(__file__).resolve().parent.parent / "schema.sql"

MAX_CHAVE = 255  # characters, as in the article's route
MAX_CORPO = 16 * 1024  # bytes: a payment is a few dozen
MAX_DESCARTE = 10 * 1024 * 1024  # read and drop up to this much of a refused body
# Limits shared with the TypeScript server, whose numbers are doubles: pedido_id is a
# BIGINT but only integers up to 2^53 - 1 survive JSON in JavaScript; valor is an INT.
MAX_PEDIDO_ID = 2**53 - 1
MAX_VALOR = 2**31 - 1

log = logging.getLogger("pagamentos")


class Problema(Exception):
    """A refusal, sent as problem+json."""

    def __init__(self, status: int, slug: str, title: str, detail: str | None = None):
        super().__init__(title)
        self.corpo = {"type": f"https://api.loja.com.br/erros/{slug}", "title": title, "status": status}
        if detail:
            self.corpo["detail"] = detail


def chave_do_pedido(valor: str | None) -> str:
    """The Idempotency-Key header, required: a route that charges must not let a
    client forget it and find out only when it charges twice."""
    if not valor:
        raise Problema(400, "chave-ausente", "O cabeçalho Idempotency-Key é obrigatório")
    if len(valor) > MAX_CHAVE:
        raise Problema(
            400, "chave-longa", "O cabeçalho Idempotency-Key é longo demais", f"no máximo {MAX_CHAVE} caracteres"
        )
    return valor


def corpo_do_pagamento(bruto: bytes) -> dict:
    """{"pedidoId": N, "valor": M}, both positive integers, nothing else.

    The body is rebuilt from the two fields: what gets hashed and stored never depends
    on how the client wrote it.
    """
    try:
        corpo = json.loads(bruto)
    except (UnicodeDecodeError, json.JSONDecodeError) as erro:
        raise Problema(400, "json-invalido", "O corpo não é JSON válido", str(erro)) from None
    esperado = 'esperado {"pedidoId": inteiro positivo, "valor": inteiro positivo}'
    if not isinstance(corpo, dict) or set(corpo) != {"pedidoId", "valor"}:
        raise Problema(422, "corpo-invalido", "Corpo do pagamento inválido", esperado)
    if not inteiro_entre(corpo["pedidoId"], MAX_PEDIDO_ID) or not inteiro_entre(corpo["valor"], MAX_VALOR):
        raise Problema(422, "corpo-invalido", "Corpo do pagamento inválido", esperado)
    return {"pedidoId": corpo["pedidoId"], "valor": corpo["valor"]}


def inteiro_entre(valor: object, maximo: int) -> bool:
    # bool is a subclass of int in Python: true is not a valid amount.
    return isinstance(valor, int) and not isinstance(valor, bool) and 1 <= valor <= maximo


class Pagamentos(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every answer carries Content-Length
    server_version = "pagamentos-python"
    timeout = 30  # seconds a connection may stay silent: a stalled client frees its thread

    def do_POST(self) -> None:
        try:
            if self.path.split("?", 1)[0] != "/pagamentos":
                raise Problema(404, "rota-desconhecida", "Rota desconhecida", "só existe POST /pagamentos")
            bruto = self.ler_corpo()
            chave = chave_do_pedido(self.headers.get("Idempotency-Key"))
            corpo = corpo_do_pagamento(bruto)
            with self.server.pool.connection() as conexao:
                resultado = self.server.operacao(conexao, chave, corpo)
        except Problema as problema:
            self.responder(problema.corpo["status"], problema.corpo)
            return
        except Exception:  # the database, the pool (its 30 s timeout), a bug: 500, logged
            log.exception("POST /pagamentos failed")
            self.responder(500, Problema(500, "erro-interno", "Erro interno").corpo)
            return
        extras = {"Idempotent-Replayed": "true"} if resultado.repetida else {}
        self.responder(resultado.status, resultado.corpo, extras)

    def ler_corpo(self) -> bytes:
        tipo = self.headers.get_content_type()
        if tipo != "application/json":
            self.descartar_corpo()
            raise Problema(415, "tipo-nao-suportado", "Content-Type deve ser application/json", f"recebido: {tipo}")
        comprimento = self.headers.get("Content-Length")
        if comprimento is None or not comprimento.isdigit():
            raise Problema(411, "comprimento-ausente", "Content-Length é obrigatório")
        if int(comprimento) > MAX_CORPO:
            self.descartar_corpo()
            raise Problema(413, "corpo-grande", "Corpo grande demais", f"no máximo {MAX_CORPO} bytes")
        return self.rfile.read(int(comprimento))

    def descartar_corpo(self) -> None:
        """Read a refused body before answering: closing a socket with unread data sends
        a reset, and the client would see a broken connection instead of the refusal."""
        restante = min(int(self.headers.get("Content-Length", "0") or 0), MAX_DESCARTE)
        while restante > 0:
            lido = self.rfile.read(min(restante, 64 * 1024))
            if not lido:
                break
            restante -= len(lido)

    def responder(self, status: int, corpo: dict, extras: dict[str, str] | None = None) -> None:
        dados = json.dumps(corpo, ensure_ascii=False, separators=(",", ":")).encode()
        self.send_response(status)
        tipo = "application/problem+json" if status >= 400 else "application/json"
        self.send_header("Content-Type", tipo)
        self.send_header("Content-Length", str(len(dados)))
        for nome, valor in (extras or {}).items():
            self.send_header(nome, valor)
        if status >= 400:
            # After a refusal the rest of the request may be unread: start afresh.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(dados)

    def metodo_recusado(self) -> None:
        if self.path.split("?", 1)[0] != "/pagamentos":
            problema = Problema(404, "rota-desconhecida", "Rota desconhecida", "só existe POST /pagamentos")
            self.responder(404, problema.corpo)
            return
        problema = Problema(405, "metodo-nao-permitido", "Método não permitido", "use POST")
        self.responder(405, problema.corpo, {"Allow": "POST"})

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What the standard library answers by itself (a malformed request line, an
        unknown method, headers too long) is a problem too, not its default HTML page."""
        self.responder(code, Problema(code, "http", message or self.responses.get(code, ("Erro",))[0], explain).corpo)

    do_GET = do_PUT = do_PATCH = do_DELETE = metodo_recusado


class Servidor(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog: the default of 5 drops connections of a burst of 20, which
    # the client then retries a second later, and the burst is no longer concurrent.
    request_queue_size = 128

    def __init__(self, porta: int, pool: ConnectionPool, operacao):
        self.pool = pool
        self.operacao = operacao
        super().__init__(("127.0.0.1", porta), Pagamentos)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    variante = sys.argv[1] if len(sys.argv) > 1 else "idempotente"
    url, porta, tamanho = os.environ.get("DATABASE_URL"), os.environ.get("PORT"), os.environ.get("POOL_SIZE", "10")
    if variante not in OPERACOES or not url or not (porta or "").isdigit() or not tamanho.isdigit():
        print(
            "usage: DATABASE_URL=postgres://... PORT=8081 [POOL_SIZE=10] python server.py [idempotente|ingenuo]",
            file=sys.stderr,
        )
        return 2
    # One connection first, for the schema: a wrong DATABASE_URL fails here at once,
    # with PostgreSQL's own message, rather than as the pool's retries.
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conexao:
            conexao.execute(SCHEMA.read_text())
    except psycopg.Error as erro:
        print(f"cannot use the database at DATABASE_URL: {erro}".strip(), file=sys.stderr)
        return 1
    # autocommit: a statement outside `with conexao.transaction()` is its own
    # transaction, so a connection never goes back to the pool idle in a transaction.
    pool = ConnectionPool(url, min_size=int(tamanho), max_size=int(tamanho), kwargs={"autocommit": True}, open=False)
    pool.open(wait=True, timeout=10)
    try:
        servidor = Servidor(int(porta), pool, OPERACOES[variante])
    except OSError as erro:
        print(f"cannot listen on 127.0.0.1:{porta}: {erro.strerror}", file=sys.stderr)
        pool.close()
        return 1
    log.info("POST http://127.0.0.1:%s/pagamentos (%s, pool of %s)", porta, variante, tamanho)
    try:
        servidor.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        servidor.server_close()
        pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
