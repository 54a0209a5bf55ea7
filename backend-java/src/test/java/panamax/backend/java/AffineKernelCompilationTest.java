package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * C1 compiles every written-out affine kernel ({@code AffineDots}, {@code AffineTileDots}, {@code DecodedTileDots}) at its profiling tier. A kernel C1 gives up on ("out of
 * virtual registers") can stay at tier 2, where the Vector API is not intrinsified and products run 10–100×
 * slower for the life of the JVM, whenever its first compilation came while C2 was busy. Runs
 * {@link AffineKernelCalls} in a JVM with {@code -Xcomp -XX:TieredStopAtLevel=3} and reads its
 * {@code -XX:+PrintCompilation} log. (Until 2026-12-04 that JVM compiled {@code AffineDots} only, so the tile kernels
 * were never checked; the first kernel this would have caught was a straight {@code t2r8b8}.)
 */
class AffineKernelCompilationTest {
    @Test
    void everyAffineKernelCompilesAtC1sProfilingTier() throws IOException, InterruptedException {
        String log = AffineKernelJvm.run("-Xcomp", "-XX:TieredStopAtLevel=3", "-XX:+PrintCompilation");
        List<String> kernels = log.lines().filter(l -> l.contains("AffineDots::row") || l.contains("AffineTileDots::t")
                || l.contains("DecodedTileDots::d")).toList();
        assertTrue(!kernels.isEmpty(), "the log shows no compiled kernel:\n" + log);
        List<String> skipped = kernels.stream().filter(l -> l.contains("COMPILE SKIPPED")).toList();
        assertTrue(skipped.isEmpty(), "C1 could not compile:\n" + String.join("\n", skipped));
        assertTrue(kernels.stream().anyMatch(l -> l.contains("AffineTileDots::t")), "the log shows no compiled tile kernel:\n" + log);
    }

    /**
     * The same for the tile kernels compiled while their loop runs (on-stack replacement), as a first product with long
     * rows compiles them: an OSR compilation holds more values live, and a straight 8-bit block of two tiles against
     * eight x rows ran C1 out of registers there ("linear scan") and stayed uncompiled for the process, 200× slower.
     */
    @Test
    void everyTileKernelCompilesAtC1sProfilingTierWhileItsLoopRuns() throws IOException, InterruptedException {
        // low loop thresholds: at C1's tiers the Vector API is not intrinsified, so a run to the default ones takes minutes
        String log = AffineKernelJvm.run(List.of("-XX:TieredStopAtLevel=3", "-XX:-BackgroundCompilation", "-XX:+PrintCompilation",
                "-XX:Tier3BackEdgeThreshold=200", "-XX:Tier0BackedgeNotifyFreqLog=2"), "long-loops");
        List<String> kernels = log.lines().filter(l -> l.contains("AffineTileDots::t") || l.contains("DecodedTileDots::d")).toList();
        assertTrue(kernels.stream().anyMatch(l -> l.contains(" % ")), "the log shows no compilation of a running loop:\n" + log);
        List<String> skipped = kernels.stream().filter(l -> l.contains("COMPILE SKIPPED")).toList();
        assertTrue(skipped.isEmpty(), "C1 could not compile:\n" + String.join("\n", skipped));
    }
}
