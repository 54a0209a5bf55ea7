package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.plan.KvScheme;
import panamax.engine.eval.Perplexity;
import panamax.engine.eval.PerplexityReport;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;

/**
 * {@code panamax perplexity} over the qwen3-tiny fixture, through the same entry point as the
 * launcher: one JSON object on stdout whose numbers are those {@link Perplexity#measure} gives for
 * the tokenized text (the loss itself is checked against reference logits by the models module's
 * PerplexityFixtureTest).
 */
class PerplexityCommandTest {
    private static final String TEXT = "The quick brown fox jumps over the lazy dog. It was a dark night at sea, "
            + "and the ship rolled under a sky without stars.\n";

    @TempDir
    static Path tmp;
    static Path text;

    @BeforeAll
    static void writeText() throws Exception {
        text = Files.writeString(tmp.resolve("text.txt"), TEXT, StandardCharsets.UTF_8);
    }

    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[]{Integer.toString(exit), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    private static Path fixture(String name) {
        Path dir = Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures")).resolve(name).toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(dir), "fixture " + dir + " is missing (set -Dpanamax.fixtures=DIR)");
        return dir;
    }

    /** What the engine API reports for the same text, model and window. */
    private static PerplexityReport expected(Path model, int window, int maxWindows) {
        try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), model, KvScheme.identity(), Optional.empty())) {
            int[] ids = session.tokenizer().encode(TEXT, false);
            return Perplexity.measure(session, ids, window, maxWindows, (done, total) -> { });
        }
    }

    @Test
    void printsOneJsonObjectWithTheEngineNumbers() throws Exception {
        Path model = fixture("qwen3-tiny");
        String[] r = run("perplexity", "--model", model.toString(), "--text", text.toString(), "--window", "7", "--progress", "never");
        assertEquals("0", r[0], r[2]);
        assertEquals(1, r[1].strip().lines().count(), r[1]);
        JsonNode json = new ObjectMapper().readTree(r[1]);
        PerplexityReport want = expected(model, 7, 0);
        assertTrue(want.windows() >= 2, "the text should hold several windows of 7: " + want.toJson());
        assertEquals(want.windows(), json.get("windows").asInt(), r[1]);
        assertEquals(7, json.get("window").asInt(), r[1]);
        assertEquals(want.tokens(), json.get("tokens").asLong(), r[1]);
        assertEquals(want.meanNll(), json.get("mean_nll").asDouble(), 5e-7, r[1]); // printed with 6 decimals
        assertEquals(Math.exp(json.get("mean_nll").asDouble()), json.get("perplexity").asDouble(), 1e-3, r[1]);
    }

    @Test
    void maxWindowsScoresOnlyThatMany() throws Exception {
        Path model = fixture("qwen3-tiny");
        String[] r = run("perplexity", "--model", model.toString(), "--text", text.toString(), "--window", "7", "--max-windows", "1",
                "--progress", "never");
        assertEquals("0", r[0], r[2]);
        JsonNode json = new ObjectMapper().readTree(r[1]);
        assertEquals(1, json.get("windows").asInt(), r[1]);
        assertEquals(7, json.get("tokens").asLong(), r[1]);
        assertEquals(expected(model, 7, 1).meanNll(), json.get("mean_nll").asDouble(), 5e-7, r[1]);
    }

    /** Within PerplexityFixtureTest's bound for 4-bit KV (0.15; it measured 0.036 and 0.077 there). */
    @Test
    void fourBitKvChangesTheLossALittle() throws Exception {
        Path model = fixture("qwen3-tiny"); // head dim 32: affine groups of 32 fit
        String[] r = run("perplexity", "--model", model.toString(), "--text", text.toString(), "--window", "7",
                "--kv-bits", "4", "--kv-group-size", "32", "--progress", "never");
        assertEquals("0", r[0], r[2]);
        double quantized = new ObjectMapper().readTree(r[1]).get("mean_nll").asDouble();
        double identity = expected(model, 7, 0).meanNll();
        System.out.printf("perplexity CLI, qwen3-tiny, window 7: identity %.6f, 4-bit KV %.6f%n", identity, quantized);
        assertTrue(Math.abs(quantized - identity) <= 0.15, "identity " + identity + ", 4-bit KV " + quantized);
        assertTrue(Math.abs(quantized - identity) >= 1e-3, "4-bit KV did not move the loss: " + r[1]);
    }

    @Test
    void aTextShorterThanOneWindowIsAUsageErrorNamingTheFlag() {
        String[] r = run("perplexity", "--model", fixture("qwen3-tiny").toString(), "--text", text.toString(), "--window", "100000");
        assertEquals(Integer.toString(Cli.USAGE), r[0], r[2]);
        assertTrue(r[2].contains("lower --window"), r[2]);
        assertEquals("", r[1], "nothing on stdout");
    }

    @Test
    void aMissingTextIsAUsageErrorNamingIt() {
        String[] r = run("perplexity", "--model", fixture("qwen3-tiny").toString(), "--text", "/nonexistent/text.txt");
        assertEquals(Integer.toString(Cli.USAGE), r[0], r[2]);
        assertTrue(r[2].contains("--text /nonexistent/text.txt"), r[2]);
    }
}
