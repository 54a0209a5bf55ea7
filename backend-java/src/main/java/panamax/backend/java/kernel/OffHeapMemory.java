package panamax.backend.java.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import panamax.api.memory.HugePageMemory;

/**
 * Where the backend's own off-heap memory comes from (tensor buffers, weight tiles): zeroed, 64-byte aligned, and from
 * {@link #HUGE_PAGE_BYTES} on in memory Linux is asked to back with 2 MiB pages ({@link HugePageMemory}). Each decode
 * step streams the weights, which evicts the TLB, so whatever is read after them from 4 KiB pages (weight tiles, a long
 * KV cache's planes) pays a page walk under nested paging every 4 KiB: attention over 4,096 cold f32 tokens (8 kv heads
 * of 64) took 886-932 µs per layer from 4 KiB pages and 816-818 from 2 MiB ones. Smaller allocations stay in ordinary
 * pages, where a huge page would leave much of itself resident and unused. Stateless.
 */
public final class OffHeapMemory {
    /** Allocations of at least this many bytes are asked for 2 MiB pages. */
    public static final long HUGE_PAGE_BYTES = 2L << 20;

    private OffHeapMemory() {
    }

    /** {@code bytes} of zeroed memory, freed when {@code arena} closes. */
    public static MemorySegment allocate(long bytes, Arena arena) {
        if (bytes >= HUGE_PAGE_BYTES) return HugePageMemory.allocate(bytes, arena);
        return arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
    }
}
