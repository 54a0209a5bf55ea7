package panamax.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report's arithmetic and verdicts, on made-up scores (no benchmark is run, no time is asserted). */
class PerformanceReportTest {
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    /** Scores that put every kernel at {@code factor} times its target ratio. */
    private static Map<String, PerformanceReport.Score> scoresAt(double factor) {
        Map<String, PerformanceReport.Score> scores = new HashMap<>();
        double readSeconds = 0.02;
        double readRate = ReadBandwidth.BYTES / readSeconds;
        double fmaSeconds = 0.004;
        double fmaRate = FmaPeak.flopsPerOp(CORES) / fmaSeconds;
        scores.put("ReadBandwidth", new PerformanceReport.Score(readSeconds, 0.01));
        scores.put("FmaPeak", new PerformanceReport.Score(fmaSeconds, 0.01));
        for (int n : PerformanceReport.MATVEC_ROWS) {
            double bf16Seconds = Workloads.bf16MatrixBytes(n) / (readRate * PerformanceReport.BF16_BANDWIDTH_TARGET * factor);
            scores.put("MatVecBf16:" + n, new PerformanceReport.Score(bf16Seconds, 0.01));
            scores.put("MatVecQ4:" + n, new PerformanceReport.Score(bf16Seconds / (PerformanceReport.Q4_SPEEDUP_TARGET * factor), 0.01));
        }
        double prefillSeconds = Workloads.prefillFlops() / (fmaRate * PerformanceReport.PREFILL_PEAK_TARGET * factor);
        scores.put("MatMulPrefill", new PerformanceReport.Score(prefillSeconds, 0.01));
        return scores;
    }

    private static List<String> kernelRows(String report) {
        return Arrays.stream(report.split("\n")).filter(l -> l.startsWith("| matvec") || l.startsWith("| prefill")).toList();
    }

    @Test
    void kernelsAboveTheirTargetsPassAndBelowMiss() {
        List<String> fast = kernelRows(PerformanceReport.render(scoresAt(1.05), Instant.EPOCH, "0 0 0", "0 0 0"));
        List<String> slow = kernelRows(PerformanceReport.render(scoresAt(0.95), Instant.EPOCH, "0 0 0", "0 0 0"));
        assertEquals(5, fast.size());
        assertTrue(fast.stream().allMatch(l -> l.contains("| PASS")), () -> String.join("\n", fast));
        assertEquals(5, slow.size());
        assertTrue(slow.stream().allMatch(l -> l.contains("| MISS ")), () -> String.join("\n", slow));
    }

    @Test
    void ratiosAreRatesOverTheMeasuredReferences() {
        String report = PerformanceReport.render(scoresAt(1.5), Instant.EPOCH, "0 0 0", "0 0 0");
        assertTrue(report.contains(String.format(java.util.Locale.ROOT, "%.2f of read bw", 0.70 * 1.5)), report);
        assertTrue(report.contains(String.format(java.util.Locale.ROOT, "%.2f x bf16 speed", 2.0 * 1.5)), report);
        assertTrue(report.contains(String.format(java.util.Locale.ROOT, "%.2f of FMA peak", 0.50 * 1.5)), report);
        assertTrue(report.contains(String.format(java.util.Locale.ROOT, "%.1f GB/s", ReadBandwidth.BYTES / 0.02 / 1e9)), report);
    }

    @Test
    void aMissingBenchmarkIsReportedAsMissingAndItsDependentsHaveNoRatio() {
        Map<String, PerformanceReport.Score> scores = scoresAt(1.0);
        scores.remove("MatVecQ4:4096");
        scores.remove("ReadBandwidth");
        String report = PerformanceReport.render(scores, Instant.EPOCH, "0 0 0", "0 0 0");
        String q4Row = Arrays.stream(report.split("\n")).filter(l -> l.contains("matvec q4 g64 [1,4096]x[4096,4096]")).findFirst().orElseThrow();
        assertTrue(q4Row.contains("MISSING"), q4Row);
        String bf16Row = Arrays.stream(report.split("\n")).filter(l -> l.contains("matvec bf16 [1,4096]x[4096,4096]")).findFirst().orElseThrow();
        assertTrue(bf16Row.contains("no reference"), bf16Row);
    }

    @Test
    void aBusyMachineIsFlaggedInTheReport() {
        String busy = PerformanceReport.render(scoresAt(1.0), Instant.EPOCH, "0.1 0 0", (CORES * 2) + ".5 0 0");
        String quiet = PerformanceReport.render(scoresAt(1.0), Instant.EPOCH, "0.1 0 0", "unknown");
        assertTrue(busy.contains("WARNING: other processes were running"), busy);
        assertFalse(quiet.contains("WARNING"), quiet);
    }

    @Test
    void scoreUnitsConvertToSecondsAndUnknownUnitsAreRefused() {
        assertEquals(1e-6, PerformanceReport.secondsPerUnit("us/op"));
        assertEquals(1e-3, PerformanceReport.secondsPerUnit("ms/op"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PerformanceReport.secondsPerUnit("ops/s"));
        assertTrue(e.getMessage().contains("ops/s"), e.getMessage());
    }

    @Test
    void quantizedRowsReportWeightBytesPerSecondAndTheBatchOfEightAgainstOneRow() {
        long bytes = MatVecQuantized.bytes(2048, 8192, 4);
        assertEquals(8192L * 2048 / 2 + 2L * 8192 * 32 * 2, bytes, "packed codes + bf16 scales and biases in groups of 64");
        Map<String, PerformanceReport.Score> scores = scoresAt(1.0);
        scores.put("MatVecQuantized:4:2048:8192:1", new PerformanceReport.Score(bytes / 10e9, 0.01));
        scores.put("MatVecQuantized:4:2048:8192:8", new PerformanceReport.Score(3 * bytes / 10e9, 0.01));
        String report = PerformanceReport.render(scores, Instant.EPOCH, "0 0 0", "0 0 0");
        String one = Arrays.stream(report.split("\n")).filter(l -> l.startsWith("| q4 [1,2048]x[2048,8192]")).findFirst().orElseThrow(() -> new AssertionError(report));
        String eight = Arrays.stream(report.split("\n")).filter(l -> l.startsWith("| q4 [8,2048]x[2048,8192]")).findFirst().orElseThrow(() -> new AssertionError(report));
        assertTrue(one.contains("10.0 GB/s"), one);
        // read bandwidth of scoresAt: 2^30 bytes in 20 ms = 53.7 GB/s
        assertTrue(one.contains("| 0.19 "), one);
        assertTrue(eight.contains("3.00 x"), eight);
        assertFalse(report.contains("q8 ["), "no row for a benchmark that did not run:\n" + report);
    }
}
