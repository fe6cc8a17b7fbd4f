// POST /pagamentos made safe to retry: the source article's Go version.
//
// The key and the payment are written in ONE transaction, and the key is reserved by
// an INSERT into a table whose primary key is the key: a second request with the same
// key waits for the first transaction to end, then does nothing, then replays the
// stored answer. The names (CriarPagamento, chave, corpo, resposta) are the article's.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"time"
)

// Corpo is the payment's body: {"pedidoId": N, "valor": M}.
type Corpo struct {
	PedidoID int64 `json:"pedidoId"`
	Valor    int32 `json:"valor"`
}

// Resultado is what the HTTP layer sends: a status, a JSON body, and whether it is a replay.
type Resultado struct {
	Status   int
	Corpo    []byte
	Repetida bool
}

// OutroConteudo: same key, another body: refused, nothing paid (422, as the IETF draft says).
var OutroConteudo = Resultado{
	Status: 422,
	Corpo: []byte(`{"type":"https://api.loja.com.br/erros/chave-com-outro-conteudo",` +
		`"title":"Chave de idempotência usada com outro conteúdo","status":422}`),
}

// HashDoCorpo is the SHA-256 of the body, normalised: json.Marshal writes a struct's
// fields in their declared order, here already sorted, without spaces. The same
// request written differently has the same hash, and the same one as the Python and
// TypeScript servers'.
func HashDoCorpo(corpo Corpo) string {
	normalizado, _ := json.Marshal(corpo) // a struct of two integers always marshals
	soma := sha256.Sum256(normalizado)
	return hex.EncodeToString(soma[:])
}

// ANCHOR: criar_pagamento
// CriarPagamento pays once per key; every repetition gets the first answer again.
func CriarPagamento(ctx context.Context, db *sql.DB, chave string, corpo Corpo) (Resultado, error) {
	hash := HashDoCorpo(corpo)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Resultado{}, err
	}
	defer tx.Rollback() // after Commit or an earlier Rollback it does nothing
	nova, err := reservarChave(ctx, tx, chave, hash)
	if err != nil {
		return Resultado{}, err
	}
	if !nova {
		// The key existed. Rollback FIRST: it gives this request's connection back to
		// the pool, so the read below, through db, never waits for a second
		// connection while holding one (see pagamentos_errado.go).
		if err := tx.Rollback(); err != nil {
			return Resultado{}, err
		}
		return respostaGuardada(ctx, db, chave, hash)
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

// ANCHOR_END: criar_pagamento

// ANCHOR: reservar_chave
// reservarChave inserts the key. If another transaction already wrote it, this INSERT
// waits for it to end: committed, it does nothing (0 rows affected); rolled back, this
// one inserts. True when the key is this request's.
func reservarChave(ctx context.Context, tx *sql.Tx, chave, hash string) (bool, error) {
	res, err := tx.ExecContext(ctx,
		`INSERT INTO chaves_idempotencia (chave, hash_corpo) VALUES ($1, $2)
		 ON CONFLICT (chave) DO NOTHING`, chave, hash)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ANCHOR_END: reservar_chave

// autorizacao is what a card authorisation takes in these servers (AUTORIZACAO_MS,
// default 20 ms).
var autorizacao = func() time.Duration {
	ms, err := strconv.Atoi(os.Getenv("AUTORIZACAO_MS"))
	if err != nil || ms < 0 {
		ms = 20
	}
	return time.Duration(ms) * time.Millisecond
}()

// autorizarNoCartao stands for the call to the card network that a real payment makes.
// In production it is a call to the provider, with a key derived from this one (the
// article's checklist). Here a pause of the same order, so that the requests of a
// burst overlap as they would in production (see servers/README.md).
func autorizarNoCartao(ctx context.Context) error {
	select {
	case <-time.After(autorizacao):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gravarPagamento writes the effect and its answer, inside the caller's transaction
// that holds the key.
func gravarPagamento(ctx context.Context, tx *sql.Tx, chave string, corpo Corpo) ([]byte, error) {
	if err := autorizarNoCartao(ctx); err != nil {
		return nil, err
	}
	var id int64
	err := tx.QueryRowContext(ctx,
		"INSERT INTO pagamentos (pedido_id, valor) VALUES ($1, $2) RETURNING id",
		corpo.PedidoID, corpo.Valor).Scan(&id)
	if err != nil {
		return nil, err
	}
	// The id as a string, as in the article: a JavaScript client would lose the
	// digits of a BIGINT past 2^53.
	resposta, err := json.Marshal(map[string]any{
		"id": strconv.FormatInt(id, 10), "pedidoId": corpo.PedidoID, "valor": corpo.Valor, "status": "aprovado",
	})
	if err != nil {
		return nil, err
	}
	// RETURNING gives the answer back as the JSONB column stores it (JSONB orders the
	// keys its own way): the first answer and every replay are then the same bytes.
	var guardada []byte
	err = tx.QueryRowContext(ctx,
		"UPDATE chaves_idempotencia SET status_http = 201, resposta = $2 WHERE chave = $1 RETURNING resposta",
		chave, string(resposta)).Scan(&guardada)
	if err != nil {
		return nil, err
	}
	return compacto(guardada)
}

// consulta is what respostaGuardada reads from: the pool (*sql.DB) or one connection
// (*sql.Tx).
type consulta interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// respostaGuardada is the first answer again, but only for the same body.
func respostaGuardada(ctx context.Context, leitor consulta, chave, hash string) (Resultado, error) {
	var hashSalvo string
	var status sql.NullInt32
	var resposta []byte
	err := leitor.QueryRowContext(ctx,
		"SELECT hash_corpo, status_http, resposta FROM chaves_idempotencia WHERE chave = $1",
		chave).Scan(&hashSalvo, &status, &resposta)
	if err != nil {
		return Resultado{}, err
	}
	if hashSalvo != hash {
		return OutroConteudo, nil
	}
	if !status.Valid {
		// Only a committed row is seen, and it is committed with its answer.
		return Resultado{}, errors.New("the key's row has no stored answer")
	}
	corpo, err := compacto(resposta)
	if err != nil {
		return Resultado{}, err
	}
	return Resultado{Status: int(status.Int32), Corpo: corpo, Repetida: true}, nil
}

// compacto drops the spaces of JSONB's text form: `{"id": "1", ...}` becomes
// `{"id":"1",...}`, the bytes the Python and TypeScript servers send.
func compacto(jsonb []byte) ([]byte, error) {
	var saida bytes.Buffer
	if err := json.Compact(&saida, jsonb); err != nil {
		return nil, err
	}
	return saida.Bytes(), nil
}
