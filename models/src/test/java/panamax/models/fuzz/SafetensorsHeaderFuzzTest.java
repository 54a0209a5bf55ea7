package panamax.models.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import panamax.api.error.BadModelFileException;
import panamax.models.safetensors.SafetensorsHeader;
import panamax.models.safetensors.TensorEntry;

/**
 * The safetensors header reader under arbitrary bytes: it either returns entries that lie inside
 * the file and agree with their dtype and shape, or throws {@link BadModelFileException}; any other
 * throwable fails the test. Regression mode (the default) runs the committed inputs under
 * {@code src/test/resources/panamax/models/fuzz/SafetensorsHeaderFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class SafetensorsHeaderFuzzTest {
    private static final Path FILE = Path.of("fuzzed.safetensors");

    @FuzzTest(maxDuration = "30s")
    void headersEitherParseConsistentlyOrFailWithBadModelFile(byte[] data) {
        SafetensorsHeader header;
        try {
            header = SafetensorsHeader.parse(FILE, MemorySegment.ofArray(data));
        } catch (BadModelFileException expected) {
            return;
        }
        long dataLength = data.length - header.dataStart();
        for (TensorEntry e : header.tensors().values()) {
            if (e.begin() < 0 || e.end() > dataLength || e.byteSize() != e.shape().size() * e.dtype().byteSize()) {
                throw new AssertionError("accepted an inconsistent entry " + e + " [" + e.begin() + ", " + e.end() + ") of " + dataLength);
            }
        }
    }
}
