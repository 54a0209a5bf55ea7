package panamax.bench.codecs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs each case of {@code panamax bench codecs} in a JVM of its own, as JMH forks per benchmark.
 * In one JVM every codec width runs through the same kernels, so C2 compiles their width branches
 * with all widths seen: TurboQuant 4/4 decoded at 2.7–3.2 GB/s there and at 7.4 in a JVM of its own.
 * A user's process runs one codec, so a forked case measures what a user gets.
 *
 * <p>The child is this JVM's own command line up to its main module ({@code -m}/{@code --module}),
 * so the module path, {@code --add-modules}, native access and any {@code PANAMAX_JAVA_OPTS} carry
 * over; it runs {@link CodecBench#main} with {@code --case HEAD_DIM:INDEX} and prints that case's
 * row or JSON line, which is copied to {@code out}. Stateless.
 */
final class CaseProcesses {
    static final String MAIN = "panamax.bench/" + CodecBench.class.getName();

    private CaseProcesses() {
    }

    /**
     * The java command and JVM options that launched this process, without its main module and
     * arguments; empty when it was not launched with {@code -m} (a class path, a test runner), and
     * then the bench measures in process.
     */
    static Optional<List<String>> currentLauncher() {
        ProcessHandle.Info info = ProcessHandle.current().info();
        if (info.command().isEmpty() || info.arguments().isEmpty()) return Optional.empty();
        return launcher(info.command().get(), info.arguments().get());
    }

    /** {@link #currentLauncher} of a given command line (testable). */
    static Optional<List<String>> launcher(String command, String[] arguments) {
        List<String> prefix = new ArrayList<>();
        prefix.add(command);
        for (String a : arguments) {
            if (a.equals("-m") || a.equals("--module") || a.startsWith("--module=")) return Optional.of(prefix);
            prefix.add(a);
        }
        return Optional.empty();
    }

    /**
     * Runs case {@code index} of head dim {@code headDim} in a child JVM and copies its output lines
     * to {@code out}; its stderr goes to this process's. Returns the child's exit status.
     */
    static int run(List<String> launcher, List<String> benchArgs, int headDim, int index, PrintWriter out, PrintWriter err) {
        List<String> command = new ArrayList<>(launcher);
        command.add("-m");
        command.add(MAIN);
        command.addAll(benchArgs);
        command.add("--case");
        command.add(headDim + ":" + index);
        try {
            Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            child.getOutputStream().close();
            try (var lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    out.println(line);
                    out.flush();
                }
            }
            return child.waitFor();
        } catch (IOException e) {
            err.println("bench codecs: could not start a JVM for case " + headDim + ":" + index + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("bench codecs: interrupted while case " + headDim + ":" + index + " ran");
            return 1;
        }
    }
}
