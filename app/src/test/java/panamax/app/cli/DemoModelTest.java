package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;

/** The bundled demo model as a newcomer meets it: no --model, real text, HF-exact logits. */
class DemoModelTest {
    private static final Path REFERENCE = Path.of("src/test/resources/demo-model/reference.safetensors");
    private static final Path DICTIONARY = Path.of("/usr/share/dict/words");
    private static final Pattern WORD = Pattern.compile("[A-Za-z]+(?:'[A-Za-z]+)?");

    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[]{Integer.toString(exit), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void generateWithoutAModelRunsTheBundledOneAndEndsWithTheStatsLine() {
        String[] r = run("generate", "--prompt", "It was a dark night at sea.", "--max-tokens", "24", "--temp", "0.8", "--seed", "7");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[2].contains("bundled demo model " + DemoModel.NAME), r[2]);
        String[] lines = r[1].strip().split("\n");
        String stats = lines[lines.length - 1];
        assertTrue(stats.matches("\\[(length|stop)\\] prompt: \\d+ tokens.*generation: \\d+ tokens.*"), stats);
        assertTrue(r[1].length() > stats.length() + 20, "no text before the stats line: " + r[1]);
    }

    @Test
    void logitsMatchTheTransformersReference() {
        // reference.json beside the reference declares float32 buffers (transformers from_pretrained)
        ParityReport report = ParityRun.run(PluginRegistry.discover(Optional.empty()), DemoModel.directory(), REFERENCE,
                KvScheme.identity(), Optional.of("java"));
        System.out.println("demo model parity " + report.toJson());
        assertTrue(report.maxAbsDiffSingle() <= 1e-4, report.toJson());
        assertTrue(report.maxAbsDiffSteps() <= 1e-4, report.toJson());
        assertTrue(report.maxAbsDiffBatch() <= 1e-4, report.toJson());
        assertEquals(0, report.decisiveMismatches(), report.toJson());
    }

    @Test
    void greedyTextIsEnglishLike() throws IOException {
        if (!Files.isRegularFile(DICTIONARY)) {
            fail(DICTIONARY + " is missing: install the Debian package wamerican (.ci/run does)");
        }
        Set<String> dictionary = new HashSet<>(Files.readAllLines(DICTIONARY, StandardCharsets.UTF_8));
        List<String> words = new ArrayList<>();
        for (String prompt : List.of("Call me Ishmael.", "The Congress of the United States", "The sea was calm, and")) {
            String[] r = run("generate", "--prompt", prompt, "--max-tokens", "96");
            assertEquals("0", r[0], r[2]);
            String text = r[1].strip();
            text = text.substring(0, text.lastIndexOf('\n') + 1); // drop the stats line
            Matcher m = WORD.matcher(text);
            int before = words.size();
            while (m.find()) words.add(m.group());
            assertTrue(words.size() - before >= 20, "too few words for '" + prompt + "': " + text);
        }
        List<String> unknown = words.stream().filter(w -> !dictionary.contains(w) && !dictionary.contains(w.toLowerCase(java.util.Locale.ROOT))).toList();
        double known = 1 - (double) unknown.size() / words.size();
        System.out.printf("demo model: %d of %d words in %s (%.1f%%); not found: %s%n", words.size() - unknown.size(), words.size(),
                DICTIONARY, 100 * known, unknown);
        assertTrue(known >= 0.85, String.format("%.1f%% dictionary words, expected at least 85%%; not found: %s", 100 * known, unknown));
    }
}
