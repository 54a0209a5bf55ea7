package panamax.models.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import panamax.api.error.BadModelFileException;
import panamax.model.support.weights.SafetensorsHeader;
import panamax.model.support.weights.TensorEntry;

/**
 * The safetensors header reader under arbitrary bytes: it either returns entries that lie inside
 * the file and agree with their dtype and shape, or throws {@link BadModelFileException}; any other
 * throwable fails the test. Regression mode (the default) runs the committed inputs under
 * {@code src/test/resources/panamax/models/fuzz/SafetensorsHeaderFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes.
 * Those named {@code valid-*} must parse, so a reader that rejected everything would fail.
 */
class SafetensorsHeaderFuzzTest {
    private static final Path FILE = Path.of("fuzzed.safetensors");
    private static final String INPUTS = "SafetensorsHeaderFuzzTestInputs/headersEitherParseConsistentlyOrFailWithBadModelFile";

    @FuzzTest(maxDuration = "30s")
    void headersEitherParseConsistentlyOrFailWithBadModelFile(byte[] data) {
        SafetensorsHeader header;
        try {
            header = SafetensorsHeader.parse(FILE, MemorySegment.ofArray(data));
        } catch (BadModelFileException expected) {
            return;
        }
        check(header, data);
    }

    @Test
    void theValidSeedsParse() throws Exception {
        List<Path> valid = seeds("valid-");
        assertTrue(valid.size() >= 2, "valid seeds: " + valid);
        for (Path f : valid) {
            byte[] data = Files.readAllBytes(f);
            try {
                check(SafetensorsHeader.parse(FILE, MemorySegment.ofArray(data)), data);
            } catch (BadModelFileException e) {
                throw new AssertionError(f.getFileName() + " is valid and must parse: " + e.getMessage(), e);
            }
        }
    }

    @Test
    void theTwoTensorSeedKeepsBothEntries() throws Exception {
        byte[] data = Files.readAllBytes(seeds("valid-two-tensors").getFirst());
        SafetensorsHeader header = SafetensorsHeader.parse(FILE, MemorySegment.ofArray(data));
        assertEquals(List.of("a", "b"), header.tensors().keySet().stream().sorted().toList());
        assertEquals(8, header.tensors().get("a").byteSize());
        assertEquals(4, header.tensors().get("b").byteSize());
    }

    private static void check(SafetensorsHeader header, byte[] data) {
        long dataLength = data.length - header.dataStart();
        for (TensorEntry e : header.tensors().values()) {
            if (e.begin() < 0 || e.end() > dataLength || e.byteSize() != e.shape().size() * e.dtype().byteSize()) {
                throw new AssertionError("accepted an inconsistent entry " + e + " [" + e.begin() + ", " + e.end() + ") of " + dataLength);
            }
        }
    }

    private static List<Path> seeds(String prefix) throws IOException, URISyntaxException {
        URL dir = SafetensorsHeaderFuzzTest.class.getResource(INPUTS);
        if (dir == null) throw new AssertionError("no seed directory " + INPUTS + " on the class path");
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            List<Path> found = files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList();
            if (found.isEmpty()) throw new AssertionError("no seed named " + prefix + "* under " + INPUTS);
            return found;
        }
    }
}
