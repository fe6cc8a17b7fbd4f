// POST /pagamentos made safe to retry: the source article's TypeScript version.
//
// The key and the payment are written in ONE transaction, and the key is reserved by
// an INSERT into a table whose primary key is the key: a second request with the same
// key waits for the first transaction to end, then does nothing, then replays the
// stored answer. The names (criarPagamento, chave, corpo, resposta) are the article's.
import { createHash } from "node:crypto";
import type { Pool, PoolClient } from "pg";

export type Corpo = { pedidoId: number; valor: number };
export type Resposta = Record<string, unknown>;
/** What the HTTP layer sends: a status, a JSON body, and whether it is a replay. */
export type Resultado = { status: number; corpo: Resposta; repetida: boolean };

/** Same key, another body: refused, nothing paid (422, as the IETF draft says). */
export const OUTRO_CONTEUDO: Resultado = {
  status: 422,
  corpo: {
    type: "https://api.loja.com.br/erros/chave-com-outro-conteudo",
    title: "Chave de idempotência usada com outro conteúdo",
    status: 422,
  },
  repetida: false,
};

/**
 * SHA-256 of the body, normalised first: sorted keys, no spaces (JSON.stringify with a
 * list of keys writes them in the list's order). The same request written differently
 * has the same hash, and the same one as the Python server's.
 */
export function hashDoCorpo(corpo: Corpo): string {
  const normalizado = JSON.stringify(corpo, Object.keys(corpo).sort());
  return createHash("sha256").update(normalizado).digest("hex");
}

// ANCHOR: criar_pagamento
/** Pay once per key; every repetition gets the first answer again. */
export async function criarPagamento(pool: Pool, chave: string, corpo: Corpo): Promise<Resultado> {
  const hash = hashDoCorpo(corpo);
  const conexao = await pool.connect();
  try {
    const resposta = await pagarSeChaveNova(conexao, chave, hash, corpo);
    if (resposta) {
      return { status: 201, corpo: resposta, repetida: false };
    }
    // The key existed. Read its answer on the SAME connection: asking the pool for a
    // second one while holding this one can hang everything under load (see
    // pagamentos-errado.ts).
    return await respostaGuardada(conexao, chave, hash);
  } finally {
    conexao.release();
  }
}
// ANCHOR_END: criar_pagamento

/**
 * BEGIN; reserve the key; if it is new, pay, store the answer and COMMIT, and return
 * the answer. If the key already existed, ROLLBACK and return null.
 */
export async function pagarSeChaveNova(
  conexao: PoolClient,
  chave: string,
  hash: string,
  corpo: Corpo,
): Promise<Resposta | null> {
  try {
    await conexao.query("BEGIN");
    // If another transaction already wrote this key, this INSERT waits for it to end:
    // committed, it does nothing (rowCount 0); rolled back, this one inserts.
    const nova = await conexao.query(
      `INSERT INTO chaves_idempotencia (chave, hash_corpo) VALUES ($1, $2)
       ON CONFLICT (chave) DO NOTHING`,
      [chave, hash],
    );
    if (nova.rowCount === 0) {
      await conexao.query("ROLLBACK");
      return null;
    }
    const resposta = await gravarPagamento(conexao, chave, corpo);
    await conexao.query("COMMIT");
    return resposta;
  } catch (erro) {
    // Undo what this request wrote. If even ROLLBACK fails (the connection is gone),
    // the first error is the one worth reporting.
    await conexao.query("ROLLBACK").catch(() => undefined);
    throw erro;
  }
}

/** Milliseconds a card authorisation takes in these servers (AUTORIZACAO_MS, default 20). */
const AUTORIZACAO_MS = Number(process.env.AUTORIZACAO_MS ?? "20");

/**
 * Stands for the call to the card network that a real payment makes. In production it
 * is a call to the provider, with a key derived from this one (the article's
 * checklist). Here a pause of the same order, so that the requests of a burst overlap
 * as they would in production: a pool deadlock then shows in every burst, not in some
 * (see servers/README.md for the figures without it).
 */
function autorizarNoCartao(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, AUTORIZACAO_MS));
}

/** The effect and its answer, inside the caller's transaction that holds the key. */
async function gravarPagamento(conexao: PoolClient, chave: string, corpo: Corpo): Promise<Resposta> {
  await autorizarNoCartao();
  const { rows } = await conexao.query<{ id: string }>(
    "INSERT INTO pagamentos (pedido_id, valor) VALUES ($1, $2) RETURNING id",
    [corpo.pedidoId, corpo.valor],
  );
  // pg hands BIGINT over as a string: a JavaScript number would lose digits past 2^53.
  const resposta = { id: rows[0].id, ...corpo, status: "aprovado" };
  // RETURNING gives the answer back as the JSONB column stores it (JSONB orders the
  // keys its own way): the first answer and every replay are then the same bytes.
  const guardada = await conexao.query<{ resposta: Resposta }>(
    "UPDATE chaves_idempotencia SET status_http = 201, resposta = $2 WHERE chave = $1 RETURNING resposta",
    [chave, resposta],
  );
  return guardada.rows[0].resposta;
}

/** The first answer again, but only for the same body. */
export async function respostaGuardada(leitor: Pool | PoolClient, chave: string, hash: string): Promise<Resultado> {
  const { rows } = await leitor.query<{ hash_corpo: string; status_http: number; resposta: Resposta }>(
    "SELECT hash_corpo, status_http, resposta FROM chaves_idempotencia WHERE chave = $1",
    [chave],
  );
  if (rows[0].hash_corpo !== hash) {
    return OUTRO_CONTEUDO;
  }
  return { status: rows[0].status_http, corpo: rows[0].resposta, repetida: true };
}
