// HTTP for POST /pagamentos: the standard library's net/http and database/sql with
// lib/pq.
//
// Usage: DATABASE_URL=... PORT=8085 [POOL_SIZE=10] pagamentos [idempotente|antes-do-rollback]
//
// Serves on 127.0.0.1 only. Every refusal is an application/problem+json body
// (RFC 9457), so a client, or `workbook probe`, can tell a refusal from a payment.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	_ "github.com/lib/pq"
)

// Operacao is one way of paying: the correct one or the wrong one.
type Operacao func(ctx context.Context, db *sql.DB, chave string, corpo Corpo) (Resultado, error)

var operacoes = map[string]Operacao{
	"idempotente":       CriarPagamento,
	"antes-do-rollback": CriarPagamentoLendoAntesDoRollback,
}

const (
	maxChave = 255       // characters, as in the article's route
	maxCorpo = 16 * 1024 // bytes: a payment is a few dozen
	// Limits shared with the other servers: pedido_id is a BIGINT, but a JavaScript
	// number holds integers exactly only up to 2^53 - 1; valor is an INT.
	maxPedidoID = 1<<53 - 1
	maxValor    = math.MaxInt32
)

// Problema is a refusal, sent as problem+json.
type Problema struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

func problema(status int, slug, title, detail string) *Problema {
	return &Problema{"https://api.loja.com.br/erros/" + slug, title, status, detail}
}

func (p *Problema) Error() string { return p.Title }

// chaveDoPedido is the Idempotency-Key header, required: a route that charges must
// not let a client forget it and find out only when it charges twice.
func chaveDoPedido(r *http.Request) (string, error) {
	chave := r.Header.Get("Idempotency-Key")
	if chave == "" {
		return "", problema(400, "chave-ausente", "O cabeçalho Idempotency-Key é obrigatório", "")
	}
	if utf8.RuneCountInString(chave) > maxChave {
		return "", problema(400, "chave-longa", "O cabeçalho Idempotency-Key é longo demais",
			fmt.Sprintf("no máximo %d caracteres", maxChave))
	}
	return chave, nil
}

// corpoDoPagamento reads {"pedidoId": N, "valor": M}, both positive integers, nothing
// else. The body is rebuilt from the two fields: what gets hashed and stored never
// depends on how the client wrote it.
func corpoDoPagamento(w http.ResponseWriter, r *http.Request) (Corpo, error) {
	tipo, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if tipo != "application/json" {
		return Corpo{}, problema(415, "tipo-nao-suportado", "Content-Type deve ser application/json",
			"recebido: "+r.Header.Get("Content-Type"))
	}
	bruto, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCorpo))
	var grande *http.MaxBytesError
	if errors.As(err, &grande) {
		return Corpo{}, problema(413, "corpo-grande", "Corpo grande demais", fmt.Sprintf("no máximo %d bytes", maxCorpo))
	}
	if err != nil {
		return Corpo{}, err
	}
	var campos map[string]json.RawMessage
	if err := json.Unmarshal(bruto, &campos); err != nil {
		var tipoErrado *json.UnmarshalTypeError
		if !errors.As(err, &tipoErrado) {
			return Corpo{}, problema(400, "json-invalido", "O corpo não é JSON válido", err.Error())
		}
		campos = nil // JSON, but not an object
	}
	esperado := problema(422, "corpo-invalido", "Corpo do pagamento inválido",
		`esperado {"pedidoId": inteiro positivo, "valor": inteiro positivo}`)
	if len(campos) != 2 {
		return Corpo{}, esperado
	}
	pedidoID, ok1 := inteiroEntre(campos["pedidoId"], maxPedidoID)
	valor, ok2 := inteiroEntre(campos["valor"], maxValor)
	if !ok1 || !ok2 {
		return Corpo{}, esperado
	}
	return Corpo{PedidoID: pedidoID, Valor: int32(valor)}, nil
}

// inteiroEntre reads a JSON integer written without a fraction or an exponent (1, not
// 1.0), between 1 and maximo.
func inteiroEntre(campo json.RawMessage, maximo int64) (int64, bool) {
	n, err := strconv.ParseInt(string(campo), 10, 64)
	return n, err == nil && n >= 1 && n <= maximo
}

func responder(w http.ResponseWriter, status int, corpo []byte) {
	if status >= 400 {
		w.Header().Set("Content-Type", "application/problem+json")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(corpo)))
	w.WriteHeader(status)
	w.Write(corpo)
}

func responderProblema(w http.ResponseWriter, p *Problema) {
	corpo, _ := json.Marshal(p) // strings and an int always marshal
	// After a refusal the rest of the request may be unread: the client starts afresh.
	w.Header().Set("Connection", "close")
	responder(w, p.Status, corpo)
}

func rotaPagamentos(db *sql.DB, operacao Operacao) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			responderProblema(w, problema(405, "metodo-nao-permitido", "Método não permitido", "use POST"))
			return
		}
		resultado, err := pagar(w, r, db, operacao)
		var p *Problema
		switch {
		case errors.As(err, &p):
			responderProblema(w, p)
		case err != nil:
			// The database, a request whose client went away, a bug: 500, logged.
			log.Printf("POST /pagamentos failed: %v", err)
			responderProblema(w, problema(500, "erro-interno", "Erro interno", ""))
		default:
			if resultado.Repetida {
				w.Header().Set("Idempotent-Replayed", "true")
			}
			responder(w, resultado.Status, resultado.Corpo)
		}
	}
}

func pagar(w http.ResponseWriter, r *http.Request, db *sql.DB, operacao Operacao) (Resultado, error) {
	// The body first: a refused request is read whole, so that closing its connection
	// sends the refusal rather than a reset.
	corpo, err := corpoDoPagamento(w, r)
	if err != nil {
		return Resultado{}, err
	}
	chave, err := chaveDoPedido(r)
	if err != nil {
		return Resultado{}, err
	}
	// The request's context ends when its client goes away: then every wait of
	// database/sql for it (a connection, a lock) ends too.
	return operacao(r.Context(), db, chave, corpo)
}

func main() {
	log.SetFlags(0)
	os.Exit(run())
}

func run() int {
	variante := "idempotente"
	if len(os.Args) > 1 {
		variante = os.Args[1]
	}
	operacao, conhecida := operacoes[variante]
	endereco, porta := os.Getenv("DATABASE_URL"), os.Getenv("PORT")
	tamanho := os.Getenv("POOL_SIZE")
	if tamanho == "" {
		tamanho = "10" // as the other servers (pg's default); database/sql has no limit by default
	}
	conexoes, errTamanho := strconv.Atoi(tamanho)
	if _, errPorta := strconv.ParseUint(porta, 10, 16); !conhecida || endereco == "" || errPorta != nil ||
		errTamanho != nil || conexoes < 1 || len(os.Args) > 2 {
		log.Print("usage: DATABASE_URL=postgres://... PORT=8085 [POOL_SIZE=10] pagamentos [idempotente|antes-do-rollback]")
		return 2
	}
	db, err := sql.Open("postgres", paraLibPq(endereco))
	if err != nil {
		log.Printf("DATABASE_URL is not a PostgreSQL URL: %v", err)
		return 2
	}
	defer db.Close()
	// ANCHOR: pool
	db.SetMaxOpenConns(conexoes)
	db.SetMaxIdleConns(conexoes) // the default keeps 2: the other 8 would be reopened on every burst
	// ANCHOR_END: pool
	if err := aplicarSchema(db); err != nil {
		log.Printf("cannot use the database at DATABASE_URL (%v): is PostgreSQL running there?", err)
		return 1
	}
	if err := abrirConexoes(db, conexoes); err != nil {
		log.Printf("cannot open %d connections to DATABASE_URL: %v", conexoes, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/pagamentos", rotaPagamentos(db, operacao))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		responderProblema(w, problema(404, "rota-desconhecida", "Rota desconhecida", "só existe POST /pagamentos"))
	})
	servidor := &http.Server{
		Addr:              "127.0.0.1:" + porta,
		Handler:           mux,
		ReadHeaderTimeout: 30 * time.Second, // a stalled client frees its goroutine
		IdleTimeout:       30 * time.Second,
	}
	log.Printf("POST http://127.0.0.1:%s/pagamentos (%s, pool of %d)", porta, variante, conexoes)
	err = servidor.ListenAndServe()
	log.Printf("cannot listen on 127.0.0.1:%s: %v", porta, err)
	return 1
}

// paraLibPq reads DATABASE_URL as libpq does, where lib/pq differs:
//   - a `host` parameter (a Unix socket's folder, as the workbook's harness gives)
//     names the server, not the URL's host (lib/pq would keep "localhost");
//   - a URL that names no sslmode, for a server on this machine, gets sslmode=disable:
//     lib/pq's default is "require" and it has no "prefer" (libpq's default, which the
//     other servers' drivers follow), so the URL that works for them would fail here
//     against a local server without TLS. Elsewhere lib/pq's default stays.
func paraLibPq(endereco string) string {
	u, err := url.Parse(endereco)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return endereco
	}
	consulta := u.Query()
	host := u.Hostname()
	if soquete := consulta.Get("host"); soquete != "" {
		host = soquete
		u.Host = ":" + u.Port() // no host in the URL: lib/pq then takes the parameter
	}
	ip := net.ParseIP(host)
	local := strings.HasPrefix(host, "/") || host == "localhost" || (ip != nil && ip.IsLoopback())
	if local && !consulta.Has("sslmode") {
		consulta.Set("sslmode", "disable")
	}
	u.RawQuery = consulta.Encode()
	return u.String()
}

// abrirConexoes opens every connection of the pool now, not on the first burst
// (database/sql opens them as they are asked for): on a cold pool a burst waits for
// connections to open one by one, its requests spread out, and the wrong version's
// deadlock showed in only some bursts (its test missed it in 1 of 47 runs). The Python
// and Java pools open theirs at start too.
func abrirConexoes(db *sql.DB, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	abertas := make([]*sql.Conn, 0, n)
	defer func() {
		for _, conexao := range abertas {
			conexao.Close() // back to the pool, where SetMaxIdleConns keeps it
		}
	}()
	for len(abertas) < n {
		conexao, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		abertas = append(abertas, conexao)
	}
	return nil
}

// aplicarSchema runs schema.sql (the two tables, shared by every server), in the folder
// above this executable's (servers/go/pagamentos: servers/schema.sql).
func aplicarSchema(db *sql.DB) error {
	executavel, err := os.Executable()
	if err != nil {
		return err
	}
	schema, err := os.ReadFile(filepath.Join(filepath.Dir(executavel), "..", "schema.sql"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// With no arguments lib/pq sends a simple query: several statements in one.
	_, err = db.ExecContext(ctx, string(bytes.TrimSpace(schema)))
	return err
}
