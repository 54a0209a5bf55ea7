package panamax.backend.java;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import panamax.backend.java.kernel.OffHeapMemory;

/**
 * Recycles freed tensor buffers of one backend by exact byte size, because closing a shared
 * {@link Arena} costs several microseconds and a decode step frees thousands of same-sized
 * tensors. Holds at most {@code capacity} bytes (buffers of at most {@code capacity / 8} each).
 * When a returned buffer does not fit, the sizes least recently taken or returned are released to
 * make room: a prefill leaves the pool full of its own sizes, which the decode steps after it never
 * take, and when the pool turned the returned buffer away instead, every decode buffer was
 * allocated and zeroed afresh each step (the 1B preset at batch 8 after a 512-token prefill: 7,878
 * page faults over 16 timed steps, then 11-1,035). Pooled bytes are not "active". Thread-safe;
 * owned by the backend, which {@link #close()}s it.
 */
final class SegmentPool implements AutoCloseable {
    /** One buffer and the arena that owns it. */
    record Buffer(Arena arena, MemorySegment segment) {
    }

    /**
     * The pooled buffers of one byte size, and when that size was last taken or returned. The stamps are plain fields
     * of a plain counter, since every allocation and release sets one: a lost increment or a stale read only orders two
     * sizes' eviction differently.
     */
    private static final class SizeClass {
        final ConcurrentLinkedDeque<Buffer> buffers = new ConcurrentLinkedDeque<>();
        long lastUsed;
    }

    private final long capacity;
    private final Map<Long, SizeClass> free = new ConcurrentHashMap<>();
    private final AtomicLong pooled = new AtomicLong();
    private long clock;
    private volatile boolean closed;

    SegmentPool(long capacity) {
        this.capacity = capacity;
    }

    /** A buffer of exactly {@code bytes}: recycled (contents undefined) or freshly zeroed. */
    Buffer take(long bytes) {
        SizeClass sizeClass = free.get(bytes);
        if (sizeClass != null) {
            sizeClass.lastUsed = ++clock;
            Buffer b = sizeClass.buffers.pollFirst();
            if (b != null) {
                pooled.addAndGet(-bytes);
                return b;
            }
        }
        Arena arena = Arena.ofShared();
        return new Buffer(arena, OffHeapMemory.allocate(bytes, arena)); // long KV caches' planes in 2 MiB pages
    }

    /** Takes back a buffer no handle uses any more. */
    void give(Buffer b) {
        long bytes = b.segment().byteSize();
        if (closed || bytes > capacity / 8) {
            b.arena().close();
            return;
        }
        SizeClass sizeClass = free.computeIfAbsent(bytes, k -> new SizeClass());
        sizeClass.lastUsed = ++clock;
        if (pooled.addAndGet(bytes) > capacity && !makeRoom(sizeClass)) {
            pooled.addAndGet(-bytes);
            b.arena().close();
            return;
        }
        sizeClass.buffers.addFirst(b);
        if (closed) drain();
    }

    /**
     * Releases the pooled buffers of the sizes least recently used, a whole size at a time, until the pool is within
     * its capacity; false when only {@code keep}'s size is left to release.
     */
    private synchronized boolean makeRoom(SizeClass keep) {
        while (pooled.get() > capacity) {
            SizeClass stalest = null;
            for (SizeClass c : free.values()) {
                if (c != keep && !c.buffers.isEmpty() && (stalest == null || c.lastUsed < stalest.lastUsed)) stalest = c;
            }
            if (stalest == null) return false;
            release(stalest);
        }
        return true;
    }

    private void release(SizeClass c) {
        for (Buffer b; (b = c.buffers.pollFirst()) != null; ) {
            pooled.addAndGet(-b.segment().byteSize());
            b.arena().close();
        }
    }

    private void drain() {
        for (SizeClass c : free.values()) release(c);
    }

    /** Releases every pooled buffer; later returns are released at once. */
    @Override
    public void close() {
        closed = true;
        drain();
    }
}
