package panamax.backend.java;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The committed written-out kernels (src/generated/java's {@code Bf16RowEncoder}, and the generated
 * regions of {@code HadamardVectors} and {@code Bf16RowDecoder}) are exactly what
 * {@code tools/gen-bf16-row-kernels.py} writes, and {@code AffineDots} and {@code AffineTileDots} what
 * {@code tools/gen-affine-dot-kernels.py} and {@code tools/gen-affine-tile-kernels.py} write: nobody edited them by hand, and nobody changed the
 * generator without regenerating. Needs {@code python3}; fails, naming what is missing, without it.
 */
class GeneratedKernelsTest {
    @Test
    void committedKernelsEqualTheGeneratorsOutput() throws IOException, InterruptedException {
        assertGeneratorAgrees("gen-bf16-row-kernels.py", "3 files match the generator's output");
    }

    @Test
    void committedAffineDotsEqualTheGeneratorsOutput() throws IOException, InterruptedException {
        assertGeneratorAgrees("gen-affine-dot-kernels.py", "1 file matches the generator's output");
    }

    @Test
    void committedAffineTileDotsEqualTheGeneratorsOutput() throws IOException, InterruptedException {
        assertGeneratorAgrees("gen-affine-tile-kernels.py", "2 files match the generator's output");
    }

    private static void assertGeneratorAgrees(String script, String expected) throws IOException, InterruptedException {
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.exists(here.resolve("backend-java")) ? here : here.getParent();
        Path generator = root.resolve("tools").resolve(script);
        assertTrue(Files.isRegularFile(generator), "the kernels' generator is missing: expected " + generator);
        Process check;
        try {
            check = new ProcessBuilder("python3", generator.toString(), "--check").redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("python3 runs the kernels' generator in check mode and could not be started: " + e.getMessage());
            return;
        }
        String output = new String(check.getInputStream().readAllBytes(), UTF_8).strip();
        assertTrue(check.waitFor(2, TimeUnit.MINUTES), "the generator's check did not finish in 2 minutes");
        assertEquals(0, check.exitValue(), output);
        assertEquals(expected, output);
    }
}
