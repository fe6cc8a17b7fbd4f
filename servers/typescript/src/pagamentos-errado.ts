// WRONG ON PURPOSE: the article's first TypeScript version, kept so that a test (or
// `workbook probe`) can show the hang it causes.
//
// It differs from criarPagamento (pagamentos.ts) in ONE argument: the stored answer is
// read with `pool.query`, which asks the pool for a second connection while this
// request still holds its first one (released only in `finally`). Under a burst of 20
// requests with one key and a pool of 10, ten requests each hold a connection and wait
// for an eleventh that never comes free: the pool deadlocks. PostgreSQL sees nothing
// wrong, only idle sessions. In the article: "o teste travou".
import type { Pool } from "pg";
import { hashDoCorpo, pagarSeChaveNova, respostaGuardada, type Corpo, type Resultado } from "./pagamentos.js";

// ANCHOR: criar_pagamento_errado
export async function criarPagamentoComPoolQuery(pool: Pool, chave: string, corpo: Corpo): Promise<Resultado> {
  const hash = hashDoCorpo(corpo);
  const conexao = await pool.connect();
  try {
    const resposta = await pagarSeChaveNova(conexao, chave, hash, corpo);
    if (resposta) {
      return { status: 201, corpo: resposta, repetida: false };
    }
    return await respostaGuardada(pool, chave, hash); // THE BUG: `pool`, not `conexao`
  } finally {
    conexao.release();
  }
}
// ANCHOR_END: criar_pagamento_errado
