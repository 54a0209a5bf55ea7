package panamax.backend.java;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import panamax.api.memory.HugePageMemory;

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

    /** The pooled buffers of one byte size, and when that size was last taken or returned. */
    private static final class SizeClass {
        final ConcurrentLinkedDeque<Buffer> buffers = new ConcurrentLinkedDeque<>();
        volatile long lastUsed;
    }

    /**
     * Buffers of at least this many bytes (a long KV cache's planes, a prefill's activations) go in memory Linux is asked
     * to back with 2 MiB pages: a decode step's weights evict the TLB, and a layer's keys and values then read from 4 KiB
     * pages paid a page walk under nested paging every 4 KiB (attention over 4,096 f32 tokens, 8 kv heads of 64, cold:
     * 886-932 -> 816-818 us per layer). Smaller buffers stay in ordinary pages: a huge page for a 1.5 MiB buffer would
     * leave a quarter of it resident and unused.
     */
    static final long HUGE_PAGE_BYTES = 2L << 20;
    private final long capacity;
    private final Map<Long, SizeClass> free = new ConcurrentHashMap<>();
    private final AtomicLong pooled = new AtomicLong();
    private final AtomicLong clock = new AtomicLong();
    private volatile boolean closed;

    SegmentPool(long capacity) {
        this.capacity = capacity;
    }

    /** A buffer of exactly {@code bytes}: recycled (contents undefined) or freshly zeroed. */
    Buffer take(long bytes) {
        SizeClass sizeClass = free.get(bytes);
        if (sizeClass != null) {
            sizeClass.lastUsed = clock.incrementAndGet();
            Buffer b = sizeClass.buffers.pollFirst();
            if (b != null) {
                pooled.addAndGet(-bytes);
                return b;
            }
        }
        Arena arena = Arena.ofShared();
        if (bytes >= HUGE_PAGE_BYTES) return new Buffer(arena, HugePageMemory.allocate(bytes, arena));
        return new Buffer(arena, arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes));
    }

    /** Takes back a buffer no handle uses any more. */
    void give(Buffer b) {
        long bytes = b.segment().byteSize();
        if (closed || bytes > capacity / 8) {
            b.arena().close();
            return;
        }
        SizeClass sizeClass = free.computeIfAbsent(bytes, k -> new SizeClass());
        sizeClass.lastUsed = clock.incrementAndGet();
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
