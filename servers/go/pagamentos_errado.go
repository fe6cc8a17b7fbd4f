// WRONG ON PURPOSE: the article's Go version with two lines swapped, kept so that a
// test (or `workbook probe`) can show the hang it causes.
//
// It differs from CriarPagamento (pagamentos.go) in WHEN the stored answer is read:
// through db BEFORE tx.Rollback(), so database/sql must find a second connection
// while this request still holds its first (given back only by the deferred
// Rollback). Under a burst of 20 requests with one key and a pool smaller than the
// burst, every connection ends up held by a request waiting for another. database/sql
// has no timeout of its own for that wait: only the request's context ends it, when
// the client gives up and closes its connection. PostgreSQL sees nothing wrong, only
// idle sessions. servers/start.sh runs it on a pool of one connection: database/sql
// hands a freed connection to a waiter picked at random, so on a pool of 10 a burst
// escapes now and then (servers/README.md).
package main

import (
	"context"
	"database/sql"
)

// ANCHOR: criar_pagamento_errado
// CriarPagamentoLendoAntesDoRollback is CriarPagamento with the read and the Rollback
// in the other order.
func CriarPagamentoLendoAntesDoRollback(ctx context.Context, db *sql.DB, chave string, corpo Corpo) (Resultado, error) {
	hash := HashDoCorpo(corpo)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Resultado{}, err
	}
	defer tx.Rollback()
	nova, err := reservarChave(ctx, tx, chave, hash)
	if err != nil {
		return Resultado{}, err
	}
	if !nova {
		return respostaGuardada(ctx, db, chave, hash) // THE BUG: tx still holds its connection
	}
	resposta, err := gravarPagamento(ctx, tx, chave, corpo)
	if err != nil {
		return Resultado{}, err
	}
	if err := tx.Commit(); err != nil {
		return Resultado{}, err
	}
	return Resultado{Status: 201, Corpo: resposta}, nil
}

// ANCHOR_END: criar_pagamento_errado
