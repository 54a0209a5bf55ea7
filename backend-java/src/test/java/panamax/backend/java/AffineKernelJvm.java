package panamax.backend.java;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link AffineKernelCalls} in a child JVM with the given JIT flags, compiling only {@code AffineDots} and
 * {@code AffineTileDots},
 * and returns its output (the JIT's log): the compilation tests read how the JIT treated the kernels.
 */
final class AffineKernelJvm {
    private AffineKernelJvm() {
    }

    static String run(String... jitFlags) throws IOException, InterruptedException {
        return run(List.of(jitFlags));
    }

    /** As {@link #run(String...)}, handing {@code callArgs} to {@link AffineKernelCalls#main}. */
    static String run(List<String> jitFlags, String... callArgs) throws IOException, InterruptedException {
        Path here = Path.of("").toAbsolutePath();
        Path module = Files.exists(here.resolve("backend-java")) ? here.resolve("backend-java") : here;
        Path classes = module.resolve("target/classes");
        Path tests = module.resolve("target/test-classes");
        assertTrue(Files.isDirectory(classes) && Files.isDirectory(tests), "expected compiled classes under " + module.resolve("target"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-XX:CompileCommand=quiet", "-XX:CompileCommand=compileonly,panamax.backend.java.kernel.AffineDots::*",
                "-XX:CompileCommand=compileonly,panamax.backend.java.kernel.AffineTileDots::*"));
        command.addAll(jitFlags);
        command.addAll(List.of("-cp", classes + File.pathSeparator + tests, AffineKernelCalls.class.getName()));
        command.addAll(List.of(callArgs));
        Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
        String log = new String(run.getInputStream().readAllBytes(), UTF_8);
        assertTrue(run.waitFor(5, TimeUnit.MINUTES), "the compiling JVM did not finish in 5 minutes");
        assertEquals(0, run.exitValue(), log);
        assertTrue(log.matches("(?s).*called [1-9][0-9]* kernels.*"), "no kernel was called:\n" + log);
        return log;
    }
}
