package panamax.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How BackendAb sizes its weight pool from the machine's caches (no products are run). */
class BackendAbTest {
    @Test
    void readsSysfsCacheSizes() {
        assertEquals(491520L << 10, BackendAb.cacheBytes("491520K"));
        assertEquals(2L << 20, BackendAb.cacheBytes("2M"));
        assertEquals(1L << 30, BackendAb.cacheBytes("1G"));
        assertEquals(4096, BackendAb.cacheBytes("4096"));
        assertThrows(NumberFormatException.class, () -> BackendAb.cacheBytes("lots"));
    }

    @Test
    void poolIsTwiceTheLargestCacheAndNeverUnder256MiB(@TempDir Path caches) throws IOException {
        assertEquals(256, BackendAb.poolMib(caches.resolve("missing")), "no cache descriptions");
        cache(caches, "index0", "48K");
        cache(caches, "index2", "2048K");
        assertEquals(256, BackendAb.poolMib(caches), "caches under 128 MiB");
        cache(caches, "index3", "491520K");
        Files.createDirectories(caches.resolve("power")); // not a cache: skipped
        assertEquals(960, BackendAb.poolMib(caches), "this VM's 480 MiB L3");
    }

    private static void cache(Path caches, String index, String size) throws IOException {
        Files.createDirectories(caches.resolve(index));
        Files.writeString(caches.resolve(index).resolve("size"), size + "\n");
    }
}
