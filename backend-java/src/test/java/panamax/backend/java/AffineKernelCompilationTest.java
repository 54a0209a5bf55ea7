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
 * C1 compiles every written-out affine kernel at its profiling tier. A kernel C1 gives up on ("out of
 * virtual registers") can stay at tier 2, where the Vector API is not intrinsified and products run 10–100×
 * slower for the life of the JVM, whenever its first compilation came while C2 was busy. Runs
 * {@link AffineKernelCalls} in a JVM with {@code -Xcomp -XX:TieredStopAtLevel=3} and reads its
 * {@code -XX:+PrintCompilation} log.
 */
class AffineKernelCompilationTest {
    @Test
    void everyAffineKernelCompilesAtC1sProfilingTier() throws IOException, InterruptedException {
        Path here = Path.of("").toAbsolutePath();
        Path module = Files.exists(here.resolve("backend-java")) ? here.resolve("backend-java") : here;
        Path classes = module.resolve("target/classes");
        Path tests = module.resolve("target/test-classes");
        assertTrue(Files.isDirectory(classes) && Files.isDirectory(tests), "expected compiled classes under " + module.resolve("target"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process run = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-Xcomp", "-XX:TieredStopAtLevel=3", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=compileonly,panamax.backend.java.kernel.AffineDots::*", "-XX:+PrintCompilation",
                "-cp", classes + File.pathSeparator + tests, AffineKernelCalls.class.getName()).redirectErrorStream(true).start();
        String log = new String(run.getInputStream().readAllBytes(), UTF_8);
        assertTrue(run.waitFor(5, TimeUnit.MINUTES), "the compiling JVM did not finish in 5 minutes");
        assertEquals(0, run.exitValue(), log);
        assertTrue(log.matches("(?s).*called [1-9][0-9]* kernels.*"), "no kernel was called:\n" + log);
        List<String> kernels = log.lines().filter(l -> l.contains("AffineDots::row")).toList();
        assertTrue(!kernels.isEmpty(), "the log shows no compiled kernel:\n" + log);
        List<String> skipped = kernels.stream().filter(l -> l.contains("COMPILE SKIPPED")).toList();
        assertTrue(skipped.isEmpty(), "C1 could not compile:\n" + String.join("\n", skipped));
    }
}
