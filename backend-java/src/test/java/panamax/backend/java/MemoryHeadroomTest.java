package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Repacked weights are made only where the machine has room for them ({@link MemoryHeadroom}). */
class MemoryHeadroomTest {
    @Test
    void moreThanTheMachineHoldsNeverFitsAndNothingAlwaysDoesWhereMeminfoCanBeRead() {
        if (!Files.isReadable(Path.of("/proc/meminfo"))) {
            assertTrue(MemoryHeadroom.fits(Long.MAX_VALUE / 4), "without /proc/meminfo everything fits");
            return;
        }
        assertFalse(MemoryHeadroom.fits(Long.MAX_VALUE / 4), "an exabyte of tiles");
        assertFalse(MemoryHeadroom.fits(Runtime.getRuntime().maxMemory() * 1_000_000L), "a million heaps");
    }
}
