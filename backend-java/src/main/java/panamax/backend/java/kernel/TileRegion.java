package panamax.backend.java.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Off-heap memory shared by the weight tiles of one or more matrices ({@link AffineTiles}, {@link Bf16Tiles}), zeroed,
 * freed when the last of its users releases it: a stack of experts takes one region, in 2 MiB pages from
 * {@link OffHeapMemory#HUGE_PAGE_BYTES} on, where each 1.5 MiB expert alone would sit in 4 KiB pages (page faults when
 * filled, TLB misses when streamed).
 */
final class TileRegion {
    private final Arena arena = Arena.ofShared();
    final MemorySegment memory;
    private final AtomicInteger users;

    TileRegion(long bytes, int users) {
        this.memory = OffHeapMemory.allocate(bytes, arena);
        this.users = new AtomicInteger(users);
    }

    /** One user is done; the last frees the memory. */
    void release() {
        if (users.decrementAndGet() == 0) arena.close();
    }
}
