package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CliTest {
    private record Run(int exit, String out, List<String> err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void usageMistakesPrintOneLineNamingTheFlagAndExitTwo() {
        for (String[] args : List.of(new String[] {"plan", "--kv-bitz", "4"}, new String[] {"plan", "--kv-group-size", "32"},
                new String[] {"plan", "--memory-budget", "8 gigs"}, new String[] {"plan", "--model", "m", "--preset", "8b"},
                new String[] {"plan", "--batch", "0"}, new String[] {"plan", "--preset", "70b"}, new String[] {"frobnicate"},
                new String[] {"serve", "--prefill-step-ms", "-1"})) {
            Run r = run(args);
            assertEquals(Cli.USAGE, r.exit(), String.join(" ", args));
            assertEquals(1, r.err().size(), String.join(" ", args) + " printed " + r.err());
            assertTrue(r.err().getFirst().startsWith("panamax"), r.err().getFirst());
        }
    }

    @Test
    void aNegativePrefillStepNamesItsFlag() {
        Run r = run("serve", "--prefill-step-ms", "-1");
        assertTrue(r.err().getFirst().contains("--prefill-step-ms: expected 0 (no target) or more milliseconds, found -1"), r.err().toString());
    }

    @Test
    void theMemoryBudgetMessageSaysWhatSizesLookLike() {
        Run r = run("plan", "--memory-budget", "lots");
        assertTrue(r.err().getFirst().contains("8GiB, 512MiB"), r.err().getFirst());
    }

    @Test
    void aModelDirectoryWithoutConfigIsABadModelFileNamingIt() {
        Run r = run("plan", "--model", "/nonexistent/model");
        assertEquals(Cli.FAILED, r.exit());
        assertTrue(r.err().getFirst().contains("/nonexistent/model/config.json"), r.err().toString());
    }

    @Test
    void helpAndVersionExitZero() {
        assertEquals(0, run("--help").exit());
        assertTrue(run("plan", "--help").out().contains("--quantized-kv-start"));
        assertTrue(run("--version").out().startsWith("panamax "));
    }
}
