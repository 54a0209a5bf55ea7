package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import panamax.engine.generate.ModelSession;
import panamax.engine.serve.ServingConfig;
import panamax.server.PanamaxServer;
import panamax.server.ServerOptions;

/**
 * 32 concurrent streaming clients against the demo model over loopback, a quarter of them going
 * away mid-stream: no HTTP errors, every kept stream well formed and complete, every seeded text
 * the same as the request gives alone, and the backend's off-heap bytes back to idle afterwards.
 */
class ServerLoadTest {
    private static final int CLIENTS = 32;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One client's request, and whether it hangs up after {@code hangUpAfter} events (0: reads to the end). */
    private record Call(int id, String prompt, int maxTokens, long seed, int hangUpAfter) {
        String body() throws Exception {
            return JSON.writeValueAsString(java.util.Map.of("prompt", prompt, "max_tokens", maxTokens, "seed", seed, "temperature", 0.8,
                    "stream", true));
        }
    }

    /** What a client saw: the HTTP status, the concatenated text and the last chunk's finish reason. */
    private record Outcome(int status, String text, String finishReason, int events, boolean done) {
    }

    @Test
    @Timeout(90)
    void concurrentStreamsWithHangUpsAreCompleteEqualToAloneAndLeaveNoMemory() throws Exception {
        ModelSession session = Models.open(Models.DEMO);
        try (PanamaxServer server = PanamaxServer.start(ServerOptions.defaults().withPort(0));
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            server.serve(session, "demo", ServingConfig.defaults().withMaxBatch(8).withPrefixCacheShare(0));
            long idle = session.backend().memoryStats().activeBytes();
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v1/completions");
            Random random = new Random(31337);
            String[] words = "the river carried small boats past mills and quiet towns toward a grey sea".split(" ");
            List<Integer> order = new ArrayList<>(java.util.stream.IntStream.range(0, CLIENTS).boxed().toList());
            java.util.Collections.shuffle(order, random);
            java.util.Set<Integer> hangingUp = java.util.Set.copyOf(order.subList(0, CLIENTS / 4)); // a random quarter
            List<Call> calls = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                StringBuilder prompt = new StringBuilder("Story " + i + ":");
                for (int w = 1 + random.nextInt(24); w > 0; w--) prompt.append(' ').append(words[random.nextInt(words.length)]);
                boolean hangUp = hangingUp.contains(i);
                int maxTokens = hangUp ? 24 + random.nextInt(25) : 8 + random.nextInt(41); // one hanging up leaves rows to cancel
                calls.add(new Call(i, prompt.toString(), maxTokens, 1000L + i, hangUp ? 2 + random.nextInt(3) : 0));
            }

            long start = System.nanoTime();
            List<Outcome> outcomes = new ArrayList<>();
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Outcome>> futures = new ArrayList<>();
                for (Call c : calls) futures.add(clients.submit(() -> stream(http, uri, c)));
                for (Future<Outcome> f : futures) outcomes.add(f.get());
            }
            double loadSeconds = (System.nanoTime() - start) / 1e9;

            long deadline = System.nanoTime() + 20_000_000_000L;
            while (server.scheduler().stats().runningRows() + server.scheduler().stats().queued() > 0) {
                assertTrue(System.nanoTime() < deadline, "the scheduler is still busy: " + server.scheduler().stats());
                Thread.sleep(5);
            }
            long after = session.backend().memoryStats().activeBytes();
            double cancelled = counter(http, server, "cancelled");

            int kept = 0, hungUp = 0, compared = 0;
            List<String> mismatches = new ArrayList<>();
            long alone = System.nanoTime();
            for (int i = 0; i < CLIENTS; i++) {
                Call c = calls.get(i);
                Outcome o = outcomes.get(i);
                assertEquals(200, o.status(), "client " + i + ": HTTP status");
                if (c.hangUpAfter() > 0) {
                    hungUp++;
                    continue;
                }
                kept++;
                assertTrue(o.done(), "client " + i + ": the stream ends with [DONE]");
                assertNotNull(o.finishReason(), "client " + i + ": the last chunk has a finish reason");
                Outcome again = stream(http, uri, c);
                compared++;
                if (!again.text().equals(o.text()) || !again.finishReason().equals(o.finishReason())) {
                    mismatches.add("client " + i + " (" + c.maxTokens() + " tokens): under load " + o + ", alone " + again);
                }
            }
            System.out.printf("load: %d streams (%d kept, %d hung up) in %.1f s; %d re-run alone in %.1f s, %d differ; %.0f cancelled rows;"
                            + " active bytes idle %d, after %d%n", CLIENTS, kept, hungUp, loadSeconds, compared,
                    (System.nanoTime() - alone) / 1e9, mismatches.size(), cancelled, idle, after);
            assertEquals(CLIENTS / 4, hungUp, "clients hanging up");
            assertTrue(mismatches.isEmpty(), mismatches.size() + " seeded texts differ from the same request alone:\n" + String.join("\n", mismatches));
            assertTrue(cancelled >= 1, "the server noticed no client hanging up (cancelled rows " + cancelled + ")");
            assertEquals(idle, after, "active off-heap bytes after the load");
        }
    }

    /** Streams {@code c}; every data line but the final [DONE] must be a JSON chunk without an error. */
    private static Outcome stream(HttpClient http, URI uri, Call c) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(c.body())).build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        StringBuilder text = new StringBuilder();
        String finish = null;
        int events = 0;
        boolean done = false;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            if (response.statusCode() != 200) return new Outcome(response.statusCode(), in.lines().reduce("", String::concat), null, 0, false);
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isEmpty() || line.startsWith(":")) continue;
                assertTrue(line.startsWith("data: "), "client " + c.id() + ": not an SSE data line: " + line);
                String data = line.substring(6);
                assertTrue(!done, "client " + c.id() + ": an event after [DONE]: " + line);
                if (data.equals("[DONE]")) {
                    done = true;
                    continue;
                }
                JsonNode chunk = JSON.readTree(data);
                assertTrue(!chunk.has("error"), "client " + c.id() + ": an error event: " + data);
                JsonNode choice = chunk.path("choices").path(0);
                assertTrue(choice.isObject(), "client " + c.id() + ": a chunk without a choice: " + data);
                if (choice.hasNonNull("text")) text.append(choice.get("text").asText());
                finish = choice.hasNonNull("finish_reason") ? choice.get("finish_reason").asText() : null;
                events++;
                if (c.hangUpAfter() > 0 && events == c.hangUpAfter()) break; // closing the reader closes the body: the client goes away
            }
        }
        return new Outcome(response.statusCode(), text.toString(), finish, events, done);
    }

    /** The Prometheus counter of requests that ended with {@code outcome}. */
    private static double counter(HttpClient http, PanamaxServer server, String outcome) throws Exception {
        String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("panamax_requests_total\\{[^}]*outcome=\"" + outcome + "\"[^}]*} ([0-9.Ee+]+)").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
