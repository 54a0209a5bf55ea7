package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import panamax.engine.serve.ServingConfig;

/**
 * Every refusal over raw HTTP: its status and OpenAI's error body with {@code param} naming the
 * field. One server with an API key, a 4 KiB body limit and a scheduler of one row and one queue
 * place; the last test drains it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApiErrorsTest {
    private static final String KEY = "sk-errors-test";
    private static final String CHAT = "/v1/chat/completions";
    private static final String USER = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static DemoServer demo;
    private static HttpResponse<String> healthBeforeServe;

    @BeforeAll
    static void start() throws Exception {
        demo = DemoServer.listening(ServerOptions.defaults().withApiKey(KEY).withMaxBodyBytes(4096));
        healthBeforeServe = demo.get("/health");
        demo.serve(ServingConfig.defaults().withMaxBatch(1).withMaxQueue(1));
    }

    @AfterAll
    static void stop() {
        if (demo != null) demo.close();
    }

    /** Asserts OpenAI's error body: exactly message, type, param and code, with {@code param} as given. */
    private static JsonNode assertError(HttpResponse<String> r, int status, String param) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"), r.headers().toString());
        JsonNode root = JSON.readTree(r.body());
        assertEquals(Set.of("error"), fields(root), r.body());
        JsonNode error = root.get("error");
        assertEquals(Set.of("message", "type", "param", "code"), fields(error), r.body());
        assertTrue(error.get("message").isTextual() && !error.get("message").asText().isBlank(), r.body());
        assertTrue(error.get("type").isTextual(), r.body());
        if (param == null) assertTrue(error.get("param").isNull(), r.body());
        else assertEquals(param, error.get("param").asText(), r.body());
        return error;
    }

    private static Set<String> fields(JsonNode n) {
        Set<String> out = new java.util.HashSet<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    static Stream<Arguments> badChatBodies() {
        return Stream.of(
                Arguments.of("invalid JSON", "{\"model\":", null),
                Arguments.of("empty body", "", null),
                Arguments.of("an array body", "[1,2]", null),
                Arguments.of("a string body", "\"hello\"", null),
                Arguments.of("messages not an array", "{\"messages\":\"hi\"}", "messages"),
                Arguments.of("messages missing", "{\"model\":\"m1\"}", "messages"),
                Arguments.of("empty messages", "{\"messages\":[]}", "messages"),
                Arguments.of("unknown role", "{\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}]}", "messages[0].role"),
                Arguments.of("content a number", "{\"messages\":[{\"role\":\"user\",\"content\":5}]}", "messages[0].content"),
                Arguments.of("an image part", "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{}}]}]}",
                        "messages[0].content[0].type"),
                Arguments.of("max_tokens a string", "{" + USER + ",\"max_tokens\":\"10\"}", "max_tokens"),
                Arguments.of("max_tokens negative", "{" + USER + ",\"max_tokens\":-1}", "max_tokens"),
                Arguments.of("max_tokens zero", "{" + USER + ",\"max_tokens\":0}", "max_tokens"),
                Arguments.of("max_tokens beyond an int", "{" + USER + ",\"max_tokens\":99999999999}", "max_tokens"),
                Arguments.of("max_tokens fractional", "{" + USER + ",\"max_tokens\":1.5}", "max_tokens"),
                Arguments.of("max_completion_tokens zero", "{" + USER + ",\"max_completion_tokens\":0}", "max_completion_tokens"),
                Arguments.of("temperature hot", "{" + USER + ",\"temperature\":\"hot\"}", "temperature"),
                Arguments.of("temperature 3", "{" + USER + ",\"temperature\":3}", "temperature"),
                Arguments.of("top_p 0", "{" + USER + ",\"top_p\":0}", "top_p"),
                Arguments.of("top_p 1.5", "{" + USER + ",\"top_p\":1.5}", "top_p"),
                Arguments.of("n 2", "{" + USER + ",\"n\":2}", "n"),
                Arguments.of("frequency_penalty", "{" + USER + ",\"frequency_penalty\":0.5}", "frequency_penalty"),
                Arguments.of("presence_penalty", "{" + USER + ",\"presence_penalty\":-1}", "presence_penalty"),
                Arguments.of("logit_bias", "{" + USER + ",\"logit_bias\":{\"5\":10}}", "logit_bias"),
                Arguments.of("tools", "{" + USER + ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}", "tools"),
                Arguments.of("response_format of an unknown type", "{" + USER + ",\"response_format\":{\"type\":\"xml\"}}", "response_format.type"),
                Arguments.of("json_schema without a schema", "{" + USER + ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"a\"}}}",
                        "response_format.json_schema.schema"),
                Arguments.of("json_schema with an unsupported keyword", "{" + USER + ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
                        + "{\"name\":\"a\",\"strict\":true,\"schema\":{\"type\":\"string\",\"pattern\":\"^a\"}}}}", "response_format.json_schema.schema"),
                Arguments.of("an unknown field", "{" + USER + ",\"frobnicate\":true}", "frobnicate"),
                Arguments.of("stream not a boolean", "{" + USER + ",\"stream\":\"yes\"}", "stream"),
                Arguments.of("stream_options without stream", "{" + USER + ",\"stream_options\":{\"include_usage\":true}}", "stream_options"),
                Arguments.of("top_logprobs without logprobs", "{" + USER + ",\"top_logprobs\":2}", "top_logprobs"),
                Arguments.of("top_logprobs 21", "{" + USER + ",\"logprobs\":true,\"top_logprobs\":21}", "top_logprobs"),
                Arguments.of("stop a number", "{" + USER + ",\"stop\":7}", "stop"),
                Arguments.of("stop empty", "{" + USER + ",\"stop\":[\"\"]}", "stop"),
                Arguments.of("seed fractional", "{" + USER + ",\"seed\":1.5}", "seed"),
                Arguments.of("model not a string", "{" + USER + ",\"model\":5}", "model"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badChatBodies")
    void aBadChatBodyGets400NamingTheField(String what, String body, String param) throws Exception {
        JsonNode error = assertError(demo.post(CHAT, body), 400, param);
        assertEquals("invalid_request_error", error.get("type").asText());
    }

    static Stream<Arguments> badCompletionBodies() {
        return Stream.of(
                Arguments.of("prompt missing", "{\"max_tokens\":3}", "prompt"),
                Arguments.of("prompt empty", "{\"prompt\":\"\"}", "prompt"),
                Arguments.of("several prompts", "{\"prompt\":[\"a\",\"b\"]}", "prompt"),
                Arguments.of("a token outside the vocabulary", "{\"prompt\":[1,2,999999]}", "prompt"),
                Arguments.of("echo", "{\"prompt\":\"a\",\"echo\":true}", "echo"),
                Arguments.of("best_of 2", "{\"prompt\":\"a\",\"best_of\":2}", "best_of"),
                Arguments.of("logprobs 21", "{\"prompt\":\"a\",\"logprobs\":21}", "logprobs"),
                Arguments.of("messages on completions", "{\"prompt\":\"a\"," + USER + "}", "messages"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCompletionBodies")
    void aBadCompletionBodyGets400NamingTheField(String what, String body, String param) throws Exception {
        assertError(demo.post("/v1/completions", body), 400, param);
    }

    @Test
    void maxTokensBeyondTheContextGets400NamingTheLimit() throws Exception {
        JsonNode error = assertError(demo.post(CHAT, "{" + USER + ",\"max_tokens\":5000}"), 400, "max_tokens");
        assertTrue(error.get("message").asText().contains("1024"), error.toString());
    }

    @Test
    void aStreamedRequestBeyondTheContextGetsAJson400BeforeAnyEvent() throws Exception {
        HttpResponse<String> r = demo.post(CHAT, "{" + USER + ",\"max_tokens\":5000,\"stream\":true}");
        assertError(r, 400, "max_tokens");
    }

    @Test
    void aPromptLongerThanTheContextGets400() throws Exception {
        String ids = String.join(",", java.util.Collections.nCopies(1100, "7"));
        JsonNode error = assertError(demo.post("/v1/completions", "{\"prompt\":[" + ids + "]}"), 400, "prompt");
        assertTrue(error.get("message").asText().contains("1024"), error.toString());
    }

    @Test
    void maxTokensIsCheckedEvenWhenMaxCompletionTokensIsGiven() throws Exception {
        assertError(demo.post(CHAT, "{" + USER + ",\"max_completion_tokens\":2,\"max_tokens\":\"junk\"}"), 400, "max_tokens");
    }

    @Test
    void aWrongModelGets404() throws Exception {
        JsonNode error = assertError(demo.post(CHAT, "{" + USER + ",\"model\":\"gpt-4o\"}"), 404, "model");
        assertEquals("model_not_found", error.get("code").asText());
        assertError(demo.get("/v1/models/gpt-4o"), 404, "model");
    }

    @Test
    void getOnAPostRouteGets405AndAnUnknownRouteGets404() throws Exception {
        assertError(demo.get(CHAT), 405, null);
        assertError(demo.get("/v1/completions"), 405, null);
        assertError(demo.post("/v1/models", "{}"), 405, null);
        assertError(demo.post("/v1/models/" + DemoServer.MODEL, "{}"), 405, null);
        assertError(demo.post("/health/live", "{}"), 405, null);
        assertError(demo.get("/v1/embeddings"), 404, null);
        assertError(demo.get("/nothing/here"), 404, null);
    }

    @Test
    void aMissingOrWrongApiKeyGets401AndTheRightOneWorks() throws Exception {
        HttpRequest.Builder none = HttpRequest.newBuilder(java.net.URI.create(demo.base() + "/v1/models")).GET();
        JsonNode error = assertError(demo.send(none), 401, null);
        assertEquals("invalid_api_key", error.get("code").asText());
        assertError(demo.send(HttpRequest.newBuilder(java.net.URI.create(demo.base() + "/v1/models")).header("Authorization", "Bearer nope")),
                401, null);
        assertError(demo.send(HttpRequest.newBuilder(java.net.URI.create(demo.base() + "/v1/models")).header("Authorization", KEY)), 401, null);
        assertError(demo.send(HttpRequest.newBuilder(java.net.URI.create(demo.base() + CHAT))
                .POST(HttpRequest.BodyPublishers.ofString("{" + USER + ",\"max_tokens\":1}"))), 401, null);
        HttpResponse<String> ok = demo.get("/v1/models");
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals(DemoServer.MODEL, JSON.readTree(ok.body()).get("data").get(0).get("id").asText());
        assertEquals(200, demo.send(HttpRequest.newBuilder(java.net.URI.create(demo.base() + "/health")).GET()).statusCode(),
                "health needs no key");
    }

    @Test
    void aBodyOverTheLimitGets413WithOrWithoutAContentLength() throws Exception {
        String big = "{" + USER + ",\"user\":\"" + "x".repeat(5000) + "\"}";
        assertError(demo.post(CHAT, big), 413, null);
        byte[] bytes = big.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> chunked = demo.send(demo.request(CHAT)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))));
        assertError(chunked, 413, null);
        // the connection stays usable
        assertEquals(200, demo.post(CHAT, "{" + USER + ",\"max_tokens\":1}").statusCode());
    }

    @Test
    void aFullQueueGets429WithRetryAfter() throws Exception {
        String slow = "{" + USER + ",\"max_tokens\":40,\"ignore_eos\":true}";
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(demo.http.sendAsync(demo.request(CHAT).POST(HttpRequest.BodyPublishers.ofString(slow)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        int ok = 0, busy = 0;
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            HttpResponse<String> r = c.get();
            if (r.statusCode() == 200) {
                ok++;
                assertEquals(40, JSON.readTree(r.body()).get("usage").get("completion_tokens").asInt(), r.body());
            } else {
                busy++;
                JsonNode error = assertError(r, 429, null);
                assertEquals("rate_limit_exceeded", error.get("type").asText());
                assertTrue(r.headers().firstValue("Retry-After").orElse("").matches("\\d+"), r.headers().toString());
            }
        }
        assertTrue(ok >= 1 && ok <= 2, "one running and one queued at most: " + ok + " ok, " + busy + " refused");
        assertTrue(busy >= 3, busy + " refused");
    }

    @Test
    void healthSaysLoadingBeforeServeAndOkAfter() throws Exception {
        assertEquals(503, healthBeforeServe.statusCode());
        assertEquals("loading", JSON.readTree(healthBeforeServe.body()).get("status").asText());
        HttpResponse<String> now = demo.get("/health");
        assertEquals(200, now.statusCode());
        assertEquals("ok", JSON.readTree(now.body()).get("status").asText());
    }

    @Test
    void metricsArePrometheusTextAndCountAFinishedRequest() throws Exception {
        String before = demo.get("/metrics").body();
        HttpResponse<String> r = demo.post(CHAT, "{" + USER + ",\"max_tokens\":2,\"ignore_eos\":true}");
        assertEquals(200, r.statusCode(), r.body());
        HttpResponse<String> metrics = demo.get("/metrics");
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), metrics.headers().toString());
        String after = metrics.body();
        for (String name : List.of("panamax_requests_total", "panamax_time_to_first_token_seconds_bucket", "panamax_kv_budget_bytes",
                "panamax_running_rows", "panamax_queue_length", "panamax_prompt_tokens_total", "panamax_generation_tokens_total",
                "panamax_inter_token_latency_seconds_bucket", "panamax_request_duration_seconds_count")) {
            assertTrue(after.contains("\n" + name) || after.startsWith(name), "missing " + name);
        }
        assertTrue(after.contains("# TYPE panamax_requests_total counter"), "a counter's TYPE line");
        assertEquals(value(before, "panamax_requests_total{outcome=\"length\"}") + 1, value(after, "panamax_requests_total{outcome=\"length\"}"));
        assertTrue(value(after, "panamax_request_duration_seconds_count") >= value(before, "panamax_request_duration_seconds_count") + 1);
        assertTrue(value(after, "panamax_kv_budget_bytes") > 0);
        assertTrue(value(after, "panamax_generation_tokens_total") >= value(before, "panamax_generation_tokens_total") + 2);
        // the request's prefill and its second token's decode step ran on the scheduler thread, which
        // publishes its times after the step that already handed out the answer (and another test's rows may
        // have moved the decode time first)
        long deadline = System.nanoTime() + 10_000_000_000L;
        while ((value(after, "panamax_scheduler_decode_seconds_total") <= value(before, "panamax_scheduler_decode_seconds_total")
                || value(after, "panamax_scheduler_prefill_seconds_total") <= value(before, "panamax_scheduler_prefill_seconds_total"))
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
            after = demo.get("/metrics").body();
        }
        assertTrue(value(after, "panamax_scheduler_prefill_seconds_total") > value(before, "panamax_scheduler_prefill_seconds_total"), after);
        assertTrue(value(after, "panamax_scheduler_decode_seconds_total") > value(before, "panamax_scheduler_decode_seconds_total"), after);
    }

    @Test
    void refusalsAreCountedByStatus() throws Exception {
        double before = value(demo.get("/metrics").body(), "panamax_requests_total{outcome=\"400\"}");
        assertError(demo.post(CHAT, "{\"messages\":[]}"), 400, "messages");
        assertEquals(before + 1, value(demo.get("/metrics").body(), "panamax_requests_total{outcome=\"400\"}"));
    }

    /** A sample's value in a Prometheus scrape; 0 when absent. */
    private static double value(String scrape, String sample) {
        Matcher m = Pattern.compile("^" + Pattern.quote(sample) + " (\\S+)$", Pattern.MULTILINE).matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void afterDrainV1CallsAreRefused() throws Exception {
        // a stream running when the drain starts finishes; a request during the drain gets 503
        CompletableFuture<HttpResponse<String>> running = demo.http.sendAsync(demo.request(CHAT)
                .POST(HttpRequest.BodyPublishers.ofString("{" + USER + ",\"max_tokens\":150,\"ignore_eos\":true,\"stream\":true}")).build(),
                HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (demo.server.scheduler().stats().runningRows() == 0 && System.nanoTime() < deadline) Thread.sleep(5);
        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(demo.server::drain);
        while (demo.get("/health").statusCode() != 503 && System.nanoTime() < deadline) Thread.sleep(5);
        HttpResponse<String> health = demo.get("/health");
        assertFalse(running.isDone(), "150 tokens outlast the start of the drain");
        assertEquals("draining", JSON.readTree(health.body()).get("status").asText());
        JsonNode error = assertError(demo.post(CHAT, "{" + USER + ",\"max_tokens\":1}"), 503, null);
        assertEquals("shutting_down", error.get("code").asText());
        HttpResponse<String> stream = running.get();
        assertEquals(200, stream.statusCode());
        assertTrue(stream.body().endsWith("data: [DONE]\n\n"), stream.body());
        assertFalse(stream.body().contains("\"error\""), stream.body());
        assertTrue(drained.get(), "every request finished in time");
        try {
            HttpResponse<String> after = demo.post(CHAT, "{" + USER + ",\"max_tokens\":1}");
            assertError(after, 503, null);
        } catch (ConnectException refused) {
            // the listener is gone: refused too
        }
    }
}
