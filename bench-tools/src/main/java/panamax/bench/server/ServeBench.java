package panamax.bench.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import panamax.api.model.Tokenizer;
import panamax.api.plan.KvScheme;
import panamax.bench.jit.JitActivity;
import panamax.demo.DemoModel;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.SchedulerStats;
import panamax.engine.serve.ServingConfig;
import panamax.server.PanamaxServer;
import panamax.server.ServerOptions;

/**
 * {@code panamax bench serve}: starts the server in-process on loopback and drives it with 1..N
 * concurrent streaming clients ({@code /v1/completions}, seeded sampling, {@code ignore_eos} so
 * every request generates its full {@code --max-tokens}). Per concurrency it prints aggregate
 * generated tok/s, time to first token and inter-token latency (p50/p99) and their ratio to the
 * 1-client level, and the share of the wall time the scheduler thread spent in forward steps
 * ({@code busy}) and of that the share spent prefilling. The serving overhead is measured against the in-process generator (what
 * {@code panamax generate} runs) on the same prompt, seed and token count: one generate and one
 * 1-client HTTP request alternate {@code --rounds} times, in alternating order, after a warm-up of
 * both (and of the batched shapes) so that neither side measures the JIT compiling; medians are
 * reported. The clients run in the same process, so they share its cores with the server; they read
 * the streams over blocking sockets ({@link LoopbackSseClient}), kept alive between requests as the OpenAI
 * SDK's pool keeps them ({@code --reconnect}: a new connection per request).
 */
final class ServeBench {
    private static final String TEXT = "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my"
            + " purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part"
            + " of the world. It is a way I have of driving off the spleen and regulating the circulation. Whenever I find myself"
            + " growing grim about the mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself involuntarily"
            + " pausing before coffin warehouses, and bringing up the rear of every funeral I meet; then, I account it high time to get"
            + " to sea as soon as I can. This is my substitute for pistol and ball. ";
    private static final String COMPLETIONS = "/v1/completions";
    private static final String USAGE = "usage: panamax bench serve [--model DIR] [--clients 1,8,32] [--prompt-tokens 64] [--max-tokens 64]"
            + " [--requests-per-client 3] [--max-batch 8] [--prefill-step-ms 1000] [--rounds 5] [--warmup 3] [--reconnect] [--json]";

    private record Options(Path model, List<Integer> clients, int promptTokens, int maxTokens, int requests, int maxBatch,
                           int prefillStepMillis, int rounds, int warmup, boolean reconnect, boolean json) {
    }

    /** One streamed request as a client saw it. */
    private record Sample(double ttft, double[] gaps, int tokens, double seconds) {
    }

    /** Where the server listens and what each request asks for. */
    private record Target(LoopbackSseClient client, ObjectMapper mapper, String prompt, int maxTokens) {
    }

    private ServeBench() {
    }

    static int run(List<String> args, PrintWriter out, PrintWriter err) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("bench serve: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        ObjectMapper mapper = new ObjectMapper();
        Path dir = o.model() != null ? o.model() : DemoModel.directory();
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        double loadBefore = os.getSystemLoadAverage();
        try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), dir, KvScheme.identity(), Optional.empty())) {
            Tokenizer tokenizer = session.tokenizer();
            int[] prompt = promptOf(tokenizer, o.promptTokens());
            String promptText = tokenizer.decode(prompt, true);
            int[] encoded = tokenizer.encode(promptText, true);
            err.println("prompt: " + encoded.length + " tokens; max tokens " + o.maxTokens() + "; model " + dir);
            ServingConfig config = ServingConfig.defaults().withMaxBatch(o.maxBatch()).withPrefixCacheShare(0)
                    .withPrefillStepMillis(o.prefillStepMillis())
                    .withMaxQueue(Math.max(64, o.clients().stream().mapToInt(Integer::intValue).max().orElse(1) * 2));
            try (PanamaxServer server = PanamaxServer.start(ServerOptions.defaults().withPort(0));
                 LoopbackSseClient client = new LoopbackSseClient("127.0.0.1", server.port(), o.reconnect())) {
                server.serve(openAgain(dir), "bench", config);
                Target target = new Target(client, mapper, promptText, o.maxTokens());
                // Warm-up: both sides until the JIT has compiled their prefill and decode paths, then the batched shapes.
                for (int i = 0; i < o.warmup(); i++) {
                    generate(session, encoded, o.maxTokens(), -1 - i);
                    stream(target, -1 - i);
                }
                int widest = Math.min(o.maxBatch(), o.clients().stream().mapToInt(Integer::intValue).max().orElse(1));
                // then the batched shapes and the single stream again, until the JIT has been idle for half a second (20 s
                // at most): one batched level of two requests left C2 compiling into the timed levels, as it did
                // for bench decode's steps (there the demo model's first timed second ran 1.5x slower than the rest)
                if (o.warmup() > 0) {
                    JitActivity.runUntilQuiet(() -> {
                        if (widest > 1) level(target, widest, 2);
                        stream(target, -100);
                    });
                }

                double[] generated = new double[o.rounds()], served = new double[o.rounds()];
                for (int r = 0; r < o.rounds(); r++) { // the same seed on both sides; which goes first alternates
                    if (r % 2 == 0) generated[r] = generate(session, encoded, o.maxTokens(), r);
                    Sample s = stream(target, r);
                    served[r] = s.tokens() / s.seconds();
                    if (r % 2 == 1) generated[r] = generate(session, encoded, o.maxTokens(), r);
                }
                double generate = median(generated), http = median(served);
                Map<String, Object> overhead = new LinkedHashMap<>();
                overhead.put("mode", "overhead");
                overhead.put("rounds", o.rounds());
                overhead.put("generate_tok_s", round(generate));
                overhead.put("http_1_client_tok_s", round(http));
                overhead.put("ratio", round2(http / generate));
                overhead.put("generate_runs", Arrays.stream(generated).map(ServeBench::round).toArray());
                overhead.put("http_runs", Arrays.stream(served).map(ServeBench::round).toArray());
                report(out, mapper, o.json(), overhead, null, String.format(Locale.ROOT,
                        "serving overhead, %d alternating runs each (medians): generate %.1f tok/s, 1 client over HTTP %.1f tok/s = %.2fx",
                        o.rounds(), generate, http, http / generate));

                String header = String.format(Locale.ROOT, "%-9s %8s %9s %10s %10s %10s %10s %6s %9s %9s %11s", "clients", "requests", "tok/s",
                        "ttft p50", "ttft p99", "itl p50", "itl p99", "busy", "prefill", "tok/s x1", "ttft p99 x1");
                double oneTps = Double.NaN, oneTtft = Double.NaN;
                for (int clients : o.clients()) {
                    SchedulerStats before = server.scheduler().stats();
                    long t0 = System.nanoTime();
                    List<Sample> samples = level(target, clients, o.requests());
                    double wall = (System.nanoTime() - t0) / 1e9;
                    SchedulerStats after = settled(server.scheduler());
                    double prefill = after.prefillSeconds() - before.prefillSeconds(), decode = after.decodeSeconds() - before.decodeSeconds();
                    int tokens = samples.stream().mapToInt(Sample::tokens).sum();
                    // a request whose tokens all decode to no text (a random model's) has no first token to time
                    double[] ttft = samples.stream().mapToDouble(Sample::ttft).filter(t -> t >= 0).sorted().toArray();
                    double[] itl = samples.stream().flatMapToDouble(s -> Arrays.stream(s.gaps())).sorted().toArray();
                    double tps = tokens / wall;
                    if (clients == 1) {
                        oneTps = tps;
                        oneTtft = pct(ttft, 0.99);
                    }
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("mode", "serve");
                    row.put("clients", clients);
                    row.put("requests", samples.size());
                    row.put("tok_s", round(tps));
                    row.put("ttft_p50_ms", roundOrNull(1000 * pct(ttft, 0.5)));
                    row.put("ttft_p99_ms", roundOrNull(1000 * pct(ttft, 0.99)));
                    row.put("itl_p50_ms", roundOrNull(1000 * pct(itl, 0.5)));
                    row.put("itl_p99_ms", roundOrNull(1000 * pct(itl, 0.99)));
                    row.put("scheduler_busy", round2((prefill + decode) / wall));
                    row.put("prefill_share", round2(prefill / (prefill + decode)));
                    boolean vsOne = !Double.isNaN(oneTps); // only when the 1-client level ran first
                    if (vsOne) {
                        row.put("tok_s_vs_1_client", round2(tps / oneTps));
                        row.put("ttft_p99_vs_1_client", round2OrNull(pct(ttft, 0.99) / oneTtft));
                    }
                    report(out, mapper, o.json(), row, header, String.format(Locale.ROOT,
                            "%-9d %8d %9.1f %10s %10s %10s %10s %5.0f%% %8.0f%% %9s %11s",
                            clients, samples.size(), tps, millis(pct(ttft, 0.5)), millis(pct(ttft, 0.99)), millis(pct(itl, 0.5)),
                            millis(pct(itl, 0.99)), 100 * (prefill + decode) / wall, 100 * prefill / (prefill + decode), vsOne ? times(tps / oneTps) : "-",
                            vsOne ? times(pct(ttft, 0.99) / oneTtft) : "-"));
                    header = null;
                }
            }
            Map<String, Object> load = new LinkedHashMap<>();
            load.put("mode", "load");
            load.put("before", round2(loadBefore));
            load.put("after", round2(os.getSystemLoadAverage()));
            report(out, mapper, o.json(), load, null, String.format(Locale.ROOT,
                    "load average (1 min) %.2f before, %.2f after; the clients share this process's cores", loadBefore, os.getSystemLoadAverage()));
            return 0;
        } catch (Exception e) {
            err.println("bench serve failed: " + e);
            return 1;
        }
    }

    /**
     * The scheduler's stats once it is idle: it publishes its busy times after the step that
     * handed out the level's last tokens.
     */
    private static SchedulerStats settled(BatchScheduler scheduler) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        SchedulerStats s = scheduler.stats();
        while (s.runningRows() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
            s = scheduler.stats();
        }
        return s;
    }

    /** What {@code panamax generate} runs: the prompt through the in-process generator, end to end; returns generated tok/s. */
    private static double generate(ModelSession session, int[] prompt, int maxTokens, long seed) {
        long t0 = System.nanoTime();
        GenerationOutput g = session.generator().generate(new GenerationRequest(prompt, SamplingParams.sample(0.8, seed), maxTokens,
                java.util.Set.of()), GenerationListener.NONE);
        return g.stats().generatedTokens() / ((System.nanoTime() - t0) / 1e9);
    }

    /** A second session for the server, so the generator baseline's session stays free. */
    private static ModelSession openAgain(Path dir) {
        return ModelSession.open(PluginRegistry.discover(Optional.empty()), dir, KvScheme.identity(), Optional.empty());
    }

    /** {@code clients} concurrent clients, each sending {@code requests} streamed requests one after another. */
    private static List<Sample> level(Target target, int clients, int requests) throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<List<Sample>>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                futures.add(pool.submit(() -> {
                    List<Sample> mine = new ArrayList<>();
                    for (int r = 0; r < requests; r++) mine.add(stream(target, 1000L + client * 1000L + r));
                    return mine;
                }));
            }
            List<Sample> all = new ArrayList<>();
            for (Future<List<Sample>> f : futures) all.addAll(f.get());
            return all;
        }
    }

    /** Whether an SSE chunk of the server's compact JSON carries a non-empty completion text. */
    static boolean hasText(String line) {
        int at = line.indexOf("\"text\":\"");
        return at >= 0 && at + 8 < line.length() && line.charAt(at + 8) != '"';
    }

    private static Sample stream(Target target, long seed) throws Exception {
        ObjectMapper mapper = target.mapper();
        String body = mapper.writeValueAsString(Map.of("prompt", target.prompt(), "max_tokens", target.maxTokens(), "temperature", 0.8,
                "seed", seed, "stream", true, "ignore_eos", true, "stream_options", Map.of("include_usage", true)));
        List<Double> gaps = new ArrayList<>();
        long start = System.nanoTime();
        long[] firstAndLast = {-1, 0};
        int[] tokens = {0};
        target.client().post(COMPLETIONS, body, line -> {
            if (!line.startsWith("data: ") || line.equals("data: [DONE]")) return;
            long now = System.nanoTime();
            // the client shares the server's cores: only the usage chunk is parsed, token chunks are read as text
            if (!hasText(line)) {
                if (line.contains("\"usage\":{")) tokens[0] = mapper.readTree(line.substring(6)).get("usage").get("completion_tokens").asInt();
                return;
            }
            if (firstAndLast[0] < 0) firstAndLast[0] = now; else gaps.add((now - firstAndLast[1]) / 1e9);
            firstAndLast[1] = now;
        });
        double first = firstAndLast[0] < 0 ? -1 : (firstAndLast[0] - start) / 1e9;
        return new Sample(first, gaps.stream().mapToDouble(Double::doubleValue).toArray(), tokens[0], (System.nanoTime() - start) / 1e9);
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

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /** {@link #round}, or null (JSON's null) where there was nothing to measure. */
    private static Double roundOrNull(double v) {
        return Double.isNaN(v) ? null : round(v);
    }

    private static Double round2OrNull(double v) {
        return Double.isNaN(v) ? null : round2(v);
    }

    /** Seconds as milliseconds for the table, or "-" where there was nothing to measure. */
    static String millis(double seconds) {
        return Double.isNaN(seconds) ? "-" : String.format(Locale.ROOT, "%.1fms", 1000 * seconds);
    }

    static String times(double ratio) {
        return Double.isNaN(ratio) || Double.isInfinite(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio);
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
        int prompt = 64, max = 64, requests = 3, batch = 8, rounds = 5, warmup = 3, stepMillis = ServingConfig.DEFAULT_PREFILL_STEP_MILLIS;
        boolean json = false, reconnect = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--json")) {
                json = true;
                continue;
            }
            if (a.equals("--reconnect")) {
                reconnect = true;
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
                    case "--prefill-step-ms" -> stepMillis = Integer.parseInt(v);
                    case "--rounds" -> rounds = Integer.parseInt(v);
                    case "--warmup" -> warmup = Integer.parseInt(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(a + ": expected a number, found '" + v + "'");
            }
        }
        if (clients.isEmpty() || clients.stream().anyMatch(c -> c < 1)) throw new IllegalArgumentException("--clients: expected positive counts");
        if (prompt < 1 || max < 1 || requests < 1 || batch < 1 || rounds < 1) throw new IllegalArgumentException("counts must be at least 1");
        if (warmup < 0) throw new IllegalArgumentException("--warmup: expected 0 or more runs");
        if (stepMillis < 0) throw new IllegalArgumentException("--prefill-step-ms: expected 0 (no target) or more milliseconds, found " + stepMillis);
        return new Options(model, clients, prompt, max, requests, batch, stepMillis, rounds, warmup, reconnect, json);
    }
}
