package panamax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the kernel benchmarks through JMH's Runner API in one go and prints a Markdown table: the
 * machine's measured read bandwidth and FMA peak, then each kernel's time per operation, its
 * effective rate and its ratio against its target (bf16 matrix-vector ≥ 0.70 of read
 * bandwidth, 4-bit matrix-vector ≥ 2× the bf16 one, prefill ≥ 0.50 of FMA peak), PASS or MISS.
 *
 * <p>Usage: {@code java --add-modules jdk.incubator.vector -cp panamax-benchmarks.jar
 * panamax.bench.PerformanceReport [--out FILE] [jmh options]}. JMH options override the
 * annotations (e.g. {@code -wi 1 -i 2}); a benchmark regex replaces the default set. A benchmark
 * that fails is reported as MISSING and the others still run.
 */
public final class PerformanceReport {
    static final double BF16_BANDWIDTH_TARGET = 0.70;
    static final double Q4_SPEEDUP_TARGET = 2.0;
    static final double PREFILL_PEAK_TARGET = 0.50;
    static final int[] MATVEC_ROWS = {4096, 14336};

    private static final String DEFAULT_SET =
            "^panamax\\.bench\\.(ReadBandwidth|FmaPeak|MatVecBf16|MatVecQ4|MatVecQuantized|MatMulPrefill)\\.";

    private PerformanceReport() {
    }

    public static void main(String[] args) throws Exception {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            System.err.println("PerformanceReport needs the Vector API: run java with --add-modules jdk.incubator.vector");
            System.exit(2);
        }
        Path out = null;
        List<String> jmhArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--out")) {
                if (i + 1 == args.length) throw new IllegalArgumentException("--out: expected a file name, found nothing");
                out = Path.of(args[++i]);
            } else {
                jmhArgs.add(args[i]);
            }
        }
        CommandLineOptions cli = new CommandLineOptions(jmhArgs.toArray(String[]::new));
        ChainedOptionsBuilder options = new OptionsBuilder().parent(cli);
        if (cli.getIncludes().isEmpty()) options.include(DEFAULT_SET);

        String loadBefore = loadAverage();
        Instant started = Instant.now();
        Collection<RunResult> results = new Runner(options.build()).run();
        String report = render(secondsPerOp(results), started, loadBefore, loadAverage());
        System.out.println();
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report);
            System.out.println("written to " + out.toAbsolutePath());
        }
    }

    /** A score in seconds per operation and its relative 99.9% error; NaN error when JMH gave none. */
    record Score(double seconds, double relativeError) {
    }

    /** Scores keyed by benchmark class simple name, plus {@code :n} for parameterised ones. */
    static Map<String, Score> secondsPerOp(Collection<RunResult> results) {
        Map<String, Score> scores = new HashMap<>();
        for (RunResult run : results) {
            String benchmark = run.getParams().getBenchmark();
            String[] parts = benchmark.split("\\.");
            String key = parts[parts.length - 2];
            String n = run.getParams().getParam("n");
            if (n != null) key += ":" + n;
            for (String p : new String[] {"bits", "shape", "rows"}) {
                String v = run.getParams().getParam(p);
                if (v != null) key += ":" + v;
            }
            Result<?> primary = run.getPrimaryResult();
            double toSeconds = secondsPerUnit(primary.getScoreUnit());
            double error = primary.getScoreError() / primary.getScore();
            scores.put(key, new Score(primary.getScore() * toSeconds, error));
        }
        return scores;
    }

    static double secondsPerUnit(String scoreUnit) {
        return switch (scoreUnit) {
            case "s/op" -> 1;
            case "ms/op" -> 1e-3;
            case "us/op" -> 1e-6;
            case "ns/op" -> 1e-9;
            default -> throw new IllegalStateException("score unit: expected s/op, ms/op, us/op or ns/op (AverageTime mode), found " + scoreUnit);
        };
    }

    static String render(Map<String, Score> scores, Instant started, String loadBefore, String loadAfter) {
        int cores = Runtime.getRuntime().availableProcessors();
        StringBuilder text = new StringBuilder();
        text.append("panamax performance report, ").append(started.truncatedTo(ChronoUnit.SECONDS)).append('\n');
        text.append("machine: ").append(cpuModel()).append(", ").append(cores).append(" cores seen by the JVM; java ")
                .append(Runtime.version()).append("; preferred vector species ").append(FmaPeak.lanes() * 32)
                .append(" bits\n");
        text.append("load average (1/5/15 min) before: ").append(loadBefore).append(", after: ").append(loadAfter)
                .append('\n');
        if (busy(loadBefore, cores) || busy(loadAfter, cores)) {
            text.append("WARNING: other processes were running (1-minute load above half the cores):"
                    + " the yardsticks and ratios below are not reliable; re-run on a quiet machine\n");
        }
        text.append('\n');

        MarkdownTable table = new MarkdownTable("benchmark", "time/op", "rate", "ratio", "target", "result");
        Score read = scores.get("ReadBandwidth");
        double readRate = read == null ? Double.NaN : ReadBandwidth.BYTES / read.seconds();
        reference(table, "read bandwidth: sum 1 GiB, " + cores + " threads", read, readRate, "GB/s", 1e9);
        Score fma = scores.get("FmaPeak");
        double fmaRate = fma == null ? Double.NaN : FmaPeak.flopsPerOp(cores) / fma.seconds();
        reference(table, "f32 FMA peak: " + FmaPeak.CHAINS + " chains x " + FmaPeak.lanes() + " lanes, " + cores + " threads",
                fma, fmaRate, "GFLOP/s", 1e9);

        for (int n : MATVEC_ROWS) {
            Score bf16 = scores.get("MatVecBf16:" + n);
            double rate = bf16 == null ? Double.NaN : Workloads.bf16MatrixBytes(n) / bf16.seconds();
            kernel(table, "matvec bf16 [1,4096]x[4096," + n + "]", bf16, rate, "GB/s", 1e9,
                    rate / readRate, "of read bw", BF16_BANDWIDTH_TARGET);
        }
        for (int n : MATVEC_ROWS) {
            Score q4 = scores.get("MatVecQ4:" + n);
            Score bf16 = scores.get("MatVecBf16:" + n);
            double rate = q4 == null ? Double.NaN : Workloads.quantizedMatrixBytes(n) / q4.seconds();
            double speedup = q4 == null || bf16 == null ? Double.NaN : bf16.seconds() / q4.seconds();
            kernel(table, "matvec q4 g64 [1,4096]x[4096," + n + "]", q4, rate, "GB/s", 1e9,
                    speedup, "x bf16 speed", Q4_SPEEDUP_TARGET);
        }
        Score prefill = scores.get("MatMulPrefill");
        double prefillRate = prefill == null ? Double.NaN : Workloads.prefillFlops() / prefill.seconds();
        kernel(table, "prefill bf16 [512,4096]x[4096,4096]", prefill, prefillRate, "GFLOP/s", 1e9,
                prefillRate / fmaRate, "of FMA peak", PREFILL_PEAK_TARGET);

        text.append(table.render()).append('\n');
        text.append(quantizedTable(scores, readRate)).append('\n');
        text.append("GB = 10^9 bytes. time/op: JMH average time, with its 99.9% confidence half-width.\n");
        text.append("matvec bytes: bf16 = n*4096*2; q4 = packed codes + bf16 scales + biases (group 64).\n");
        text.append("MISSING: the benchmark failed or was not selected; see JMH's output above.\n");
        return text.toString();
    }

    /**
     * {@link MatVecQuantized}'s rows: the 1B model's decode products over 3-, 4- and 8-bit weights, one x row
     * (GB/s of weight bytes and their share of the read bandwidth) and eight (time against one row's).
     */
    static String quantizedTable(Map<String, Score> scores, double readRate) {
        MarkdownTable table = new MarkdownTable("quantized matvec (1B decode shapes, group 64)", "time/op", "weights read", "of read bw",
                "8 rows / 1 row");
        boolean any = false;
        for (String shape : new String[] {"2048:8192", "8192:2048"}) {
            int k = MatVecQuantized.k(shape), n = MatVecQuantized.n(shape);
            for (String bits : new String[] {"3", "4", "8"}) {
                Score one = scores.get("MatVecQuantized:" + bits + ":" + shape + ":1");
                Score eight = scores.get("MatVecQuantized:" + bits + ":" + shape + ":8");
                long bytes = MatVecQuantized.bytes(k, n, Integer.parseInt(bits));
                for (Score s : new Score[] {one, eight}) {
                    if (s == null) continue;
                    any = true;
                    int rows = s == one ? 1 : 8;
                    double rate = bytes / s.seconds();
                    table.add("q" + bits + " [" + rows + "," + k + "]x[" + k + "," + n + "]", time(s), rate(rate, "GB/s", 1e9),
                            Double.isNaN(readRate) ? "-" : String.format(Locale.ROOT, "%.2f", rate / readRate),
                            rows == 8 && one != null ? String.format(Locale.ROOT, "%.2f x", s.seconds() / one.seconds()) : "");
                }
            }
        }
        return any ? table.render() : "";
    }

    private static void reference(MarkdownTable table, String name, Score score, double rate, String unit, double scale) {
        table.add(name, time(score), rate(rate, unit, scale), "", "", score == null ? "MISSING" : "reference");
    }

    private static void kernel(MarkdownTable table, String name, Score score, double rate, String unit, double scale,
                               double ratio, String ratioLabel, double target) {
        String verdict = score == null ? "MISSING" : Double.isNaN(ratio) ? "no reference" : ratio >= target ? "PASS" : "MISS";
        String ratioText = Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2f %s", ratio, ratioLabel);
        table.add(name, time(score), rate(rate, unit, scale), ratioText, String.format(Locale.ROOT, ">= %.2f", target), verdict);
    }

    private static String time(Score score) {
        if (score == null) return "-";
        double s = score.seconds();
        String value = s < 1e-3 ? String.format(Locale.ROOT, "%.1f us", s * 1e6)
                : s < 1 ? String.format(Locale.ROOT, "%.2f ms", s * 1e3)
                : String.format(Locale.ROOT, "%.3f s", s);
        return Double.isNaN(score.relativeError()) ? value
                : value + String.format(Locale.ROOT, " ±%.1f%%", 100 * score.relativeError());
    }

    private static String rate(double rate, String unit, double scale) {
        return Double.isNaN(rate) ? "-" : String.format(Locale.ROOT, "%.1f %s", rate / scale, unit);
    }

    /** True when the 1-minute load average (first field) exceeds half the cores; false when unknown. */
    static boolean busy(String loadAverage, int cores) {
        try {
            return Double.parseDouble(loadAverage.split(" ")[0]) > cores / 2.0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: fall back to the architecture name below
        }
        return System.getProperty("os.arch");
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
