package panamax.bench.codecs;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;
import panamax.bench.jit.JitActivity;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;

/**
 * {@code panamax bench codecs}: for head dims 64 and 128 and every codec setting, measures on
 * random unit vectors the MSE distortion, the inner-product distortion and bias, the stored bits
 * and bytes, encode / decode throughput, one decode step of attention over a long encoded cache
 * (compared with the identity cache of the same length), and the backend's large-copy bandwidth in
 * the same run. Prints a table, or with {@code --json} one JSON object per line.
 *
 * {@snippet :
 * // what the CLI runs for `panamax bench codecs --json`
 * int status = CodecBench.run(List.of("--json"), new PrintWriter(System.out, true), new PrintWriter(System.err, true));
 * // or on a backend the CLI already holds
 * int same = CodecBench.run(List.of("--json"), backend, writerOut, writerErr);
 * }
 *
 * <p>Options: {@code --json}, {@code --backend ID} (default {@code java}), {@code --head-dims 64,128},
 * {@code --tokens N} (attention cache length, default 8192), {@code --encode-tokens N} (tokens per
 * timed encode, default 2048), {@code --threads N} (backend threads, default all cores),
 * {@code --copy-mib N} (size of the copy that measures bandwidth, default 128), {@code --reps N} (timed encode and decode calls, default 200),
 * {@code --in-process} (every case in this JVM; the default runs each in a JVM of its own, see
 * {@link CaseProcesses}), {@code --codecs identity,affine,turboquant} (which codecs' cases to run),
 * {@code --warmup-ms N} (untimed run of each timed quantity right before it is timed, default 1000),
 * {@code --case HEAD_DIM:INDEX} (only that case: what a forked JVM runs).
 */
public final class CodecBench {
    private CodecBench() {
    }

    public static void main(String[] args) {
        int status = run(List.of(args), new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        if (status != 0) System.exit(status);
    }

    /**
     * Parses {@code args}, creates the backend through {@link ServiceLoader} and prints the results
     * to {@code out}. Returns the process exit status (2 for bad arguments or a missing backend).
     */
    public static int run(List<String> args, PrintWriter out, PrintWriter err) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(BenchOptions.USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(BenchOptions.USAGE);
            return 0;
        }
        if (options.caseId() == null && !options.inProcess()) {
            var launcher = CaseProcesses.currentLauncher();
            if (launcher.isPresent()) return runForked(launcher.get(), args, options, out, err);
        }
        List<String> found = new ArrayList<>();
        for (BackendProvider provider : ServiceLoader.load(BackendProvider.class)) {
            found.add(provider.id());
            if (!provider.id().equals(options.backend())) continue;
            var unavailable = provider.unavailableReason();
            if (unavailable.isPresent()) {
                err.println("backend " + options.backend() + " is unavailable: " + unavailable.get());
                return 2;
            }
            try (Backend backend = provider.create(new BackendOptions(options.threads(), java.util.Optional.empty(),
                    java.util.Map.of()))) {
                run(backend, options, out);
            }
            return 0;
        }
        err.println("--backend " + options.backend() + ": no such backend; found " + (found.isEmpty() ? "none" : found));
        return 2;
    }

    /**
     * Every case in a JVM of its own ({@link CaseProcesses}); the children check the backend, so a
     * bad {@code --backend} is reported by the first and stops the run.
     */
    private static int runForked(List<String> launcher, List<String> args, BenchOptions options, PrintWriter out, PrintWriter err) {
        if (!options.json()) {
            out.printf("backend %s; every case in a JVM of its own (warmed up on that case and identity only); attention over %d"
                    + " tokens (B=1, Hq=32, Hkv=8, Tq=1); throughputs in GB/s of bf16-equivalent K/V; copy = that JVM's"
                    + " large-copy bandwidth%n", options.backend(), options.attentionTokens());
            out.printf("median / best of %d timed runs after one untimed run (attention: %d after %d)%n",
                    options.reps(), Math.max(CodecMeter.ATTENTION_REPS, options.reps()), CodecMeter.ATTENTION_WARMUP);
            out.println(Measurement.header());
        }
        int failed = 0;
        for (int headDim : options.headDims()) {
            List<BenchCase> cases = BenchCase.defaults(headDim);
            for (int index = 0; index < cases.size(); index++) {
                if (!options.selects(cases.get(index))) continue;
                int status = CaseProcesses.run(launcher, args, headDim, index, out, err);
                if (status == 2) return 2; // bad arguments or backend: every other case would say the same
                if (status != 0) {
                    err.println("bench codecs: case " + headDim + ":" + index + " failed (exit status " + status + ")");
                    failed++;
                }
            }
        }
        return failed == 0 ? 0 : 1;
    }

    /**
     * Like {@link #run(List, PrintWriter, PrintWriter)} on a backend the caller already created
     * (borrowed, left open); {@code --backend} and {@code --threads} are then ignored.
     */
    public static int run(List<String> args, Backend backend, PrintWriter out, PrintWriter err) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(BenchOptions.USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(BenchOptions.USAGE);
            return 0;
        }
        run(backend, options, out);
        return 0;
    }

    /** Runs every case (or only {@code --case}'s) on a borrowed backend and prints as {@code options} say. */
    static void run(Backend backend, BenchOptions options, PrintWriter out) {
        CodecMeter meter = new CodecMeter(backend, options.attentionTokens(), options.encodeTokens(), options.copyMib(), options.reps(),
                options.warmupMillis());
        if (options.caseId() != null) {
            int headDim = options.caseId()[0];
            List<BenchCase> cases = BenchCase.defaults(headDim);
            BenchCase c = cases.get(options.caseId()[1]);
            BenchCase identity = identity(cases);
            warmUp(meter, c == identity ? List.of(c) : List.of(identity, c), options.warmupMillis() == 0);
            Measurement m = meter.measure(c, meter.copyGbps(), c == identity ? null : identity, true);
            out.println(options.json() ? m.json() : m.row());
            out.flush();
            return;
        }
        List<BenchCase> all = new ArrayList<>();
        for (int headDim : options.headDims()) {
            // identity is warmed up whatever --codecs says: every codec's attention alternates with it
            all.addAll(BenchCase.defaults(headDim).stream().filter(c -> options.selects(c) || c.codec().equals("identity")).toList());
        }
        int rounds = warmUp(meter, all, options.warmupMillis() == 0);
        double copyGbps = meter.copyGbps();
        if (!options.json()) {
            out.printf("backend %s; every case in this JVM; copy bandwidth %.2f GB/s; attention over %d tokens (B=1, Hq=32, Hkv=8,"
                            + " Tq=1); throughputs in GB/s of bf16-equivalent K/V%n",
                    backend.name(), copyGbps, options.attentionTokens());
            out.printf("median / best of %d timed runs after one untimed run (attention: %d after %d); every case warmed up %d times first%n",
                    options.reps(), Math.max(CodecMeter.ATTENTION_REPS, options.reps()), CodecMeter.ATTENTION_WARMUP, rounds);
            out.println(Measurement.header());
        }
        for (int headDim : options.headDims()) {
            List<BenchCase> cases = BenchCase.defaults(headDim);
            BenchCase identity = identity(cases);
            for (BenchCase c : cases) {
                if (!options.selects(c)) continue;
                Measurement m = meter.measure(c, copyGbps, c == identity ? null : identity, false);
                out.println(options.json() ? m.json() : m.row());
                out.flush();
            }
        }
    }

    private static BenchCase identity(List<BenchCase> cases) {
        return cases.stream().filter(c -> c.codec().equals("identity")).findFirst().orElseThrow();
    }

    /**
     * Warms up {@code cases} twice, then (up to 8 rounds) lets the JIT finish its queue and warms up
     * again while a round still compiles: a kernel whose compile is still queued when its case is
     * timed runs in C1 code, 10-100x slower (seen on a loaded machine, where the queue waits for the
     * CPU the warm-up itself takes). With {@code --warmup-ms 0} (quick runs: the tests) one round and
     * no waiting. Returns the rounds run.
     */
    private static int warmUp(CodecMeter meter, List<BenchCase> cases, boolean quick) {
        int rounds = 0;
        for (long compiled = JitActivity.millis(), before = -1;
             rounds < (quick ? 1 : 2) || !quick && rounds < 8 && compiled - before > 100; rounds++) {
            if (rounds >= 2) JitActivity.awaitQuiet(500, 20_000);
            for (BenchCase c : cases) meter.warmUp(c);
            before = compiled;
            compiled = JitActivity.millis();
        }
        return rounds;
    }

    /**
     * Command-line options of the benchmark.
     */
    record BenchOptions(boolean json, boolean help, String backend, int[] headDims, int attentionTokens, int encodeTokens,
                        int threads, int copyMib, int reps, boolean inProcess, int[] caseId, List<String> codecs,
                        int warmupMillis) {
        static final String USAGE = "usage: panamax bench codecs [--json] [--backend ID] [--head-dims 64,128]"
                + " [--codecs identity,affine,turboquant] [--tokens N] [--encode-tokens N] [--threads N] [--copy-mib N] [--reps N] [--warmup-ms N] [--in-process]"
                + " [--case HEAD_DIM:INDEX]";

        static BenchOptions parse(List<String> args) {
            boolean json = false;
            boolean help = false;
            String backend = "java";
            int[] headDims = {64, 128};
            int tokens = 8192;
            int encodeTokens = 2048;
            int threads = 0;
            int copyMib = 128;
            // 200: a call takes 0.2-2 ms, and a median of 20 was a 4-40 ms window. The 1-2 medians per full run that
            // read half their best with 20 (5.0-6.6 GB/s against 10.9-12.0) were the backend's helper thread waking
            // late (Parallel's helpers now poll before they park), not the window's length
            int reps = 200;
            boolean inProcess = false;
            int[] caseId = null;
            List<String> codecs = CODECS;
            int warmupMillis = (int) CodecMeter.WARMUP_MILLIS;
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                switch (a) {
                    case "--json" -> json = true;
                    case "--help", "-h" -> help = true;
                    case "--backend" -> backend = value(args, ++i, a);
                    case "--head-dims" -> headDims = Arrays.stream(value(args, ++i, a).split(","))
                            .mapToInt(s -> positive(s.trim(), a)).toArray();
                    case "--tokens" -> tokens = positive(value(args, ++i, a), a);
                    case "--encode-tokens" -> encodeTokens = positive(value(args, ++i, a), a);
                    case "--threads" -> threads = positive(value(args, ++i, a), a);
                    case "--copy-mib" -> copyMib = positive(value(args, ++i, a), a);
                    case "--reps" -> reps = positive(value(args, ++i, a), a);
                    case "--in-process" -> inProcess = true;
                    case "--warmup-ms" -> warmupMillis = nonNegative(value(args, ++i, a), a);
                    case "--codecs" -> codecs = codecs(value(args, ++i, a));
                    case "--case" -> caseId = caseId(value(args, ++i, a));
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            return new BenchOptions(json, help, backend, headDims, tokens, encodeTokens, threads, copyMib, reps, inProcess, caseId, codecs, warmupMillis);
        }

        static final List<String> CODECS = List.of("identity", "affine", "turboquant");

        /** Whether {@code --codecs} includes the case's codec. */
        boolean selects(BenchCase c) {
            return codecs.contains(c.codec());
        }

        private static List<String> codecs(String s) {
            List<String> codecs = Arrays.stream(s.split(",")).map(String::trim).toList();
            for (String codec : codecs) {
                if (!CODECS.contains(codec)) throw new IllegalArgumentException("--codecs: expected a list of " + CODECS + ", found " + codec);
            }
            return codecs;
        }

        /** {@code HEAD_DIM:INDEX}, INDEX into {@link BenchCase#defaults} of that head dim. */
        private static int[] caseId(String s) {
            String[] parts = s.split(":");
            if (parts.length == 2) {
                int headDim = positive(parts[0], "--case");
                int index;
                try {
                    index = Integer.parseInt(parts[1]);
                } catch (NumberFormatException e) {
                    index = -1;
                }
                int count = BenchCase.defaults(headDim).size();
                if (index >= 0 && index < count) return new int[] {headDim, index};
                throw new IllegalArgumentException("--case: expected HEAD_DIM:INDEX with INDEX in 0.." + (count - 1) + ", found " + s);
            }
            throw new IllegalArgumentException("--case: expected HEAD_DIM:INDEX, found " + s);
        }

        private static String value(List<String> args, int i, String option) {
            if (i >= args.size()) throw new IllegalArgumentException(option + ": missing value");
            return args.get(i);
        }

        private static int nonNegative(String s, String option) {
            try {
                int v = Integer.parseInt(s);
                if (v >= 0) return v;
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + ": expected a non-negative integer, found " + s);
        }

        private static int positive(String s, String option) {
            try {
                int v = Integer.parseInt(s);
                if (v > 0) return v;
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + ": expected a positive integer, found " + s);
        }
    }
}
