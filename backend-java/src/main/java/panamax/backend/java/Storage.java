package panamax.backend.java;

import panamax.api.tensor.MemoryCounter;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reference-counted bytes behind one or more {@link JavaTensor} handles. Owned storage is a buffer
 * with its own shared {@link java.lang.foreign.Arena}, handed back to the backend's
 * {@link SegmentPool} when the last handle is released (the pool closes the arena or recycles the
 * buffer); wrapped storage borrows a caller's segment (e.g. a memory-mapped weight file) and never
 * frees it. Thread-safe.
 */
final class Storage {
    private final MemoryCounter accounting;
    private final MemorySegment segment;
    private final SegmentPool pool; // null for wrapped segments
    private final SegmentPool.Buffer buffer; // null for wrapped segments
    private final AtomicInteger references = new AtomicInteger(1);

    private Storage(MemoryCounter accounting, MemorySegment segment, SegmentPool pool, SegmentPool.Buffer buffer) {
        this.accounting = accounting;
        this.segment = segment;
        this.pool = pool;
        this.buffer = buffer;
    }

    /**
     * Storage of {@code bytes} from the pool, owned by the returned object (one reference). Its
     * contents are undefined: callers overwrite every byte (or zero it).
     */
    static Storage allocate(MemoryCounter accounting, SegmentPool pool, long bytes) {
        SegmentPool.Buffer buffer = pool.take(bytes);
        accounting.allocated(bytes);
        return new Storage(accounting, buffer.segment(), pool, buffer);
    }

    /** Storage over a borrowed native segment; its scope must outlive every handle. */
    static Storage wrap(MemoryCounter accounting, MemorySegment segment) {
        accounting.mapped(segment.byteSize());
        return new Storage(accounting, segment, null, null);
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
            if (buffer != null) {
                accounting.freed(segment.byteSize());
                pool.give(buffer);
            } else {
                accounting.unmapped(segment.byteSize());
            }
        }
    }
}
