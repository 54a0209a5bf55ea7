package panamax.model.support.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.model.LoadOptions;

/**
 * A copied checkpoint's data section starts on a cache line whatever the header's length (a
 * multiple of 8 at best), so the weight kernels' vector loads do not straddle lines; the bytes are
 * those of the file, as when it is mapped.
 */
class CopiedWeightsAlignmentTest {
    @TempDir
    Path dir;

    @Test
    void copiedTensorsStartOnACacheLineAndHoldTheFilesBytes() throws Exception {
        // tensor names of different lengths move the data section through every multiple of 8 mod 64
        for (int pad = 0; pad < 8; pad++) {
            float[] values = new float[48];
            for (int i = 0; i < values.length; i++) values[i] = i * 0.25f - pad;
            Path file = dir.resolve("w" + pad + ".safetensors");
            Files.write(file, new SafetensorsWriter().f32("t" + "x".repeat(pad * 8), new int[] {48}, values)
                    .f32("second", new int[] {16}, new float[16]).bytes());
            try (Arena arena = Arena.ofShared()) { // the copy runs on virtual threads
                MappedSafetensors copied = MappedSafetensors.open(file, arena, LoadOptions.Weights.COPY, null);
                MappedSafetensors mapped = MappedSafetensors.open(file, arena, LoadOptions.Weights.MAP, null);
                String name = "t" + "x".repeat(pad * 8);
                MemorySegment c = copied.data(copied.header().tensors().get(name));
                MemorySegment m = mapped.data(mapped.header().tensors().get(name));
                assertEquals(0, c.address() % 64, "copied data of " + file.getFileName() + " at address " + c.address());
                assertEquals(-1, c.mismatch(m), "copied bytes of " + file.getFileName());
                assertEquals(Files.size(file), copied.mapping().byteSize());
            }
        }
    }
}
