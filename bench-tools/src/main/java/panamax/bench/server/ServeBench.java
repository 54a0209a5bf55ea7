package panamax.bench.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import panamax.api.model.Tokenizer;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.serve.ServingConfig;
import panamax.server.PanamaxServer;
import panamax.server.ServerOptions;

/**
 * {@code panamax bench serve}: starts the server in-process on loopback and drives it with 1..N
 * concurrent streaming clients ({@code /v1/completions}, seeded sampling, {@code ignore_eos} so
 * every request generates its full {@code --max-tokens}). Per concurrency it prints aggregate
 * generated tok/s, time to first token and inter-token latency (p50/p99), and first the same
 * prompt through the in-process generator (what {@code panamax generate} runs) so the serving
 * overhead shows in the same run.
 */
final class ServeBench {
    private static final String TEXT = "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my"
            + " purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part"
            + " of the world. It is a way I have of driving off the spleen and regulating the circulation. Whenever I find myself"
            + " growing grim about the mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself involuntarily"
            + " pausing before coffin warehouses, and bringing up the rear of every funeral I meet; then, I account it high time to get"
            + " to sea as soon as I can. This is my substitute for pistol and ball. ";

    private record Options(Path model, List<Integer> clients, int promptTokens, int maxTokens, int requests, int maxBatch, boolean json) {
    }

    /** One streamed request as a client saw it. */
    private record Sample(double ttft, double[] gaps, int tokens, double seconds) {
    }

    private ServeBench() {
    }

    static int run(List<String> args, PrintWriter out, PrintWriter err) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("bench serve: " + e.getMessage());
            err.println("usage: panamax bench serve [--model DIR] [--clients 1,8,32] [--prompt-tokens 64] [--max-tokens 64]"
                    + " [--requests-per-client 3] [--max-batch 8] [--json]");
            return 2;
        }
        ObjectMapper mapper = new ObjectMapper();
        Path dir = o.model() != null ? o.model() : DemoModel.directory();
        try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), dir, KvScheme.identity(), Optional.empty())) {
            Tokenizer tokenizer = session.tokenizer();
            int[] prompt = promptOf(tokenizer, o.promptTokens());
            String promptText = tokenizer.decode(prompt, true);
            int[] encoded = tokenizer.encode(promptText, true);
            err.println("prompt: " + encoded.length + " tokens; max tokens " + o.maxTokens() + "; model " + dir);
            // What `panamax generate` runs: the same prompt through the in-process generator, end to end.
            double generate = 0;
            for (int i = -2; i < 3; i++) { // two untimed runs first: the JIT compiles the decode path
                long t0 = System.nanoTime();
                GenerationOutput g = session.generator().generate(new GenerationRequest(encoded, SamplingParams.sample(0.8, i), o.maxTokens(),
                        java.util.Set.of()), GenerationListener.NONE);
                if (i >= 0) generate = Math.max(generate, g.stats().generatedTokens() / ((System.nanoTime() - t0) / 1e9));
            }
            report(out, mapper, o.json(), Map.of("mode", "generate", "clients", 1, "tok_s", round(generate)),
                    String.format(Locale.ROOT, "%-9s %7s %9s %10s %10s %10s %10s", "clients", "requests", "tok/s", "ttft p50", "ttft p99", "itl p50", "itl p99"),
                    String.format(Locale.ROOT, "%-9s %7d %9.1f %10s %10s %10s %10s", "generate", 3, generate, "-", "-", "-", "-"));
            ServingConfig config = ServingConfig.defaults().withMaxBatch(o.maxBatch()).withPrefixCacheShare(0)
                    .withMaxQueue(Math.max(64, o.clients().stream().mapToInt(Integer::intValue).max().orElse(1) * 2));
            try (PanamaxServer server = PanamaxServer.start(ServerOptions.defaults().withPort(0))) {
                server.serve(openAgain(dir), "bench", config);
                URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v1/completions");
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                level(http, uri, mapper, promptText, o.maxTokens(), 1, 1); // warm-up: compiles the serving path
                for (int clients : o.clients()) {
                    long t0 = System.nanoTime();
                    List<Sample> samples = level(http, uri, mapper, promptText, o.maxTokens(), clients, o.requests());
                    double wall = (System.nanoTime() - t0) / 1e9;
                    int tokens = samples.stream().mapToInt(Sample::tokens).sum();
                    double[] ttft = samples.stream().mapToDouble(Sample::ttft).sorted().toArray();
                    double[] itl = samples.stream().flatMapToDouble(s -> Arrays.stream(s.gaps())).sorted().toArray();
                    double tps = tokens / wall;
                    Map<String, Object> row = new java.util.LinkedHashMap<>();
                    row.put("mode", "serve");
                    row.put("clients", clients);
                    row.put("requests", samples.size());
                    row.put("tok_s", round(tps));
                    row.put("ttft_p50_ms", round(1000 * pct(ttft, 0.5)));
                    row.put("ttft_p99_ms", round(1000 * pct(ttft, 0.99)));
                    row.put("itl_p50_ms", round(1000 * pct(itl, 0.5)));
                    row.put("itl_p99_ms", round(1000 * pct(itl, 0.99)));
                    row.put("vs_generate", round(tps / generate));
                    report(out, mapper, o.json(), row, null, String.format(Locale.ROOT, "%-9d %7d %9.1f %8.1fms %8.1fms %8.1fms %8.1fms",
                            clients, samples.size(), tps, 1000 * pct(ttft, 0.5), 1000 * pct(ttft, 0.99), 1000 * pct(itl, 0.5), 1000 * pct(itl, 0.99)));
                }
            }
            return 0;
        } catch (Exception e) {
            err.println("bench serve failed: " + e);
            return 1;
        }
    }

    /** A second session for the server, so the generator baseline's session stays free. */
    private static ModelSession openAgain(Path dir) {
        return ModelSession.open(PluginRegistry.discover(Optional.empty()), dir, KvScheme.identity(), Optional.empty());
    }

    /** {@code clients} concurrent clients, each sending {@code requests} streamed requests one after another. */
    private static List<Sample> level(HttpClient http, URI uri, ObjectMapper mapper, String prompt, int maxTokens, int clients,
                                      int requests) throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<List<Sample>>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                futures.add(pool.submit(() -> {
                    List<Sample> mine = new ArrayList<>();
                    for (int r = 0; r < requests; r++) mine.add(stream(http, uri, mapper, prompt, maxTokens, client * 1000L + r));
                    return mine;
                }));
            }
            List<Sample> all = new ArrayList<>();
            for (Future<List<Sample>> f : futures) all.addAll(f.get());
            return all;
        }
    }

    private static Sample stream(HttpClient http, URI uri, ObjectMapper mapper, String prompt, int maxTokens, long seed) throws Exception {
        String body = mapper.writeValueAsString(Map.of("prompt", prompt, "max_tokens", maxTokens, "temperature", 0.8, "seed", seed,
                "stream", true, "ignore_eos", true, "stream_options", Map.of("include_usage", true)));
        long start = System.nanoTime();
        HttpResponse<java.io.InputStream> res = http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        if (res.statusCode() != 200) throw new IllegalStateException("HTTP " + res.statusCode() + ": " + new String(res.body().readAllBytes(), StandardCharsets.UTF_8));
        List<Double> gaps = new ArrayList<>();
        double first = -1;
        long last = 0;
        int tokens = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (!line.startsWith("data: ") || line.equals("data: [DONE]")) continue;
                JsonNode chunk = mapper.readTree(line.substring(6));
                if (chunk.has("usage") && chunk.get("usage").isObject()) tokens = chunk.get("usage").get("completion_tokens").asInt();
                JsonNode choices = chunk.path("choices");
                if (choices.isEmpty() || choices.get(0).path("text").asText().isEmpty()) continue;
                long now = System.nanoTime();
                if (first < 0) first = (now - start) / 1e9; else gaps.add((now - last) / 1e9);
                last = now;
            }
        }
        return new Sample(first, gaps.stream().mapToDouble(Double::doubleValue).toArray(), tokens, (System.nanoTime() - start) / 1e9);
    }

    private static int[] promptOf(Tokenizer tokenizer, int tokens) {
        StringBuilder text = new StringBuilder();
        while (tokenizer.encode(text.toString(), true).length < tokens) text.append(TEXT);
        return Arrays.copyOf(tokenizer.encode(text.toString(), true), tokens);
    }

    private static double pct(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1 < 0 ? 0 : (int) Math.ceil(q * sorted.length) - 1)];
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static void report(PrintWriter out, ObjectMapper mapper, boolean json, Map<String, Object> row, String header, String line) {
        try {
            if (json) out.println(mapper.writeValueAsString(row));
            else {
                if (header != null) out.println(header);
                out.println(line);
            }
            out.flush();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Options parse(List<String> args) {
        Path model = null;
        List<Integer> clients = List.of(1, 8, 32);
        int prompt = 64, max = 64, requests = 3, batch = 8;
        boolean json = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--json")) {
                json = true;
                continue;
            }
            if (i + 1 >= args.size()) throw new IllegalArgumentException(a + ": needs a value");
            String v = args.get(++i);
            try {
                switch (a) {
                    case "--model" -> model = Path.of(v);
                    case "--clients" -> clients = Arrays.stream(v.split(",")).map(String::strip).map(Integer::parseInt).toList();
                    case "--prompt-tokens" -> prompt = Integer.parseInt(v);
                    case "--max-tokens" -> max = Integer.parseInt(v);
                    case "--requests-per-client" -> requests = Integer.parseInt(v);
                    case "--max-batch" -> batch = Integer.parseInt(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(a + ": expected a number, found '" + v + "'");
            }
        }
        if (clients.isEmpty() || clients.stream().anyMatch(c -> c < 1)) throw new IllegalArgumentException("--clients: expected positive counts");
        if (prompt < 1 || max < 1 || requests < 1 || batch < 1) throw new IllegalArgumentException("counts must be at least 1");
        return new Options(model, clients, prompt, max, requests, batch, json);
    }
}
