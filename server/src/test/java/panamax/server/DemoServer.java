package panamax.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.serve.ServingConfig;

/** A {@link PanamaxServer} serving the bundled demo model as "m1", and raw HTTP calls to it. */
final class DemoServer implements AutoCloseable {
    static final String MODEL = "m1";

    final PanamaxServer server;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String apiKey;
    /** Kept: a stopped server reports port -1. */
    private final int port;

    private DemoServer(PanamaxServer server, String apiKey) {
        this.server = server;
        this.apiKey = apiKey;
        this.port = server.port();
    }

    /** Starts a server with {@code options} that does not serve yet. */
    static DemoServer listening(ServerOptions options) {
        return new DemoServer(PanamaxServer.start(options.withPort(0)), options.apiKey());
    }

    /** Starts a server with {@code options} serving the demo model with {@code config}. */
    static DemoServer serving(ServerOptions options, ServingConfig config) {
        DemoServer s = listening(options);
        s.serve(config);
        return s;
    }

    void serve(ServingConfig config) {
        serve(config, DemoModel.directory());
    }

    /** Starts a server with {@code options} serving the model in {@code directory} with {@code config}. */
    static DemoServer serving(ServerOptions options, ServingConfig config, java.nio.file.Path directory) {
        DemoServer s = listening(options);
        s.serve(config, directory);
        return s;
    }

    void serve(ServingConfig config, java.nio.file.Path directory) {
        ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), directory, KvScheme.identity(),
                Optional.empty());
        server.serve(session, MODEL, config);
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return send(request(path).POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json");
        if (apiKey != null) b.header("Authorization", "Bearer " + apiKey);
        return b;
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.close();
    }
}
