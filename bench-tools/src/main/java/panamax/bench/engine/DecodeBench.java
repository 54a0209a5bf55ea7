package panamax.bench.engine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import panamax.api.memory.HugePageMemory;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.engine.plan.ModelResolver;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.wiring.Engine;
import panamax.model.support.weights.WeightFiles;

/**
 * {@code panamax bench decode}: for each weight format, writes a random Llama checkpoint to a
 * temporary Hugging Face directory, loads it through the engine's model resolution and the model
 * plugin (as {@code panamax generate} would), times a batch-1 prefill and decode at each batch size,
 * and compares every rate with the floor from read bandwidth and FMA peak measured in this JVM.
 * The temporary directory is deleted afterwards, also on failure.
 */
public final class DecodeBench {
    private DecodeBench() {
    }

    /** Runs the benchmark; returns 0, 1 on a failed run, 2 on bad arguments. */
    public static int run(List<String> args, PrintWriter out, PrintWriter err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(DecodeOptions.USAGE);
            out.flush();
            return 0;
        }
        DecodeOptions o;
        try {
            o = DecodeOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("panamax bench decode: " + e.getMessage());
            return 2;
        }
        try {
            return run(o, out, err);
        } catch (panamax.api.error.PanamaxException e) {
            err.println("panamax bench decode: " + e.getMessage()); // already names the file, flag or codec
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("panamax bench decode: " + e);
            return 1;
        }
    }

    private static int run(DecodeOptions o, PrintWriter out, PrintWriter err) throws IOException {
        String loadBefore = loadAverage();
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        Engine engine = Engine.start(registry);
        var backendProvider = registry.backends().stream().filter(b -> b.id().equals(o.backend())).findFirst()
                .orElseThrow(() -> new panamax.api.error.UnsupportedCombinationException("--backend " + o.backend(),
                        List.of("expected one of " + registry.backends().stream().map(b -> b.id()).toList())));
        backendProvider.provider().unavailableReason().ifPresent(reason -> {
            throw new panamax.api.error.UnsupportedCombinationException("--backend " + o.backend(), List.of("unavailable: " + reason));
        });
        err.println("model: " + o.shape().describe());
        err.printf(Locale.ROOT, "probing read bandwidth (%d MiB, %d threads) and FMA peak...%n", o.probeBytes() >> 20, o.threads());
        // probed before the first weight format and after each one; a format's floors use the faster of
        // the probes on either side of it. On this shared machine the read probe swings between ~30 and
        // ~55 GB/s with other tenants' traffic: one probe at the start made floors the decode then "beat"
        // (bf16 at 131 % of a 30.7 GB/s probe), and one probe for the whole run judges every format by a
        // moment that may be minutes away from its measurements
        List<MachineProbes.Yardsticks> probes = new ArrayList<>();
        probes.add(MachineProbes.measure(o.probeBytes(), o.threads(), 5));
        err.println(yardsticksLine(probes.getFirst(), o));
        List<BenchRow> rows = new ArrayList<>();
        List<OpShare> shares = new ArrayList<>();
        List<KvComparison> comparisons = new ArrayList<>();
        try (Backend backend = backendProvider.provider().create(BackendOptions.defaults())) {
            for (WeightFormat f : o.weights()) {
                List<PendingRow> measured = runFormat(o, f, engine, backend, err, shares, comparisons);
                err.printf(Locale.ROOT, "probing read bandwidth and FMA peak again...%n");
                probes.add(MachineProbes.measure(o.probeBytes(), o.threads(), 5));
                err.println(yardsticksLine(probes.getLast(), o));
                MachineProbes.Yardsticks around = probes.get(probes.size() - 2).best(probes.getLast());
                for (PendingRow r : measured) rows.add(r.judged(around));
            }
        }
        MachineProbes.Yardsticks y = probes.stream().reduce(MachineProbes.Yardsticks::best).orElseThrow();
        StringBuilder header = new StringBuilder();
        for (int i = 0; i < probes.size(); i++) {
            header.append(i == 0 ? "probe before " : "probe after ").append(i == 0 ? o.weights().getFirst().label : o.weights().get(i - 1).label)
                    .append(": ").append(yardsticksLine(probes.get(i), o)).append('\n');
        }
        header.append("each format's floors use the faster of the probes before and after it");
        String loadAfter = loadAverage();
        if (o.json()) {
            out.printf(Locale.ROOT, "{\"kind\":\"machine\",\"read_bytes_per_s\":%.1f,\"fma_flops_per_s\":%.1f,"
                            + "\"read_bytes_per_s_probes\":%s,\"fma_flops_per_s_probes\":%s,\"threads\":%d,"
                            + "\"lanes\":%d,\"cores\":%d,\"load_before\":\"%s\",\"load_after\":\"%s\",\"model\":\"%s\",\"backend\":\"%s\"}%n",
                    y.readBytesPerSecond(), y.flopsPerSecond(), jsonArray(probes, MachineProbes.Yardsticks::readBytesPerSecond),
                    jsonArray(probes, MachineProbes.Yardsticks::flopsPerSecond), o.threads(), y.lanes(), Runtime.getRuntime().availableProcessors(),
                    loadBefore, loadAfter, o.shape().describe(), backendProvider.id());
            for (BenchRow r : rows) out.println(r.json());
            for (KvComparison c : comparisons) out.println(c.json());
            for (OpShare op : shares) out.println(op.json());
        } else {
            out.println("panamax bench decode, " + Instant.now().truncatedTo(ChronoUnit.SECONDS)
                    + (o.model().isPresent() ? ", model " + o.model().get() : ", preset " + o.presetName())
                    + ": " + o.shape().describe());
            out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores; java " + Runtime.version()
                    + "; backend " + backendProvider.id() + "; KV " + o.kv().codec() + o.kv().codecParams()
                    + "; load average (1/5/15 min) before: " + loadBefore + ", after: " + loadAfter);
            out.println(header);
            out.println();
            out.println(BenchRow.tableHeader());
            for (BenchRow r : rows) out.println(r.tableLine());
            out.println();
            out.println("floor = max(bytes streamed per pass / read bandwidth, FLOPs per pass / FMA peak); decode bytes ="
                    + (o.shape().moe() ? " the active weights (attention, routers, head, and the experts routed to: k per token, the expected"
                    + " distinct ones for a batch, under uniform routing)" : " all weights")
                    + " + every row's KV cache; tok/s counts every row. Targets are judged on the mean;"
                    + " 'best step' is the fastest single step, comparable to the probes' best pass on a shared machine.");
            if (!comparisons.isEmpty()) {
                out.println();
                out.println("KV " + o.kv().codec() + o.kv().codecParams() + " against the identity cache, measured batch by batch in this run"
                        + " (the two caches' steps in turn, same model and context):");
                out.println();
                out.println(KvComparison.tableHeader());
                for (KvComparison c : comparisons) out.println(c.tableLine());
            }
            if (!shares.isEmpty()) {
                out.println();
                double minShare = breakdownMinShare(err);
                out.println("wall-clock time per decode step by backend op (instrumented run; ops under " + minShare * 100 + "% left out):");
                out.println();
                out.println(OpShare.tableHeader());
                for (OpShare op : shares) if (op.share() >= minShare) out.println(op.tableLine());
            }
        }
        return 0;
    }

    /** "; step medians by tenth: …" for the stderr line, or nothing when too few steps were timed. */
    private static String tenths(DecodeMeasurement.Decode d) {
        double[] medians = d.tenthMedianMillis();
        if (medians.length == 0) return "";
        StringBuilder sb = new StringBuilder("; step medians by tenth, ms:");
        for (double m : medians) sb.append(String.format(Locale.ROOT, " %.3g", m));
        return sb.toString();
    }

    private static List<PendingRow> runFormat(DecodeOptions o, WeightFormat f, Engine engine, Backend backend,
                                              PrintWriter err, List<OpShare> shares, List<KvComparison> comparisons) throws IOException {
        boolean random = o.model().isEmpty();
        Optional<Path> kept = random ? o.savedCheckpoint(f) : Optional.empty();
        Path dir = o.model().orElse(null);
        if (random) {
            Path parent = kept.map(Path::getParent).orElse(o.tmp());
            Files.createDirectories(parent);
            dir = Files.createTempDirectory(parent, kept.isPresent() ? "." + kept.get().getFileName() + ".partial-" : "panamax-bench-decode-");
        }
        boolean keep = false;
        try {
            if (random) {
                long start = System.nanoTime();
                long bytes = RandomCheckpoint.write(dir, o.shape(), f, o.seed(), backend);
                if (kept.isPresent()) {
                    // written whole under a hidden name first, so an interrupted run leaves no checkpoint that looks complete
                    Files.move(dir, kept.get(), StandardCopyOption.ATOMIC_MOVE);
                    dir = kept.get();
                    keep = true;
                }
                err.printf(Locale.ROOT, "%s: wrote %.2f GB of random weights to %s in %.1f s%s%n", f.label, bytes / 1e9, dir,
                        (System.nanoTime() - start) / 1e9, keep ? " (kept: measure it again with --model " + dir + ")" : "");
            }
            ModelResolver resolved = ModelResolver.resolve(dir, engine.models());
            ModelPlugin plugin = engine.models().get(resolved.plugin());
            List<PendingRow> rows = new ArrayList<>();
            for (LoadOptions.Weights memory : o.memories()) {
                // the default (mapped) keeps the format's plain label; anything else says where the weights were
                String label = o.memories().equals(List.of(LoadOptions.Weights.AUTO)) ? f.label : f.label + "/" + memory.name().toLowerCase(Locale.ROOT);
                LoadOptions load = LoadOptions.defaults().withWeights(memory);
                // auto's choice depends on the memory free at the time, so say which one was measured
                String placed = memory != LoadOptions.Weights.AUTO ? ""
                        : WeightFiles.placement(dir, memory) == LoadOptions.Weights.COPY ? " (auto: copied into huge pages)" : " (auto: memory-mapped)";
                long loadStart = System.nanoTime();
                try (RuntimeModel model = plugin.load(dir, backend, load)) {
                    err.printf(Locale.ROOT, "%s: loaded in %.2f s%s%n", label, (System.nanoTime() - loadStart) / 1e9, placed);
                    DecodeMeasurement m = new DecodeMeasurement(engine, resolved.spec(), o.kv(), model.graph(), backend, o.seed());
                    DecodeMeasurement baseline = o.kvBaseline()
                            .map(kv -> new DecodeMeasurement(engine, resolved.spec(), kv, model.graph(), backend, o.seed())).orElse(null);
                    // A short untimed pass first, so the timed ones run compiled code. With a prefill to measure, that
                    // prefill's own warm-up goes first instead, as a prompt does in generate: a backend may decide a
                    // weight's form at its first product, by how many rows that product has.
                    if (o.prefillTokens() == 0) {
                        m.decode(1, Math.min(o.context(), 32), 2, 2, false);
                        if (baseline != null) baseline.decode(1, Math.min(o.context(), 32), 2, 2, false);
                    }
                    rows.addAll(measure(o, f, label, m, baseline, err, comparisons));
                }
                if (o.breakdown()) shares.addAll(breakdown(o, f, label, load, engine, backend, dir, resolved, err));
            }
            return rows;
        } finally {
            if (random && !keep) deleteRecursively(dir);
        }
    }

    private static List<PendingRow> measure(DecodeOptions o, WeightFormat f, String label, DecodeMeasurement m, DecodeMeasurement baseline,
                                            PrintWriter err, List<KvComparison> comparisons) {
        List<PendingRow> rows = new ArrayList<>();
        if (o.prefillTokens() > 0) {
            DecodeMeasurement.Prefill p = m.prefill(o.prefillTokens());
            double prefillTarget = o.shape().moe() ? 0 : WeightFormat.BATCHED_TARGET;
            rows.add(new PendingRow(label, "prefill", 1, p.tokens(), p.tokensPerSecond(), p.bestTokensPerSecond(), 0,
                    Floor.prefill(o.shape(), f, p.tokens()), p.tokens(), prefillTarget > 0 ? percentOfFloor(prefillTarget) : "",
                    prefillTarget));
            err.printf(Locale.ROOT, "%s: prefill %d tokens in %.2f s (mean of %d after the JIT's warm-up; fastest %.2f s)%n", label, p.tokens(),
                    p.seconds(), p.passes(), p.fastest());
        }
        for (int batch : o.batches()) {
            // against the identity cache, the two caches' steps taken in turn, so both see the machine's load of the moment
            DecodeMeasurement.Decode base = null, d;
            if (baseline != null) {
                DecodeMeasurement.Paired pair = DecodeMeasurement.decodePaired(baseline, m, batch, o.context(), o.warmup(), o.steps(),
                        o.realPrefill());
                base = pair.first();
                d = pair.second();
            } else {
                d = m.decode(batch, o.context(), o.warmup(), o.steps(), o.realPrefill());
            }
            if (base != null) {
                comparisons.add(new KvComparison(label, o.kv().codec() + o.kv().codecParams(), batch, o.context(),
                        base.aggregateTokensPerSecond(), d.aggregateTokensPerSecond(), base.fastestStepTokensPerSecond(),
                        d.fastestStepTokensPerSecond()));
                err.printf(Locale.ROOT, "%s: decode batch %d with the identity cache: %d steps in %.2f s%s%n", label, batch, base.steps(),
                        base.seconds(), tenths(base));
            }
            double midContext = d.timedFrom() + o.steps() / 2.0;
            if (o.kv().maxKvSize().isPresent()) midContext = Math.min(midContext, o.kv().maxKvSize().getAsInt()); // a window holds no more
            Floor floor = Floor.decodeStep(o.shape(), f, batch, midContext, d.kvBytesPerToken());
            double rate = d.aggregateTokensPerSecond();
            double floorTarget = 0;
            if (batch == 1) floorTarget = o.shape().moe() ? f.moeBatchOneTarget() : f.batchOneTarget();
            else if (batch == 8 && !o.shape().moe()) floorTarget = WeightFormat.BATCHED_TARGET;
            rows.add(new PendingRow(label, "decode", batch, o.context(), rate, d.fastestStepTokensPerSecond(), d.warmupSteps(), floor,
                    batch, floorTarget > 0 ? percentOfFloor(floorTarget) : "", floorTarget));
            err.printf(Locale.ROOT, "%s: decode batch %d: %d steps in %.2f s (after %d warm-up steps%s)%s%n", label, batch, d.steps(), d.seconds(),
                    d.warmupSteps(), d.faults().known()
                            ? String.format(Locale.ROOT, "; %d minor, %d major page faults while timed", d.faults().minor(), d.faults().major()) : "",
                    tenths(d));
        }
        return rows;
    }

    private static String percentOfFloor(double target) {
        return String.format(Locale.ROOT, ">= %.0f%% of floor", 100 * target);
    }

    /**
     * A measurement whose floor is judged once the probes around it have run: the pass's work, the
     * tokens one pass produces, and its target as a fraction of the floor ({@code floorTarget}; 0: none).
     */
    record PendingRow(String weights, String phase, int batch, int context, double tokensPerSecond, double bestTokensPerSecond,
                      int warmupSteps, Floor floor, int tokensPerPass, String target, double floorTarget) {
        BenchRow judged(MachineProbes.Yardsticks y) {
            double floorRate = floor.tokensPerSecond(tokensPerPass, y);
            boolean met = floorTarget > 0 && tokensPerSecond >= floorTarget * floorRate;
            return new BenchRow(weights, phase, batch, context, tokensPerSecond, bestTokensPerSecond, floorRate, floor.memoryBound(y),
                    target, met, warmupSteps);
        }
    }

    private static String jsonArray(List<MachineProbes.Yardsticks> probes, java.util.function.ToDoubleFunction<MachineProbes.Yardsticks> value) {
        return probes.stream().map(p -> String.format(Locale.ROOT, "%.1f", value.applyAsDouble(p)))
                .collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }

    private static String yardsticksLine(MachineProbes.Yardsticks y, DecodeOptions o) {
        return String.format(Locale.ROOT, "read bandwidth %.1f GB/s (best of 5 passes over %d MiB%s, %d threads), "
                        + "f32 FMA peak %.1f GFLOP/s (12 chains x %d lanes, %d threads)",
                y.readBytesPerSecond() / 1e9, o.probeBytes() >> 20, HugePageMemory.advised() ? " of huge pages" : "", o.threads(),
                y.flopsPerSecond() / 1e9, y.lanes(), o.threads());
    }

    /** Loads the model again over a timing backend and times each op of the decode steps, per batch. */
    private static List<OpShare> breakdown(DecodeOptions o, WeightFormat f, String label, LoadOptions load, Engine engine,
                                           Backend backend, Path dir, ModelResolver resolved, PrintWriter err) {
        OpTimer timer = new OpTimer();
        Backend timed = timer.wrap(backend);
        List<OpShare> out = new ArrayList<>();
        try (RuntimeModel model = engine.models().get(resolved.plugin()).load(dir, timed, load)) {
            DecodeMeasurement m = new DecodeMeasurement(engine, resolved.spec(), o.kv(), model.graph(), timed, o.seed())
                    .recordingInto(timer);
            for (int batch : o.batches()) {
                DecodeMeasurement.Decode d = m.decode(batch, o.context(), o.warmup(), o.steps(), o.realPrefill());
                double stepSeconds = d.seconds() / d.steps();
                for (var e : timer.drain()) {
                    double perStep = e.getValue().nanos / 1e9 / d.steps();
                    out.add(new OpShare(label, batch, e.getKey(), perStep * 1e3, (double) e.getValue().calls / d.steps(),
                            perStep / stepSeconds, stepSeconds * 1e3));
                }
                err.printf(Locale.ROOT, "%s: breakdown of batch %d: %.1f ms per step%n", label, batch, stepSeconds * 1e3);
            }
        }
        return out;
    }

    /**
     * Smallest share of a step an op needs to get a line in the breakdown: 1 %, or the system property
     * {@code panamax.breakdown.min} ({@code PANAMAX_JAVA_OPTS=-Dpanamax.breakdown.min=0} lists every op).
     */
    private static double breakdownMinShare(PrintWriter err) {
        String value = System.getProperty("panamax.breakdown.min", "0.01");
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            err.println("panamax.breakdown.min: expected a fraction such as 0.01, found '" + value + "'; using 0.01");
            return 0.01;
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")"; // no /proc: not Linux
        }
    }
}
