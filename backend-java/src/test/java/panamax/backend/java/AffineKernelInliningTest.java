package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * C2 inlines every call of our own code that the written-out affine kernels make. The kernels are large
 * enough to pass C2's node-count cutoff for inlining, after which only the Vector API's force-inlined
 * methods are still inlined: a call to one of our helpers there (as {@code Lanes.sum} was) passes its
 * vectors boxed, allocating on every weight row. Runs {@link AffineKernelCalls} in a JVM that compiles each
 * kernel with C2 before its first call and reads its {@code -XX:+PrintInlining} log.
 */
class AffineKernelInliningTest {
    @Test
    void affineKernelsInlineEveryCallToProjectCode() throws IOException, InterruptedException {
        String log = AffineKernelJvm.run("-Xcomp", "-XX:-TieredCompilation", "-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintInlining");
        assertTrue(log.contains("jdk.incubator.vector."), "the log shows no inlining decisions:\n" + log);
        List<String> notInlined = log.lines().filter(l -> l.contains("panamax.") && l.contains("failed to inline")).map(String::strip).distinct().toList();
        assertTrue(notInlined.isEmpty(), "C2 did not inline into the affine kernels:\n" + String.join("\n", notInlined));
    }
}
