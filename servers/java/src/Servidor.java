// HTTP for POST /pagamentos: the JDK's com.sun.net.httpserver, a HikariCP pool and
// PostgreSQL's JDBC driver, all from Debian's packages (servers/java/classpath).
//
// Usage: DATABASE_URL=postgresql://... PORT=8087 [POOL_SIZE=10] java Servidor [idempotente|segunda-conexao]
//
// Serves on 127.0.0.1 only. Every refusal is an application/problem+json body
// (RFC 9457), so a client, or `workbook probe`, can tell a refusal from a payment.

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

public final class Servidor {
    private Servidor() {}

    /** One way of paying: the correct one or the wrong one. */
    @FunctionalInterface
    interface Operacao {
        Pagamentos.Resultado criar(DataSource dados, String chave, long pedidoId, int valor)
                throws SQLException, InterruptedException;
    }

    private static final Map<String, Operacao> OPERACOES = Map.of(
            "idempotente", Pagamentos::criar,
            "segunda-conexao", PagamentosErrado::criarComSegundaConexao);

    private static final int MAX_CHAVE = 255; // characters, as in the article's route
    private static final int MAX_CORPO = 16 * 1024; // bytes: a payment is a few dozen
    private static final int MAX_DESCARTE = 10 * 1024 * 1024; // read and drop up to this much of a refused body
    // Limits shared with the other servers: pedido_id is a BIGINT, but a JavaScript number
    // holds integers exactly only up to 2^53 - 1; valor is an INT.
    private static final long MAX_PEDIDO_ID = (1L << 53) - 1;
    private static final long MAX_VALOR = Integer.MAX_VALUE;
    // Requests served at once: more than the largest burst the probe sends (50), so that
    // the requests wait in the pool, as in the other servers, not in front of it.
    private static final int THREADS = 64;

    private static final Logger LOG = Logger.getLogger("pagamentos");
    private static final Gson GSON = new Gson();

    /** A refusal, sent as problem+json. */
    static final class Problema extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;
        final String corpo;

        Problema(int status, String slug, String title, String detail) {
            super(title);
            this.status = status;
            var json = new JsonObject();
            json.addProperty("type", "https://api.loja.com.br/erros/" + slug);
            json.addProperty("title", title);
            json.addProperty("status", status);
            if (detail != null) {
                json.addProperty("detail", detail);
            }
            this.corpo = json.toString();
        }
    }

    record Corpo(long pedidoId, int valor) {}

    /** The Idempotency-Key header, required: a route that charges must not let a client
     * forget it and find out only when it charges twice. */
    static String chaveDoPedido(HttpExchange troca) throws Problema {
        var chave = troca.getRequestHeaders().getFirst("Idempotency-Key");
        if (chave == null || chave.isEmpty()) {
            throw new Problema(400, "chave-ausente", "O cabeçalho Idempotency-Key é obrigatório", null);
        }
        if (chave.codePointCount(0, chave.length()) > MAX_CHAVE) {
            throw new Problema(400, "chave-longa", "O cabeçalho Idempotency-Key é longo demais",
                    "no máximo " + MAX_CHAVE + " caracteres");
        }
        return chave;
    }

    /** The body, read whole (up to MAX_CORPO bytes), refused as 415 or 413 first. */
    static byte[] lerCorpo(HttpExchange troca) throws Problema, IOException {
        var contentType = troca.getRequestHeaders().getFirst("Content-Type");
        var tipo = contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        try (InputStream entrada = troca.getRequestBody()) {
            if (!tipo.equals("application/json")) {
                descartar(entrada);
                throw new Problema(415, "tipo-nao-suportado", "Content-Type deve ser application/json",
                        "recebido: " + (contentType == null ? "nenhum" : contentType));
            }
            var bruto = entrada.readNBytes(MAX_CORPO + 1);
            if (bruto.length > MAX_CORPO) {
                descartar(entrada);
                throw new Problema(413, "corpo-grande", "Corpo grande demais", "no máximo " + MAX_CORPO + " bytes");
            }
            return bruto;
        }
    }

    /** Read a refused body before answering: closing a socket with unread data sends a
     * reset, and the client would see a broken connection instead of the refusal. */
    private static void descartar(InputStream entrada) throws IOException {
        var lixo = new byte[64 * 1024];
        long restante = MAX_DESCARTE;
        int lidos;
        while (restante > 0 && (lidos = entrada.read(lixo, 0, (int) Math.min(lixo.length, restante))) > 0) {
            restante -= lidos;
        }
    }

    /** {"pedidoId": N, "valor": M}, both positive integers, nothing else. Rebuilt from the
     * two fields: what gets hashed and stored never depends on how the client wrote it. */
    static Corpo corpoDoPagamento(byte[] bruto) throws Problema {
        JsonElement corpo;
        try {
            var texto = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bruto)).toString();
            var leitor = new JsonReader(new StringReader(texto));
            leitor.setLenient(false); // JSON as RFC 8259 writes it: no comments, no unquoted names
            corpo = GSON.getAdapter(JsonElement.class).read(leitor);
            if (leitor.peek() != JsonToken.END_DOCUMENT) {
                throw new JsonParseException("text after the JSON value");
            }
        } catch (JsonParseException | IOException | IllegalStateException erro) { // CharacterCodingException is an IOException
            throw new Problema(400, "json-invalido", "O corpo não é JSON válido", erro.getMessage());
        }
        var esperado = new Problema(422, "corpo-invalido", "Corpo do pagamento inválido",
                "esperado {\"pedidoId\": inteiro positivo, \"valor\": inteiro positivo}");
        if (!corpo.isJsonObject() || !corpo.getAsJsonObject().keySet().equals(Set.of("pedidoId", "valor"))) {
            throw esperado;
        }
        var objeto = corpo.getAsJsonObject();
        long pedidoId = inteiroEntre(objeto.get("pedidoId"), MAX_PEDIDO_ID);
        long valor = inteiroEntre(objeto.get("valor"), MAX_VALOR);
        if (pedidoId < 1 || valor < 1) {
            throw esperado;
        }
        return new Corpo(pedidoId, (int) valor);
    }

    /** A JSON integer written without a fraction or an exponent (1, not 1.0), between 1
     * and maximo; 0 when it is not one. */
    private static long inteiroEntre(JsonElement campo, long maximo) {
        if (!campo.isJsonPrimitive() || !campo.getAsJsonPrimitive().isNumber()) {
            return 0;
        }
        try {
            long n = Long.parseLong(campo.getAsString()); // the number as the client wrote it
            return n <= maximo ? n : 0;
        } catch (NumberFormatException naoInteiro) {
            return 0;
        }
    }

    static void responder(HttpExchange troca, int status, String corpo) throws IOException {
        var bytes = corpo.getBytes(StandardCharsets.UTF_8);
        var cabecalhos = troca.getResponseHeaders();
        cabecalhos.set("Content-Type", status >= 400 ? "application/problem+json" : "application/json");
        if (status >= 400) {
            // After a refusal the rest of the request may be unread: the client starts afresh.
            cabecalhos.set("Connection", "close");
        }
        troca.sendResponseHeaders(status, bytes.length);
        try (var saida = troca.getResponseBody()) {
            saida.write(bytes);
        }
    }

    static void pagamentos(HttpExchange troca, DataSource dados, Operacao operacao) throws IOException {
        try {
            if (!troca.getRequestURI().getPath().equals("/pagamentos")) {
                throw new Problema(404, "rota-desconhecida", "Rota desconhecida", "só existe POST /pagamentos");
            }
            if (!troca.getRequestMethod().equals("POST")) {
                troca.getResponseHeaders().set("Allow", "POST");
                throw new Problema(405, "metodo-nao-permitido", "Método não permitido", "use POST");
            }
            var corpo = corpoDoPagamento(lerCorpo(troca));
            var chave = chaveDoPedido(troca);
            var resultado = operacao.criar(dados, chave, corpo.pedidoId(), corpo.valor());
            if (resultado.repetida()) {
                troca.getResponseHeaders().set("Idempotent-Replayed", "true");
            }
            responder(troca, resultado.status(), resultado.corpo());
        } catch (Problema problema) {
            responder(troca, problema.status, problema.corpo);
        } catch (SQLException | InterruptedException | RuntimeException erro) {
            // The database, the pool (its connectionTimeout), a bug: 500, logged.
            LOG.log(Level.SEVERE, "POST /pagamentos failed", erro);
            var problema = new Problema(500, "erro-interno", "Erro interno", null);
            responder(troca, problema.status, problema.corpo);
        }
    }

    /** DATABASE_URL as libpq writes it (postgresql://user:password@host:port/db?...), as
     * JDBC wants it: the credentials apart, the rest after jdbc:. A `host` parameter naming
     * a folder is a Unix socket, as libpq reads it: pgjdbc reaches it through junixsocket's
     * socket factory (Debian's libjunixsocket-java), the way pgjdbc's documentation shows. */
    static HikariConfig configuracao(String url, int conexoes) throws URISyntaxException {
        var uri = new URI(url);
        if (!Set.of("postgres", "postgresql").contains(String.valueOf(uri.getScheme()))) {
            throw new URISyntaxException(url, "expected postgresql://user@host:port/database");
        }
        var parametros = new ArrayList<String>();
        String soquete = null;
        if (uri.getRawQuery() != null) {
            for (var parametro : uri.getRawQuery().split("&")) {
                if (parametro.startsWith("host=%2F") || parametro.startsWith("host=/")) {
                    soquete = URLDecoder.decode(parametro.substring(5), StandardCharsets.UTF_8);
                } else {
                    parametros.add(parametro);
                }
            }
        }
        var porta = uri.getPort() == -1 ? 5432 : uri.getPort();
        if (soquete != null) {
            parametros.add("socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg");
            parametros.add("socketFactoryArg=" + URLEncoder.encode(soquete + "/.s.PGSQL." + porta, StandardCharsets.UTF_8));
        }
        var host = uri.getHost() == null ? "localhost" : uri.getHost();
        var config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://" + host + ":" + porta + uri.getRawPath()
                + (parametros.isEmpty() ? "" : "?" + String.join("&", parametros)));
        var usuario = uri.getRawUserInfo();
        if (usuario != null) {
            var partes = usuario.split(":", 2);
            config.setUsername(URLDecoder.decode(partes[0], StandardCharsets.UTF_8));
            if (partes.length == 2) {
                config.setPassword(URLDecoder.decode(partes[1], StandardCharsets.UTF_8));
            }
        }
        // ANCHOR: pool
        config.setMaximumPoolSize(conexoes);
        // connectionTimeout stays HikariCP's default, 30 s: how long getConnection() waits
        // for a free connection before it throws.
        // ANCHOR_END: pool
        return config;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    private static int run(String[] args) throws Exception {
        var variante = args.length > 0 ? args[0] : "idempotente";
        var url = System.getenv("DATABASE_URL");
        var porta = System.getenv("PORT");
        var tamanho = System.getenv().getOrDefault("POOL_SIZE", "10");
        var operacao = OPERACOES.get(variante);
        if (operacao == null || args.length > 1 || url == null || porta == null || !porta.matches("\\d{1,5}")
                || !tamanho.matches("[1-9]\\d{0,3}")) {
            System.err.println("usage: DATABASE_URL=postgresql://... PORT=8087 [POOL_SIZE=10] "
                    + "java Servidor [idempotente|segunda-conexao]");
            return 2;
        }
        HikariConfig config;
        try {
            config = configuracao(url, Integer.parseInt(tamanho));
        } catch (URISyntaxException erro) {
            System.err.println("DATABASE_URL is not a PostgreSQL URL: " + erro.getMessage());
            return 2;
        }
        var schema = Files.readString(Path.of(System.getProperty("pagamentos.schema", "schema.sql")));
        HikariDataSource dados;
        try {
            dados = new HikariDataSource(config);
            try (var conexao = dados.getConnection(); var comando = conexao.createStatement()) {
                comando.execute(schema);
            }
        } catch (SQLException | RuntimeException erro) {
            System.err.println("cannot use the database at DATABASE_URL (" + erro.getMessage()
                    + "): is PostgreSQL running there?");
            return 1;
        }
        HttpServer servidor;
        try {
            servidor = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(porta)), 128);
        } catch (IOException erro) {
            System.err.println("cannot listen on 127.0.0.1:" + porta + ": " + erro.getMessage());
            dados.close();
            return 1;
        }
        servidor.createContext("/", troca -> {
            try (troca) {
                pagamentos(troca, dados, operacao);
            }
        });
        servidor.setExecutor(Executors.newFixedThreadPool(THREADS));
        servidor.start();
        System.err.println("POST http://127.0.0.1:" + porta + "/pagamentos (" + variante + ", pool of " + tamanho + ")");
        Thread.currentThread().join(); // serve until killed
        return 0;
    }
}
