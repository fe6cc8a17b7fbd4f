// HTTP for POST /pagamentos: Express 5 and a pg pool.
//
// Usage: DATABASE_URL=... PORT=8083 [POOL_SIZE=10] node dist/server.js [idempotente|pool-query]
//
// Serves on 127.0.0.1 only. Every refusal is an application/problem+json body
// (RFC 9457), so a client, or `workbook probe`, can tell a refusal from a payment.
import { readFileSync } from "node:fs";
import express, { type NextFunction, type Request, type Response } from "express";
import pg from "pg";
import { criarPagamentoComPoolQuery } from "./pagamentos-errado.js";
import { criarPagamento, type Corpo, type Resultado } from "./pagamentos.js";

type Operacao = (pool: pg.Pool, chave: string, corpo: Corpo) => Promise<Resultado>;
const OPERACOES: Record<string, Operacao> = {
  idempotente: criarPagamento,
  "pool-query": criarPagamentoComPoolQuery,
};
const SCHEMA = new URL("../../schema.sql", import.meta.url);

const MAX_CHAVE = 255; // characters, as in the article's route
const MAX_CORPO = 16 * 1024; // bytes: a payment is a few dozen
// Limits shared with the Python server: pedido_id is a BIGINT, but a JavaScript number
// holds integers exactly only up to 2^53 - 1; valor is an INT.
const MAX_PEDIDO_ID = Number.MAX_SAFE_INTEGER;
const MAX_VALOR = 2 ** 31 - 1;
// How long a request may wait for a pool connection: bounded, as psycopg_pool's default
// (30 s), so that even the deadlocked version ends in errors rather than hanging forever.
const ESPERA_POR_CONEXAO_MS = 30_000;

/** A refusal, sent as problem+json. */
class Problema extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    title: string,
    readonly detail?: string,
  ) {
    super(title);
  }

  corpo() {
    const corpo = { type: `https://api.loja.com.br/erros/${this.slug}`, title: this.message, status: this.status };
    return this.detail ? { ...corpo, detail: this.detail } : corpo;
  }
}

/** The Idempotency-Key header, required: a route that charges must not let a client
 * forget it and find out only when it charges twice. */
function chaveDoPedido(req: Request): string {
  const chave = req.header("Idempotency-Key");
  if (!chave) {
    throw new Problema(400, "chave-ausente", "O cabeçalho Idempotency-Key é obrigatório");
  }
  if (chave.length > MAX_CHAVE) {
    const detalhe = `no máximo ${MAX_CHAVE} caracteres`;
    throw new Problema(400, "chave-longa", "O cabeçalho Idempotency-Key é longo demais", detalhe);
  }
  return chave;
}

/** {"pedidoId": N, "valor": M}, both positive integers, nothing else. Rebuilt from the
 * two fields: what gets hashed and stored never depends on how the client wrote it. */
function corpoDoPagamento(req: Request): Corpo {
  if (req.body === undefined) {
    // express.json() parses only JSON: any other Content-Type leaves no body.
    const detalhe = `recebido: ${req.header("Content-Type") ?? "nenhum"}`;
    throw new Problema(415, "tipo-nao-suportado", "Content-Type deve ser application/json", detalhe);
  }
  const esperado = 'esperado {"pedidoId": inteiro positivo, "valor": inteiro positivo}';
  const corpo: unknown = req.body;
  const objeto = typeof corpo === "object" && corpo !== null && !Array.isArray(corpo);
  if (!objeto || Object.keys(corpo).sort().join() !== "pedidoId,valor") {
    throw new Problema(422, "corpo-invalido", "Corpo do pagamento inválido", esperado);
  }
  const { pedidoId, valor } = corpo as Record<string, unknown>;
  if (!inteiroEntre(pedidoId, MAX_PEDIDO_ID) || !inteiroEntre(valor, MAX_VALOR)) {
    throw new Problema(422, "corpo-invalido", "Corpo do pagamento inválido", esperado);
  }
  return { pedidoId, valor };
}

function inteiroEntre(valor: unknown, maximo: number): valor is number {
  return Number.isInteger(valor) && (valor as number) >= 1 && (valor as number) <= maximo;
}

function responderProblema(res: Response, problema: Problema): void {
  // After a refusal the rest of the request may be unread: the client starts afresh.
  res.status(problema.status).set("Connection", "close").type("application/problem+json").json(problema.corpo());
}

function criarApp(pool: pg.Pool, operacao: Operacao): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false); // an ETag on the answer to a POST validates nothing
  app.use(express.json({ limit: MAX_CORPO }));

  app.post("/pagamentos", async (req, res) => {
    const chave = chaveDoPedido(req);
    const corpo = corpoDoPagamento(req);
    const { status, corpo: resposta, repetida } = await operacao(pool, chave, corpo);
    if (repetida) {
      res.set("Idempotent-Replayed", "true");
    }
    res.status(status).type(status >= 400 ? "application/problem+json" : "application/json").json(resposta);
  });
  app.all("/pagamentos", (_req, res) => {
    res.set("Allow", "POST");
    responderProblema(res, new Problema(405, "metodo-nao-permitido", "Método não permitido", "use POST"));
  });
  app.use((_req, res) => {
    responderProblema(res, new Problema(404, "rota-desconhecida", "Rota desconhecida", "só existe POST /pagamentos"));
  });
  // Express 5 sends here what a route throws or rejects, and express.json()'s own
  // refusals (bad JSON: 400, body too large: 413), which carry a status.
  app.use((erro: unknown, _req: Request, res: Response, _next: NextFunction) => {
    responderProblema(res, comoProblema(erro));
  });
  return app;
}

function comoProblema(erro: unknown): Problema {
  if (erro instanceof Problema) {
    return erro;
  }
  const { status, type } = (erro ?? {}) as { status?: number; type?: string };
  if (type === "entity.parse.failed") {
    return new Problema(400, "json-invalido", "O corpo não é JSON válido", (erro as Error).message);
  }
  if (type === "entity.too.large") {
    return new Problema(413, "corpo-grande", "Corpo grande demais", `no máximo ${MAX_CORPO} bytes`);
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new Problema(status, "http", (erro as Error).message);
  }
  console.error("POST /pagamentos failed:", erro);
  return new Problema(500, "erro-interno", "Erro interno");
}

async function main(): Promise<number> {
  const variante = process.argv[2] ?? "idempotente";
  const { DATABASE_URL: url, PORT: porta, POOL_SIZE: tamanho = "10" } = process.env;
  if (!(variante in OPERACOES) || !url || !/^\d+$/.test(porta ?? "") || !/^\d+$/.test(tamanho)) {
    console.error(
      "usage: DATABASE_URL=postgres://... PORT=8083 [POOL_SIZE=10] node dist/server.js [idempotente|pool-query]",
    );
    return 2;
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(tamanho),
    connectionTimeoutMillis: ESPERA_POR_CONEXAO_MS,
    idleTimeoutMillis: 0, // the connections opened below stay open, as in the Python and Java pools
  });
  // An idle connection that the server drops must not crash the process.
  pool.on("error", (erro) => console.error("idle pool connection failed:", erro.message));
  try {
    await pool.query(readFileSync(SCHEMA, "utf8"));
    // Every connection opened now, not on the first burst: a burst on a cold pool waits
    // for connections to open one by one, its requests spread out, and the wrong
    // version's deadlock showed in only some bursts (its test missed it in 2 of 27 runs).
    const conexoes = await Promise.all(Array.from({ length: Number(tamanho) }, () => pool.connect()));
    for (const conexao of conexoes) {
      conexao.release();
    }
  } catch (erro) {
    console.error(`cannot use the database at DATABASE_URL (${(erro as Error).message}): is PostgreSQL running there?`);
    await pool.end();
    return 1;
  }
  const servidor = criarApp(pool, OPERACOES[variante]).listen(Number(porta), "127.0.0.1", (erro?: Error) => {
    if (erro) {
      console.error(`cannot listen on 127.0.0.1:${porta}: ${erro.message}`);
      process.exit(1);
    }
    console.log(`POST http://127.0.0.1:${porta}/pagamentos (${variante}, pool of ${tamanho})`);
  });
  servidor.keepAliveTimeout = 30_000;
  // What Node's HTTP parser refuses before Express sees it (an unknown method, a
  // malformed request) is a problem too, not a bare "400 Bad Request".
  servidor.on("clientError", (erro: Error & { code?: string }, socket) => {
    if (socket.writable) {
      const corpo = JSON.stringify(new Problema(400, "http", "Pedido HTTP malformado", erro.code).corpo());
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(corpo)}\r\nConnection: close\r\n\r\n${corpo}`,
      );
    }
  });
  return 0;
}

process.exitCode = await main();
