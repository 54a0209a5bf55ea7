package panamax.model.support.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.model.LoadOptions.Weights;

class WeightPlacementTest {
    private static final long GIB = 1L << 30;

    @Test
    void autoCopiesWhereHugePagesAreOfferedAndTheFileFitsInHalfTheAvailableMemory() {
        assertEquals(Weights.COPY, WeightPlacement.choose(GIB, true, "always [madvise] never", 4 * GIB));
        assertEquals(Weights.COPY, WeightPlacement.choose(2 * GIB, true, "[always] madvise never", 4 * GIB));
        // more than half of what is available: the copy could crowd the machine
        assertEquals(Weights.MAP, WeightPlacement.choose(2 * GIB + 1, true, "always [madvise] never", 4 * GIB));
        // huge pages switched off, or the advice cannot be given
        assertEquals(Weights.MAP, WeightPlacement.choose(GIB, true, "always madvise [never]", 4 * GIB));
        assertEquals(Weights.MAP, WeightPlacement.choose(GIB, false, "always [madvise] never", 4 * GIB));
        // facts unknown (not Linux, unreadable files)
        assertEquals(Weights.MAP, WeightPlacement.choose(GIB, true, null, 4 * GIB));
        assertEquals(Weights.MAP, WeightPlacement.choose(GIB, true, "always [madvise] never", -1));
    }

    @Test
    void explicitChoicesAreKept() {
        assertEquals(Weights.MAP, WeightPlacement.resolve(Weights.MAP, 1));
        assertEquals(Weights.COPY, WeightPlacement.resolve(Weights.COPY, Long.MAX_VALUE));
    }

    @Test
    void aDirectoryIsPlacedAsItsFilesWouldBe(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("model.safetensors");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(8L << 40); // sparse: 8 TiB on paper, more than half of any machine's memory
        }
        assertEquals(Weights.MAP, WeightFiles.placement(dir, Weights.AUTO));
        assertEquals(Weights.COPY, WeightFiles.placement(dir, Weights.COPY));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(4096);
        }
        assertEquals(WeightPlacement.resolve(Weights.AUTO, 4096), WeightFiles.placement(dir, Weights.AUTO));
        assertEquals(Weights.MAP, WeightFiles.placement(dir, Weights.MAP));
    }

    @Test
    void readsTheSysfsChoiceAndMeminfo() {
        assertEquals("madvise", WeightPlacement.selected("always [madvise] never"));
        assertNull(WeightPlacement.selected("always madvise never"));
        assertNull(WeightPlacement.selected(null));
        assertEquals(24_000_000L * 1024, WeightPlacement.memAvailable(List.of("MemTotal:       25000000 kB",
                "MemFree:         1000000 kB", "MemAvailable:   24000000 kB")));
        assertEquals(-1, WeightPlacement.memAvailable(List.of("MemTotal:       25000000 kB")));
        assertEquals(-1, WeightPlacement.memAvailable(List.of("MemAvailable:   lots kB")));
    }
}
