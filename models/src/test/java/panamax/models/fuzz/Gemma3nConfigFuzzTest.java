package panamax.models.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.models.decoder.Gemma3nConfig;
import panamax.model.support.config.HfConfig;

/**
 * Gemma 3n's config.json reading under arbitrary bytes: read into a consistent {@link Gemma3nConfig}
 * (every donor an earlier, non-borrowing layer of the same attention type) or rejected with
 * {@link BadModelFileException}. Seeds named {@code valid-*} must be read; the others must be rejected.
 */
class Gemma3nConfigFuzzTest {
    private static final Path FILE = Path.of("config.json");
    private static final String INPUTS = "Gemma3nConfigFuzzTestInputs/configsEitherReadConsistentlyOrFailWithBadModelFile";

    @FuzzTest(maxDuration = "30s")
    void configsEitherReadConsistentlyOrFailWithBadModelFile(byte[] data) {
        try {
            check(Gemma3nConfig.read(HfConfig.parse(FILE, data), LoadOptions.BufferPrecision.STORED_DTYPE));
        } catch (BadModelFileException expected) {
            // rejected with file and field named
        }
    }

    @Test
    void validSeedsAreReadAndTheOthersRejectedByName() throws Exception {
        List<Path> seeds = seeds();
        assertTrue(seeds.stream().filter(f -> f.getFileName().toString().startsWith("valid-")).count() >= 3, "valid seeds: " + seeds);
        for (Path f : seeds) {
            boolean valid = f.getFileName().toString().startsWith("valid-");
            try {
                check(Gemma3nConfig.read(HfConfig.parse(FILE, Files.readAllBytes(f)), LoadOptions.BufferPrecision.FLOAT32));
                if (!valid) fail(f.getFileName() + " is malformed and must be rejected");
            } catch (BadModelFileException e) {
                if (valid) fail(f.getFileName() + " is valid and must be read: " + e.getMessage(), e);
            }
        }
    }

    private static void check(Gemma3nConfig c) {
        boolean consistent = c.attention().size() == c.layers() && c.heads() % c.kvHeads() == 0 && c.altupActive() < c.altupStreams()
                && c.intermediate().length == c.layers() && c.sparsity().length == c.layers();
        for (int i = 0; i < c.layers() && consistent; i++) {
            int d = c.donor(i);
            consistent = c.sparsity()[i] >= 0 && c.sparsity()[i] < 1
                    && (d < 0 || (d < i && c.donor(d) < 0 && c.attention().get(d).window() == c.attention().get(i).window()));
        }
        if (!consistent) throw new AssertionError("accepted an inconsistent config " + c);
    }

    private static List<Path> seeds() throws IOException, URISyntaxException {
        URL dir = Gemma3nConfigFuzzTest.class.getResource(INPUTS);
        if (dir == null) throw new AssertionError("no seed directory " + INPUTS + " on the class path");
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            return files.sorted().toList();
        }
    }
}
