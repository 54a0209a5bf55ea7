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
 * tensors. Holds at most {@code capacity} bytes (buffers of at most {@code capacity / 8} each);
 * anything beyond is released at once. Pooled bytes are not "active". Thread-safe; owned by the
 * backend, which {@link #close()}s it.
 */
final class SegmentPool implements AutoCloseable {
    /** One buffer and the arena that owns it. */
    record Buffer(Arena arena, MemorySegment segment) {
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
    private final Map<Long, ConcurrentLinkedDeque<Buffer>> free = new ConcurrentHashMap<>();
    private final AtomicLong pooled = new AtomicLong();
    private volatile boolean closed;

    SegmentPool(long capacity) {
        this.capacity = capacity;
    }

    /** A buffer of exactly {@code bytes}: recycled (contents undefined) or freshly zeroed. */
    Buffer take(long bytes) {
        ConcurrentLinkedDeque<Buffer> list = free.get(bytes);
        if (list != null) {
            Buffer b = list.pollFirst();
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
        if (closed || bytes > capacity / 8 || pooled.addAndGet(bytes) > capacity) {
            if (!closed && bytes <= capacity / 8) pooled.addAndGet(-bytes);
            b.arena().close();
            return;
        }
        free.computeIfAbsent(bytes, k -> new ConcurrentLinkedDeque<>()).addFirst(b);
        if (closed) drain();
    }

    private void drain() {
        for (ConcurrentLinkedDeque<Buffer> list : free.values()) {
            for (Buffer b; (b = list.pollFirst()) != null; ) {
                pooled.addAndGet(-b.segment().byteSize());
                b.arena().close();
            }
        }
    }

    /** Releases every pooled buffer; later returns are released at once. */
    @Override
    public void close() {
        closed = true;
        drain();
    }
}
