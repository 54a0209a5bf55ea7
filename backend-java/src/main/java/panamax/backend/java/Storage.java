package panamax.backend.java;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reference-counted bytes behind one or more {@link JavaTensor} handles. Owned storage lives in
 * its own shared {@link Arena} (closed when the last handle is released); wrapped storage borrows a
 * caller's segment (e.g. a memory-mapped weight file) and never frees it. Thread-safe.
 */
final class Storage {
    private final MemoryAccounting accounting;
    private final MemorySegment segment;
    private final Arena arena; // null for wrapped segments
    private final AtomicInteger references = new AtomicInteger(1);

    private Storage(MemoryAccounting accounting, MemorySegment segment, Arena arena) {
        this.accounting = accounting;
        this.segment = segment;
        this.arena = arena;
    }

    /** Fresh zeroed storage of {@code bytes}, owned by the returned object (one reference). */
    static Storage allocate(MemoryAccounting accounting, long bytes) {
        Arena arena = Arena.ofShared();
        MemorySegment segment = arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
        accounting.allocated(bytes);
        return new Storage(accounting, segment, arena);
    }

    /** Storage over a borrowed native segment; its scope must outlive every handle. */
    static Storage wrap(MemoryAccounting accounting, MemorySegment segment) {
        accounting.mapped(segment.byteSize());
        return new Storage(accounting, segment, null);
    }

    MemorySegment segment() {
        return segment;
    }

    void retain() {
        if (references.getAndIncrement() <= 0) {
            throw new IllegalStateException("tensor storage already freed");
        }
    }

    void release() {
        int left = references.decrementAndGet();
        if (left == 0) {
            if (arena != null) {
                arena.close();
                accounting.freed(segment.byteSize());
            } else {
                accounting.unmapped(segment.byteSize());
            }
        }
    }
}
