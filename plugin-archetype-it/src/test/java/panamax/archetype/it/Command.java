package panamax.archetype.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A child process run to completion in a folder, its output kept in a log file beside the work. */
final class Command {
    /** Exit code, standard output, standard error, and the command line for messages. */
    record Result(int exit, String out, String err, String commandLine) {
        /** The whole output, for an assertion message. */
        String report() {
            return commandLine + " exited " + exit + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    private Command() {
    }

    /**
     * Runs {@code command} in {@code directory} with extra environment variables, killing it after
     * {@code timeoutSeconds}; what it printed is also kept in {@code log}.
     */
    static Result run(List<String> command, Path directory, Map<String, String> env, int timeoutSeconds, Path log)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(directory.toFile());
        pb.environment().remove("PANAMAX_PLUGINS");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(log.getParent(), "out", ".txt");
        Path err = Files.createTempFile(log.getParent(), "err", ".txt");
        String commandLine = String.join(" ", command) + " (in " + directory + ")";
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            Result r = new Result(finished ? p.exitValue() : -1, Files.readString(out), Files.readString(err), commandLine);
            Files.writeString(log, r.report());
            if (!finished) throw new AssertionError("did not finish in " + timeoutSeconds + " s: " + r.report());
            return r;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** {@code script args} through bash, as a user runs the launcher. */
    static List<String> bash(Path script, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(List.of(args));
        return command;
    }
}
