package panamax.backend.java;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
        Path here = Path.of("").toAbsolutePath();
        Path module = Files.exists(here.resolve("backend-java")) ? here.resolve("backend-java") : here;
        Path classes = module.resolve("target/classes");
        Path tests = module.resolve("target/test-classes");
        assertTrue(Files.isDirectory(classes) && Files.isDirectory(tests), "expected compiled classes under " + module.resolve("target"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process run = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-Xcomp", "-XX:-TieredCompilation", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=compileonly,panamax.backend.java.kernel.AffineDots::*",
                "-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintInlining",
                "-cp", classes + File.pathSeparator + tests, AffineKernelCalls.class.getName()).redirectErrorStream(true).start();
        String log = new String(run.getInputStream().readAllBytes(), UTF_8);
        assertTrue(run.waitFor(5, TimeUnit.MINUTES), "the compiling JVM did not finish in 5 minutes");
        assertEquals(0, run.exitValue(), log);
        assertTrue(log.matches("(?s).*called [1-9][0-9]* kernels.*"), "no kernel was called:\n" + log);
        assertTrue(log.contains("jdk.incubator.vector."), "the log shows no inlining decisions:\n" + log);
        List<String> notInlined = log.lines().filter(l -> l.contains("panamax.") && l.contains("failed to inline")).map(String::strip).distinct().toList();
        assertTrue(notInlined.isEmpty(), "C2 did not inline into the affine kernels:\n" + String.join("\n", notInlined));
    }
}
