package panamax.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import panamax.engine.generate.ModelSession;
import panamax.engine.plan.PlanJson;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.ServingPlan;
import panamax.engine.structured.TokenVocabulary;

/**
 * The OpenAI-compatible HTTP server: {@code /v1/models}, {@code /v1/chat/completions},
 * {@code /v1/completions} (whole or as server-sent events), {@code /health} and {@code /metrics},
 * on Helidon SE. It listens as soon as it starts and reports ready once {@link #serve} handed it a
 * model; {@code /v1} calls before that get 503. Request threads only parse, submit to the
 * {@link BatchScheduler} and write; the scheduler thread owns the model.
 *
 * {@snippet :
 * try (PanamaxServer server = PanamaxServer.start(ServerOptions.defaults().withPort(0))) {
 *     server.serve(session, "my-model", ServingConfig.defaults());
 *     System.out.println("listening on " + server.port());
 * }
 * }
 */
public final class PanamaxServer implements AutoCloseable {
    /** Helidon logs its start-up banner through JUL; kept in a field because JUL holds loggers weakly. */
    private static final Logger HELIDON_LOG = Logger.getLogger("io.helidon");

    private final ServerOptions options;
    /** Compact JSON: a server-sent event must fit on one line. */
    private final ObjectMapper mapper = new ObjectMapper();
    private final RequestParser parser = new RequestParser();
    private final ServerMetrics metrics;
    private final byte[] apiKey;
    private final WebServer web;
    private volatile Served served;
    private volatile boolean draining;
    private boolean stopped; // guarded by this

    /** The model being served and everything built for it. */
    private record Served(ModelSession session, BatchScheduler scheduler, CompletionService service, OpenAiFormat format,
                          String modelId, ObjectNode planJson) {
    }

    private PanamaxServer(ServerOptions options) {
        this.options = options;
        this.apiKey = options.apiKey() == null ? null : options.apiKey().getBytes(StandardCharsets.UTF_8);
        this.metrics = new ServerMetrics(() -> served == null ? null : served.scheduler().stats());
        HELIDON_LOG.setLevel(Level.WARNING);
        HttpRouting.Builder routing = HttpRouting.builder()
                .addFilter((chain, req, res) -> {
                    if (req.prologue().uriPath().path().startsWith("/v1") && !authorized(req)) {
                        fail(res, new ApiException(401, "invalid_request_error", null, "invalid_api_key",
                                "a valid API key is required: send 'Authorization: Bearer KEY'", null));
                        return;
                    }
                    chain.proceed();
                })
                .get("/health", (req, res) -> health(res))
                .get("/health/ready", (req, res) -> health(res))
                .get("/health/live", (req, res) -> json(res, 200, Map.of("status", "alive")))
                .get("/metrics", (req, res) -> {
                    res.headers().set(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8"));
                    res.send(metrics.scrape().getBytes(StandardCharsets.UTF_8));
                })
                .get("/v1/models", (req, res) -> handle(res, () -> models(res)))
                .get("/v1/models/{id}", (req, res) -> handle(res, () -> model(res, req.path().pathParameters().get("id"))))
                .post("/v1/chat/completions", (req, res) -> handle(res, () -> complete(req, res, true)))
                .post("/v1/completions", (req, res) -> handle(res, () -> complete(req, res, false)))
                .any((req, res) -> {
                    String path = req.path().path();
                    boolean known = List.of("/v1/models", "/v1/chat/completions", "/v1/completions", "/health", "/health/ready",
                            "/health/live", "/metrics").contains(path) || (path.startsWith("/v1/models/") && path.length() > 11);
                    fail(res, known ? new ApiException(405, "invalid_request_error", null, "method_not_allowed",
                            req.prologue().method().text() + " is not allowed on " + path, null)
                            : new ApiException(404, "invalid_request_error", null, "not_found", "no route " + path, null));
                });
        this.web = WebServer.builder()
                .host(options.host())
                .port(options.port())
                // Bodies are bounded here (413 with an OpenAI error); Helidon's own limit is only a backstop.
                .maxPayloadSize(4L * options.maxBodyBytes())
                .shutdownGracePeriod(options.drainTimeout())
                .shutdownHook(false)
                // Streams write one small SSE event per token: with Nagle's algorithm on (Helidon's default) an
                // event written while the previous one is unacknowledged waits for the client's ACK, which Linux
                // may delay (32-token streams through curl: 158-176 ms per answer with it, 133-151 without).
                .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
                .routing(routing)
                .build();
    }

    /** Starts listening; {@code /health} says "loading" until {@link #serve} is called. */
    public static PanamaxServer start(ServerOptions options) {
        PanamaxServer server = new PanamaxServer(options);
        server.web.start();
        return server;
    }

    /**
     * Serves {@code session}'s model under {@code modelId}; takes ownership of the session (closed
     * with the server).
     */
    public void serve(ModelSession session, String modelId, panamax.engine.serve.ServingConfig config) {
        serve(session, modelId, config, null);
    }

    /**
     * As {@link #serve(ModelSession, String, panamax.engine.serve.ServingConfig)}, decoding
     * speculatively with {@code speculation} (null for none); takes ownership of it too.
     */
    public void serve(ModelSession session, String modelId, panamax.engine.serve.ServingConfig config,
                      panamax.engine.speculative.Speculation speculation) {
        if (served != null) throw new IllegalStateException("the server already serves " + served.modelId());
        ServingPlan plan = ServingPlan.resolve(session.plan(1, 0), session::layoutCapabilities, config);
        warmUp(session);
        BatchScheduler scheduler = BatchScheduler.start(session, plan, metrics, speculation);
        // Constrained answers (response_format, forced tool calls) need the vocabulary's byte trie
        // (seconds for 150k tokens): start building it now, so the first such request rarely waits.
        Thread.ofVirtual().name("panamax-vocabulary").start(() -> TokenVocabulary.of(session.tokenizer()));
        ObjectNode planJson = PlanJson.tree(plan.execution(), modelId);
        planJson.set("serving", mapper.valueToTree(plan.toMap()));
        if (speculation != null) planJson.set("speculative", mapper.valueToTree(speculation.plan().toMap()));
        served = new Served(session, scheduler, new CompletionService(scheduler, session.tokenizer(), session.spec().maxPositions(), modelId,
                session.toolCallFormat()),
                new OpenAiFormat(mapper, session.tokenizer(), modelId), modelId, planJson);
    }

    /**
     * Runs a short prompt alone and a padded batch of two through the model before the server
     * reports ready, so the JIT has compiled the prefill and decode paths (a cold first request
     * took seconds) and no client pays for it.
     */
    private static void warmUp(ModelSession session) {
        int vocab = session.spec().vocabSize();
        int[] prompt = new int[24];
        for (int i = 0; i < prompt.length; i++) prompt[i] = (i * 31 + 7) % vocab;
        panamax.engine.generate.SamplingParams greedy = panamax.engine.generate.SamplingParams.greedy();
        var alone = new panamax.engine.generate.GenerationRequest(prompt, greedy, 8, java.util.Set.of());
        var shorter = new panamax.engine.generate.GenerationRequest(java.util.Arrays.copyOf(prompt, 9), greedy, 8, java.util.Set.of());
        session.generator().generate(alone, panamax.engine.generate.GenerationListener.NONE);
        session.generator().generate(List.of(alone, shorter), panamax.engine.generate.GenerationListener.NONE);
    }

    /** The port it listens on. */
    public int port() {
        return web.port();
    }

    /** The scheduler of the served model, or null before {@link #serve}. */
    public BatchScheduler scheduler() {
        Served s = served;
        return s == null ? null : s.scheduler();
    }

    /**
     * Shuts down gracefully: new {@code /v1} requests get 503, running and queued requests may
     * finish for up to the drain timeout, then the rest end with an error, the listener stops and
     * the model is closed.
     *
     * @return whether every request finished in time
     */
    public synchronized boolean drain() {
        if (stopped) return true;
        stopped = true;
        draining = true;
        boolean finished = true;
        Served s = served;
        try {
            if (s != null) finished = s.scheduler().drain(options.drainTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        } finally {
            web.stop();
            if (s != null) {
                try {
                    s.scheduler().speculation().ifPresent(panamax.engine.speculative.Speculation::close);
                } finally {
                    s.session().close();
                }
            }
        }
        return finished;
    }

    /** {@link #drain}, unless it already ran. */
    @Override
    public void close() {
        drain();
    }

    private boolean authorized(ServerRequest req) {
        if (apiKey == null) return true;
        String header = req.headers().first(HeaderNames.AUTHORIZATION).orElse("");
        byte[] given = (header.startsWith("Bearer ") ? header.substring(7).strip() : "").getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, apiKey); // constant time in the key's contents
    }

    private void health(ServerResponse res) throws IOException {
        if (served != null && !draining) json(res, 200, Map.of("status", "ok"));
        else json(res, 503, Map.of("status", draining ? "draining" : "loading"));
    }

    private Served ready() {
        Served s = served;
        if (draining) throw new ApiException(503, "server_error", null, "shutting_down", "the server is shutting down", null);
        if (s == null) throw new ApiException(503, "server_error", null, "model_loading", "the model is still loading; retry when /health says ok", 1);
        return s;
    }

    private void models(ServerResponse res) throws IOException {
        Served s = ready();
        ObjectNode root = mapper.createObjectNode();
        root.put("object", "list");
        root.putArray("data").add(modelCard(s));
        json(res, 200, root);
    }

    private void model(ServerResponse res, String id) throws IOException {
        Served s = ready();
        if (!s.modelId().equals(id)) {
            throw new ApiException(404, "invalid_request_error", "model", "model_not_found",
                    "the model '" + id + "' does not exist; this server serves '" + s.modelId() + "'", null);
        }
        ObjectNode card = modelCard(s);
        card.set("panamax", s.planJson());
        json(res, 200, card);
    }

    private ObjectNode modelCard(Served s) {
        ObjectNode card = mapper.createObjectNode();
        card.put("id", s.modelId());
        card.put("object", "model");
        card.put("created", 0);
        card.put("owned_by", "panamax");
        card.put("max_model_len", s.session().spec().maxPositions());
        return card;
    }

    private void complete(ServerRequest req, ServerResponse res, boolean chat) throws IOException {
        Served s = ready();
        byte[] body = body(req);
        CompletionParams params = chat ? parser.chat(body) : parser.completion(body);
        CompletionService.Submitted submitted = s.service().submit(params);
        new CompletionResponder(s.format(), submitted, params, options.keepAlive()).respond(res);
    }

    /** The request body, at most {@link ServerOptions#maxBodyBytes()} bytes. */
    private byte[] body(ServerRequest req) throws IOException {
        int limit = options.maxBodyBytes();
        long declared = req.headers().contentLength().orElse(-1);
        if (declared > limit) throw tooLarge(declared);
        try (InputStream in = req.content().inputStream()) {
            byte[] body = in.readNBytes(limit + 1);
            if (body.length > limit) throw tooLarge(-1);
            return body;
        }
    }

    private ApiException tooLarge(long declared) {
        return new ApiException(413, "invalid_request_error", null, "request_too_large", "the body" + (declared > 0 ? " of " + declared + " bytes" : "")
                + " exceeds the server's limit of " + options.maxBodyBytes() + " bytes", null);
    }

    /** A handler body that may throw; an {@link ApiException} becomes its OpenAI error, anything else a 500. */
    private interface Action {
        void run() throws IOException;
    }

    private void handle(ServerResponse res, Action action) {
        try {
            action.run();
        } catch (ApiException e) {
            fail(res, e);
        } catch (IOException | RuntimeException e) {
            if (res.isSent()) return; // the client went away mid-answer; nothing left to tell it
            fail(res, new ApiException(500, "server_error", null, null, "internal error: " + e, null));
        }
    }

    /** Answers with {@code e}'s status and OpenAI error body, and counts the refusal by status. */
    private void fail(ServerResponse res, ApiException e) {
        metrics.outcome(Integer.toString(e.status()));
        if (res.isSent()) return;
        if (e.retryAfterSeconds() != null) res.header(HeaderNames.RETRY_AFTER, Integer.toString(e.retryAfterSeconds()));
        try {
            json(res, e.status(), OpenAiFormat.error(mapper, e));
        } catch (IOException | RuntimeException ignored) {
            // the client is gone; nothing to tell it
        }
    }

    private void json(ServerResponse res, int status, Object body) throws IOException {
        res.status(status);
        res.headers().contentType(io.helidon.common.media.type.MediaTypes.APPLICATION_JSON);
        res.send(mapper.writeValueAsBytes(body));
    }
}
