package panamax.model.support.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;
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
