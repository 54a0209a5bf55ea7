package panamax.app.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a launcher script of the real distribution in a child process and captures what it printed. */
final class Launcher {
    /** Exit code, standard output, and standard error without the JDK's incubator-module warning. */
    record Result(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.startsWith("WARNING: Using incubator modules")).toList();
        }
    }

    private Launcher() {
    }

    static Path dist() {
        return Path.of(System.getProperty("panamax.dist", "../dist")).toAbsolutePath().normalize();
    }

    static Path root() {
        return Path.of(System.getProperty("panamax.root", "..")).toAbsolutePath().normalize();
    }

    static Path fp8Jar() {
        Path jar = Path.of(System.getProperty("panamax.fp8.jar", "target/it-plugins/panamax-example-fp8-kv-codec.jar"));
        if (!Files.isRegularFile(jar)) throw new IllegalStateException("the fp8 example jar is missing: " + jar.toAbsolutePath());
        return jar;
    }

    /** Runs {@code script args} in {@code workingDirectory} with extra environment variables. */
    static Result run(Path script, Path workingDirectory, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(workingDirectory.toFile());
        pb.environment().remove("PANAMAX_PLUGINS");
        pb.environment().putAll(env);
        Path out = Files.createTempFile("panamax-out", ".txt");
        Path err = Files.createTempFile("panamax-err", ".txt");
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " did not finish in 120 s");
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static Result dist(Path workingDirectory, String... args) throws IOException, InterruptedException {
        return run(dist().resolve("bin/panamax"), workingDirectory, Map.of(), args);
    }
}
