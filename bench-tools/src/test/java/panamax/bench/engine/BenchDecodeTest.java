package panamax.bench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code panamax bench decode} end to end on the tiny preset: the tool found as a JDK tool
 * in the boot layer (as {@code panamax bench} finds it), a random checkpoint loaded by the llama plugin from models, the real
 * backend and layouts. Checks the JSON lines' structure and that every rate is positive; no timing
 * is asserted.
 */
class BenchDecodeTest {
    @Test
    void tinyPresetPrintsOneJsonLinePerMeasurementAndDeletesItsCheckpoints(@TempDir Path tmp) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--preset", "tiny", "--json", "--probe-mib", "16", "--context", "32",
                        "--steps", "2", "--warmup", "1", "--prefill-tokens", "16", "--batches", "1,2,8", "--tmp", tmp.toString());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));

        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) lines.add(mapper.readTree(line));
        JsonNode machine = lines.getFirst();
        assertEquals("machine", machine.get("kind").asText());
        assertTrue(machine.get("read_bytes_per_s").asDouble() > 0, machine.toString());
        assertTrue(machine.get("fma_flops_per_s").asDouble() > 0, machine.toString());
        // probed before the first format and after each of the three; the machine line reports the fastest
        for (String yardstick : List.of("read_bytes_per_s", "fma_flops_per_s")) {
            JsonNode probes = machine.get(yardstick + "_probes");
            assertEquals(4, probes.size(), machine.toString());
            double fastest = 0;
            for (JsonNode p : probes) fastest = Math.max(fastest, p.asDouble());
            assertEquals(fastest, machine.get(yardstick).asDouble(), 0.1, machine.toString());
        }

        List<JsonNode> rows = lines.subList(1, lines.size());
        assertEquals(3 * 4, rows.size(), "bf16, q8, q4 x (prefill + 3 batches): " + rows);
        Set<String> weights = new java.util.TreeSet<>();
        for (JsonNode r : rows) {
            weights.add(r.get("weights").asText());
            for (String field : List.of("tok_per_s", "floor_tok_per_s", "fraction_of_floor")) {
                assertTrue(r.get(field).asDouble() > 0, field + " in " + r);
            }
            assertTrue(Set.of("memory", "compute").contains(r.get("bound").asText()), r.toString());
            // judged: prefill and decode at batch 1 and 8 (the targets); other batch sizes carry none
            boolean judged = r.get("phase").asText().equals("prefill") || Set.of(1, 8).contains(r.get("batch").asInt());
            assertEquals(judged, Set.of("PASS", "MISS").contains(r.get("result").asText()), r.toString());
        }
        assertEquals(Set.of("bf16", "q4", "q8"), weights);
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "temporary checkpoints are deleted");
        }
    }

    @Test
    void aQuantizedCacheIsMeasuredAgainstTheIdentityCacheBatchByBatch(@TempDir Path tmp) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--preset", "tiny", "--weights", "q8", "--kv-bits", "4", "--kv-group-size", "32", "--json", "--probe-mib", "16", "--context", "64",
                "--steps", "2", "--warmup", "1", "--prefill-tokens", "0", "--batches", "1,3", "--tmp", tmp.toString());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        List<JsonNode> comparisons = new ArrayList<>();
        int decodeRows = 0;
        for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) {
            JsonNode n = new ObjectMapper().readTree(line);
            if (n.has("kind") && n.get("kind").asText().equals("kv_comparison")) comparisons.add(n);
            else if (n.has("phase")) decodeRows++;
        }
        assertEquals(2, decodeRows, "the scheme's own rows stay as they are: " + out);
        assertEquals(List.of(1, 3), comparisons.stream().map(c -> c.get("batch").asInt()).toList(), comparisons.toString());
        for (JsonNode c : comparisons) {
            assertEquals("q8", c.get("weights").asText());
            assertTrue(c.get("kv").asText().startsWith("affine"), c.toString());
            assertEquals(64, c.get("context").asInt());
            for (String field : List.of("identity_tok_per_s", "tok_per_s", "ratio", "best_ratio")) {
                assertTrue(c.get(field).asDouble() > 0, field + " in " + c);
            }
            assertEquals(c.get("tok_per_s").asDouble() / c.get("identity_tok_per_s").asDouble(), c.get("ratio").asDouble(), 1e-3);
            assertEquals(c.get("ratio").asDouble() >= 1 ? "PASS" : "MISS", c.get("result").asText(), c.toString());
        }

        ByteArrayOutputStream table = new ByteArrayOutputStream();
        exit = tool().run(new PrintStream(table, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--preset", "tiny", "--weights", "q8", "--kv-bits", "4", "--kv-group-size", "32", "--kv-baseline", "none", "--probe-mib", "16", "--context", "16",
                "--steps", "1", "--warmup", "1", "--prefill-tokens", "0", "--batches", "1", "--tmp", tmp.toString());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        assertTrue(!table.toString(StandardCharsets.UTF_8).contains("against the identity cache"), table.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theMixtureOfExpertsPresetRunsThroughTheQwen3MoePluginInBothExpertLayouts(@TempDir Path tmp) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        // bf16 writes one tensor per expert (Hugging Face's layout), q8 mlx-lm's stacked switch_mlp
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--preset", "moe-tiny", "--weights", "bf16,q8", "--json", "--probe-mib", "16", "--context", "32",
                "--steps", "2", "--warmup", "1", "--prefill-tokens", "16", "--batches", "1,4", "--tmp", tmp.toString());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) lines.add(new ObjectMapper().readTree(line));
        assertTrue(lines.getFirst().get("model").asText().contains("8 experts of width 64 (top 2)"), lines.getFirst().toString());
        List<JsonNode> rows = lines.subList(1, lines.size());
        assertEquals(2 * 3, rows.size(), "bf16, q8 x (prefill + 2 batches): " + rows);
        for (JsonNode r : rows) assertTrue(r.get("tok_per_s").asDouble() > 0 && r.get("floor_tok_per_s").asDouble() > 0, r.toString());
        JsonNode batchOne = rows.stream().filter(r -> r.get("phase").asText().equals("decode") && r.get("batch").asInt() == 1).findFirst().orElseThrow();
        assertEquals(">= 70% of floor", batchOne.get("target").asText(), "the mixture-of-experts target for bf16 and 8-bit experts");
    }

    /** The tool {@code panamax bench decode} runs (its command prints to the process's streams, so the test calls the tool). */
    private static ToolProvider tool() {
        return ToolProvider.findFirst("panamax-bench-decode").orElseThrow(() -> new AssertionError("panamax-bench-decode is not installed"));
    }

    @Test
    void badArgumentsNameTheFlag() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--weights", "fp8");
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--weights: expected"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aModelDirectoryIsMeasuredInItsOwnFormatAndKeptInPlace() throws IOException {
        Path demo = panamax.demo.DemoModel.directory();
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--model", demo.toString(), "--json", "--probe-mib", "16", "--context", "32", "--steps", "2", "--warmup", "1",
                "--prefill-tokens", "0", "--batches", "1");
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        JsonNode machine = new ObjectMapper().readTree(lines.getFirst());
        assertTrue(machine.get("model").asText().startsWith("8 layers, hidden 256"), machine.toString());
        JsonNode row = new ObjectMapper().readTree(lines.get(1));
        assertEquals("q8", row.get("weights").asText(), "the demo model's config says 8-bit");
        assertTrue(row.get("tok_per_s").asDouble() > 0, row.toString());
        assertTrue(Files.isRegularFile(demo.resolve("model.safetensors")), "a given model is never deleted");

        exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--model", demo.toString(), "--weights", "q4");
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--weights: not with --model"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void saveKeepsEachFormatsCheckpointWholeForALaterRunAndNeverOverwritesIt(@TempDir Path tmp) throws IOException {
        Path saved = tmp.resolve("checkpoints");
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = run(out, err, "--preset", "tiny", "--weights", "q8,q4", "--json", "--probe-mib", "16", "--context", "32", "--steps", "2",
                "--warmup", "1", "--prefill-tokens", "0", "--batches", "1", "--save", saved.toString());
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        try (Stream<Path> kept = Files.list(saved)) {
            assertEquals(List.of("tiny-q4", "tiny-q8"), kept.map(p -> p.getFileName().toString()).sorted().toList(),
                    "one folder per format, no partial ones");
        }
        for (String format : List.of("q8", "q4")) {
            Path dir = saved.resolve("tiny-" + format);
            assertTrue(Files.isRegularFile(dir.resolve("config.json")) && Files.isRegularFile(dir.resolve("model.safetensors")), dir.toString());
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("(kept: measure it again with --model " + dir + ")"), err.toString(StandardCharsets.UTF_8));
        }

        // the kept checkpoint measures as a model directory, in its own format
        out.reset();
        exit = run(out, err, "--model", saved.resolve("tiny-q4").toString(), "--json", "--probe-mib", "16", "--context", "32", "--steps", "2",
                "--warmup", "1", "--prefill-tokens", "0", "--batches", "1");
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        JsonNode row = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8).lines().toList().get(1));
        assertEquals("q4", row.get("weights").asText(), row.toString());

        // a second --save to the same place is refused before anything runs, and the kept files stay as they were
        long size = Files.size(saved.resolve("tiny-q8/model.safetensors"));
        err.reset();
        exit = run(out, err, "--preset", "tiny", "--weights", "q8", "--save", saved.toString());
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--save: " + saved.resolve("tiny-q8") + " already exists"),
                err.toString(StandardCharsets.UTF_8));
        assertEquals(size, Files.size(saved.resolve("tiny-q8/model.safetensors")));
        err.reset();
        exit = run(out, err, "--model", saved.resolve("tiny-q8").toString(), "--save", saved.toString());
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--save: not with --model"), err.toString(StandardCharsets.UTF_8));
    }

    private static int run(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
        return tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), args);
    }
}
