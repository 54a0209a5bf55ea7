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
import org.junit.jupiter.api.Test;

/** {@code panamax parity} over the llama-tiny fixture, through the same entry point as the launcher. */
class ParityCommandTest {
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

    @Test
    void printsOneJsonObjectWithTheFourNumbers() throws Exception {
        Path model = fixture("llama-tiny");
        String[] r = run("parity", "--model", model.toString(), "--reference", model.resolve("reference.safetensors").toString(),
                "--hf-buffers", "stored_dtype");
        assertEquals("0", r[0], r[2]);
        JsonNode json = new ObjectMapper().readTree(r[1]);
        for (String field : new String[]{"max_abs_diff_single", "max_abs_diff_steps", "max_abs_diff_batch"}) {
            assertTrue(json.get(field).asDouble() <= 1e-4, field + " in " + r[1]);
        }
        assertEquals(1.0, json.get("greedy_match").asDouble(), r[1]);
        assertEquals(1, r[1].strip().lines().count(), r[1]);
    }

    /**
     * 4-bit KV moves the logits, but within bounds. Measured on qwen3-tiny (group 32, random
     * weights, logits of std ≈ 1): max |Δlogit| 0.637 single, 0.563 steps, 0.804 batch; greedy
     * match 0.857 with no decisive mismatch. Bounds: 1.2 on each max |Δlogit| (1.5× the largest)
     * and a greedy match of at least 0.7; deterministic arithmetic, so the margin is for rounding
     * differences between CPUs, not chance.
     */
    @Test
    void quantizedKvMovesTheLogitsWithinABound() throws Exception {
        Path model = fixture("qwen3-tiny"); // head dim 32: affine groups of 32 fit
        String[] r = run("parity", "--model", model.toString(), "--kv-bits", "4", "--kv-group-size", "32");
        assertEquals("0", r[0], r[2]);
        JsonNode json = new ObjectMapper().readTree(r[1]);
        System.out.println("qwen3-tiny parity with 4-bit KV: " + r[1].strip());
        assertTrue(json.get("max_abs_diff_single").asDouble() > 1e-4, "4-bit KV should move the logits: " + r[1]);
        for (String field : new String[]{"max_abs_diff_single", "max_abs_diff_steps", "max_abs_diff_batch"}) {
            assertTrue(json.get(field).asDouble() <= 1.2, field + " of 4-bit KV in " + r[1]);
        }
        assertTrue(json.get("greedy_match").asDouble() >= 0.7, "greedy match of 4-bit KV in " + r[1]);
    }

    @Test
    void aMissingReferenceIsAUsageErrorNamingIt() {
        String[] r = run("parity", "--model", fixture("llama-tiny").toString(), "--reference", "/nonexistent/ref.safetensors");
        assertEquals(Integer.toString(Cli.USAGE), r[0]);
        assertTrue(r[2].contains("--reference /nonexistent/ref.safetensors"), r[2]);
    }
}
