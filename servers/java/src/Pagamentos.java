// POST /pagamentos made safe to retry: the source article's Java version.
//
// The key and the payment are written in ONE transaction, and the key is reserved by an
// INSERT into a table whose primary key is the key: a second request with the same key
// waits for the first transaction to end, then does nothing, then replays the stored
// answer. The names (criar, chave, corpo, resposta) are the article's.

import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HexFormat;
import javax.sql.DataSource;

public final class Pagamentos {
    private Pagamentos() {}

    /** What the HTTP layer sends: a status, a JSON body, and whether it is a replay. */
    public record Resultado(int status, String corpo, boolean repetida) {}

    /** Same key, another body: refused, nothing paid (422, as the IETF draft says). */
    public static final Resultado OUTRO_CONTEUDO = new Resultado(422,
            "{\"type\":\"https://api.loja.com.br/erros/chave-com-outro-conteudo\","
                    + "\"title\":\"Chave de idempotência usada com outro conteúdo\",\"status\":422}",
            false);

    /** Milliseconds a card authorisation takes in these servers (AUTORIZACAO_MS, default 20). */
    private static final long AUTORIZACAO_MS = autorizacaoMs();

    /**
     * SHA-256 of the body, normalised: written by this code, sorted keys, no spaces. The
     * same request written differently has the same hash, and the same one as the other
     * servers'.
     */
    public static String hashDoCorpo(long pedidoId, int valor) {
        var normalizado = "{\"pedidoId\":" + pedidoId + ",\"valor\":" + valor + "}";
        try {
            var soma = MessageDigest.getInstance("SHA-256").digest(normalizado.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(soma);
        } catch (NoSuchAlgorithmException semSha256) {
            throw new IllegalStateException("every Java platform has SHA-256", semSha256);
        }
    }

    // ANCHOR: criar
    /** Pay once per key; every repetition gets the first answer again. */
    public static Resultado criar(DataSource dados, String chave, long pedidoId, int valor)
            throws SQLException, InterruptedException {
        var hash = hashDoCorpo(pedidoId, valor);
        try (Connection conexao = dados.getConnection()) {
            var resposta = pagarSeChaveNova(conexao, chave, hash, pedidoId, valor);
            if (resposta != null) {
                return new Resultado(201, resposta, false);
            }
            // The key existed. Read its answer on the SAME connection: asking the pool for
            // a second one while holding this one can hang everything under load (see
            // PagamentosErrado.java).
            return respostaGuardada(conexao, chave, hash);
        }
    }
    // ANCHOR_END: criar

    // ANCHOR: pagar_se_chave_nova
    /**
     * Reserve the key in a transaction; if it is new, pay, store the answer, commit, and
     * return the answer. If the key already existed, roll back and return null.
     */
    static String pagarSeChaveNova(Connection conexao, String chave, String hash, long pedidoId, int valor)
            throws SQLException, InterruptedException {
        conexao.setAutoCommit(false);
        try {
            // If another transaction already wrote this key, this INSERT waits for it to
            // end: committed, it does nothing (executeUpdate returns 0); rolled back, this
            // one inserts.
            int nova;
            try (var insercao = conexao.prepareStatement(
                    "INSERT INTO chaves_idempotencia (chave, hash_corpo) VALUES (?, ?) ON CONFLICT (chave) DO NOTHING")) {
                insercao.setString(1, chave);
                insercao.setString(2, hash);
                nova = insercao.executeUpdate();
            }
            if (nova == 0) {
                conexao.rollback();
                conexao.setAutoCommit(true);
                return null;
            }
            var resposta = gravarPagamento(conexao, chave, pedidoId, valor);
            conexao.commit();
            return resposta;
        } catch (SQLException | InterruptedException | RuntimeException erro) {
            // Undo what this request wrote. If even the rollback fails (the connection is
            // gone), the first error is the one worth reporting.
            try {
                conexao.rollback();
            } catch (SQLException tambem) {
                erro.addSuppressed(tambem);
            }
            throw erro;
        }
    }
    // ANCHOR_END: pagar_se_chave_nova

    /**
     * Stands for the call to the card network that a real payment makes. In production it
     * is a call to the provider, with a key derived from this one (the article's
     * checklist). Here a pause of the same order, so that the requests of a burst overlap
     * as they would in production (see servers/README.md).
     */
    private static void autorizarNoCartao() throws InterruptedException {
        Thread.sleep(AUTORIZACAO_MS);
    }

    /** The effect and its answer, inside the caller's transaction that holds the key. */
    private static String gravarPagamento(Connection conexao, String chave, long pedidoId, int valor)
            throws SQLException, InterruptedException {
        autorizarNoCartao();
        long id;
        try (var pagamento = conexao.prepareStatement(
                "INSERT INTO pagamentos (pedido_id, valor) VALUES (?, ?) RETURNING id")) {
            pagamento.setLong(1, pedidoId);
            pagamento.setInt(2, valor);
            try (var linha = pagamento.executeQuery()) {
                linha.next();
                id = linha.getLong(1);
            }
        }
        // The id as a string, as in the article: a JavaScript client would lose the digits
        // of a BIGINT past 2^53.
        var resposta = "{\"id\":\"" + id + "\",\"pedidoId\":" + pedidoId + ",\"valor\":" + valor
                + ",\"status\":\"aprovado\"}";
        // RETURNING gives the answer back as the JSONB column stores it (JSONB orders the
        // keys its own way): the first answer and every replay are then the same bytes.
        try (var atualizacao = conexao.prepareStatement(
                "UPDATE chaves_idempotencia SET status_http = 201, resposta = ?::jsonb WHERE chave = ? "
                        + "RETURNING resposta::text")) {
            atualizacao.setString(1, resposta);
            atualizacao.setString(2, chave);
            try (var linha = atualizacao.executeQuery()) {
                linha.next();
                return compacto(linha.getString(1));
            }
        }
    }

    /** The first answer again, but only for the same body. */
    static Resultado respostaGuardada(Connection leitor, String chave, String hash) throws SQLException {
        try (var consulta = leitor.prepareStatement(
                "SELECT hash_corpo, status_http, resposta::text FROM chaves_idempotencia WHERE chave = ?")) {
            consulta.setString(1, chave);
            try (var linha = consulta.executeQuery()) {
                if (!linha.next()) {
                    throw new SQLException("the key " + chave + " has no row: it was deleted meanwhile");
                }
                if (!linha.getString(1).equals(hash)) {
                    return OUTRO_CONTEUDO;
                }
                return new Resultado(linha.getInt(2), compacto(linha.getString(3)), true);
            }
        }
    }

    /**
     * JSONB's text form without its spaces: {"id": "1", ...} becomes {"id":"1",...}, the
     * bytes the other servers send (Gson keeps the keys in their order).
     */
    private static String compacto(String jsonb) {
        return JsonParser.parseString(jsonb).toString();
    }

    private static long autorizacaoMs() {
        try {
            return Math.max(0, Long.parseLong(System.getenv().getOrDefault("AUTORIZACAO_MS", "20")));
        } catch (NumberFormatException naoNumero) {
            return 20;
        }
    }
}
