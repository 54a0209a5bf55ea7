package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * C1 compiles every written-out affine kernel ({@code AffineDots}, {@code AffineTileDots}) at its profiling tier. A kernel C1 gives up on ("out of
 * virtual registers") can stay at tier 2, where the Vector API is not intrinsified and products run 10–100×
 * slower for the life of the JVM, whenever its first compilation came while C2 was busy. Runs
 * {@link AffineKernelCalls} in a JVM with {@code -Xcomp -XX:TieredStopAtLevel=3} and reads its
 * {@code -XX:+PrintCompilation} log.
 */
class AffineKernelCompilationTest {
    @Test
    void everyAffineKernelCompilesAtC1sProfilingTier() throws IOException, InterruptedException {
        String log = AffineKernelJvm.run("-Xcomp", "-XX:TieredStopAtLevel=3", "-XX:+PrintCompilation");
        List<String> kernels = log.lines().filter(l -> l.contains("AffineDots::row") || l.contains("AffineTileDots::t")).toList();
        assertTrue(!kernels.isEmpty(), "the log shows no compiled kernel:\n" + log);
        List<String> skipped = kernels.stream().filter(l -> l.contains("COMPILE SKIPPED")).toList();
        assertTrue(skipped.isEmpty(), "C1 could not compile:\n" + String.join("\n", skipped));
    }
}
