package panamax.backend.java;

import panamax.api.tensor.MemoryCounter;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import panamax.backend.java.kernel.DerivedForm;

/**
 * Reference-counted bytes behind one or more {@link JavaTensor} handles. Owned storage is a buffer
 * with its own shared {@link java.lang.foreign.Arena}, handed back to the backend's
 * {@link SegmentPool} when the last handle is released (the pool closes the arena or recycles the
 * buffer); wrapped storage borrows a caller's segment (e.g. a memory-mapped weight file) and never
 * frees it. Thread-safe.
 *
 * <p>Storage never written in place ({@link #written}) may hold derived forms of its bytes: weights repacked into
 * tiles or their codes widened ({@link #derived}), built once, counted as mapped bytes (weights, not activations), and closed when the storage
 * is freed or first written in place. A form declined once (no room, not worth it) stays declined.
 */
final class Storage {
    private final MemoryCounter accounting;
    private final MemorySegment segment;
    private final SegmentPool pool; // null for wrapped segments
    private final SegmentPool.Buffer buffer; // null for wrapped segments
    private final AtomicInteger references = new AtomicInteger(1);
    private final AtomicLong writes = new AtomicLong();
    private final Map<Object, Derived> derived = new ConcurrentHashMap<>();

    /** A form derived from the bytes, with the bytes it holds; a null value records a form declined. */
    private record Derived(DerivedForm value, long bytes) {
    }

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

    /** An in-place write reached these bytes (writeSlice, writeAlongAxis): derived forms are dropped, none is made again. */
    void written() {
        writes.incrementAndGet();
        dropDerived();
    }

    /** True for a caller's segment wrapped by {@code fromSegment} (a loaded weight), false for the backend's own buffers. */
    boolean borrowed() {
        return buffer == null;
    }

    /** True while no in-place write has reached these bytes, so forms derived from them stay true. */
    boolean neverWritten() {
        return writes.get() == 0;
    }

    /**
     * The form derived under {@code key}, made by {@code make} on first use (one thread makes it; others wait), or null
     * where {@code make} declined (returned null): that answer is kept too, so a matrix does not change kernels, and
     * its rows' bits, later in the process. Callers check {@link #neverWritten} first.
     */
    @SuppressWarnings("unchecked")
    <T extends DerivedForm> T derived(Object key, Supplier<T> make) {
        Derived d = derived.computeIfAbsent(key, k -> {
            T value = make.get();
            long held = value == null ? 0 : value.bytes();
            accounting.mapped(held);
            return new Derived(value, held);
        });
        return (T) d.value();
    }

    /** True when a form is derived under {@code key}. */
    boolean hasDerived(Object key) {
        return derived.containsKey(key);
    }

    private void dropDerived() {
        for (Object key : derived.keySet()) {
            Derived d = derived.remove(key);
            if (d == null) continue;
            if (d.value() != null) d.value().close();
            accounting.unmapped(d.bytes());
        }
    }

    void release() {
        int left = references.decrementAndGet();
        if (left == 0) {
            dropDerived();
            if (buffer != null) {
                accounting.freed(segment.byteSize());
                pool.give(buffer);
            } else {
                accounting.unmapped(segment.byteSize());
            }
        }
    }
}
