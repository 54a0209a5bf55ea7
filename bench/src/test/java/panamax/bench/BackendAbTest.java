package panamax.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

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
    void poolIsAtLeastTwiceTheLargestCacheAndNeverSmallerThanBefore() {
        int mib = BackendAb.defaultPoolMib();
        assertTrue(mib >= 256, "pool of " + mib + " MiB");
    }
}
