package panamax.backend.java.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import panamax.api.memory.HugePageMemory;

/**
 * Off-heap memory shared by the weight tiles of one or more matrices ({@link AffineTiles}, {@link Bf16Tiles}), zeroed,
 * freed when the last of its users releases it: a stack of experts takes one region, in 2 MiB pages from
 * {@link #HUGE_PAGE_BYTES} on, where each 1.5 MiB expert alone would sit in 4 KiB pages (page faults when filled, TLB
 * misses when streamed).
 */
final class TileRegion {
    /**
     * Regions of at least this many bytes go in memory Linux is asked to back with 2 MiB pages ({@link HugePageMemory}): the
     * tiles are what decode streams, and 4 KiB pages cost TLB misses under nested paging; smaller regions would waste
     * most of a page.
     */
    private static final long HUGE_PAGE_BYTES = 2L << 20;

    private final Arena arena = Arena.ofShared();
    final MemorySegment memory;
    private final AtomicInteger users;

    TileRegion(long bytes, int users) {
        this.memory = bytes >= HUGE_PAGE_BYTES ? HugePageMemory.allocate(bytes, arena) : arena.allocate(bytes, 64);
        this.users = new AtomicInteger(users);
    }

    /** One user is done; the last frees the memory. */
    void release() {
        if (users.decrementAndGet() == 0) arena.close();
    }
}
