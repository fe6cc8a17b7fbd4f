// WRONG ON PURPOSE: the article's Java version with the stored answer read through a
// second connection, kept so that a test (or `workbook probe`) can show what it causes.
//
// It differs from Pagamentos.criar in ONE argument: the stored answer is read through
// dados.getConnection(), which asks HikariCP for a second connection while this request
// still holds its first (closed only at the end of the try). Under a burst of 20
// requests with one key, every connection of the pool ends up held by a request waiting
// for another; start.sh runs it on a pool of one, where that is certain (README.md says
// why not 10). HikariCP gives up after its connectionTimeout (30 s by default): each
// request that gives up answers 500 and frees its connection.

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

public final class PagamentosErrado {
    private PagamentosErrado() {}

    // ANCHOR: criar_errado
    public static Pagamentos.Resultado criarComSegundaConexao(DataSource dados, String chave, long pedidoId, int valor)
            throws SQLException, InterruptedException {
        var hash = Pagamentos.hashDoCorpo(pedidoId, valor);
        try (Connection conexao = dados.getConnection()) {
            var resposta = Pagamentos.pagarSeChaveNova(conexao, chave, hash, pedidoId, valor);
            if (resposta != null) {
                return new Pagamentos.Resultado(201, resposta, false);
            }
            try (Connection outra = dados.getConnection()) { // THE BUG: `conexao` is still held
                return Pagamentos.respostaGuardada(outra, chave, hash);
            }
        }
    }
    // ANCHOR_END: criar_errado
}
