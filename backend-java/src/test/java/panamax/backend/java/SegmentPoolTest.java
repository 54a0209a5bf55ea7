package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.OffHeapMemory;

/**
 * The pool's fresh buffers: zeroed, of the size asked for, those of 2 MiB or more starting on a 2 MiB boundary (the
 * memory Linux may back with huge pages), and recycled by exact size; a full pool makes room by releasing the sizes
 * used least recently, not by turning away the buffers in use now.
 */
class SegmentPoolTest {
    @Test
    void largeBuffersStartOnAHugePageBoundaryAndComeBackZeroedThenRecycled() {
        try (SegmentPool pool = new SegmentPool(64L << 20)) {
            long bytes = OffHeapMemory.HUGE_PAGE_BYTES + 12_345;
            SegmentPool.Buffer large = pool.take(bytes);
            assertEquals(bytes, large.segment().byteSize());
            assertEquals(0, large.segment().address() % OffHeapMemory.HUGE_PAGE_BYTES, "2 MiB aligned");
            for (long at = 0; at < bytes; at += 4096) assertEquals(0, large.segment().get(ValueLayout.JAVA_BYTE, at));
            assertEquals(0, large.segment().get(ValueLayout.JAVA_BYTE, bytes - 1));
            large.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, bytes - 8, -1L); // the whole range is writable
            pool.give(large);
            assertSame(large, pool.take(bytes), "recycled by exact size");
        }
    }

    @Test
    void smallBuffersStayInOrdinaryAllocations() {
        try (SegmentPool pool = new SegmentPool(64L << 20)) {
            long bytes = OffHeapMemory.HUGE_PAGE_BYTES - 64;
            SegmentPool.Buffer small = pool.take(bytes);
            assertEquals(bytes, small.segment().byteSize());
            assertEquals(0, small.segment().address() % 64);
            small.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, bytes - 8, -1L);
            pool.give(small);
            assertSame(small, pool.take(bytes), "recycled by exact size");
        }
    }

    @Test
    void aFullPoolReleasesTheStalestSizesForTheBuffersInUseNow() {
        long capacity = 8L << 20, prefillSize = 1L << 20, decodeSize = 256L << 10; // at most capacity / 8 each
        try (SegmentPool pool = new SegmentPool(capacity)) {
            SegmentPool.Buffer[] prefill = new SegmentPool.Buffer[8];
            for (int i = 0; i < prefill.length; i++) prefill[i] = pool.take(prefillSize);
            for (SegmentPool.Buffer b : prefill) pool.give(b); // the pool is now full of one size
            SegmentPool.Buffer decode = pool.take(decodeSize);
            pool.give(decode);
            assertSame(decode, pool.take(decodeSize), "the new size was kept, not released");
            pool.give(decode);
            int recycled = 0;
            for (int i = 0; i < prefill.length; i++) {
                SegmentPool.Buffer b = pool.take(prefillSize);
                for (SegmentPool.Buffer old : prefill) if (old == b) recycled++;
            }
            assertEquals(0, recycled, "the stale size was released whole to make room");
            assertSame(decode, pool.take(decodeSize));
        }
    }

    @Test
    void aBufferOfTheOnlySizeLeftIsReleasedWhenItDoesNotFit() {
        long capacity = 8L << 20, size = 1L << 20;
        try (SegmentPool pool = new SegmentPool(capacity)) {
            SegmentPool.Buffer[] buffers = new SegmentPool.Buffer[9];
            for (int i = 0; i < buffers.length; i++) buffers[i] = pool.take(size);
            for (SegmentPool.Buffer b : buffers) pool.give(b); // the ninth does not fit beside the other eight
            int recycled = 0;
            for (int i = 0; i < buffers.length; i++) {
                SegmentPool.Buffer b = pool.take(size);
                for (SegmentPool.Buffer old : buffers) if (old == b) recycled++;
            }
            assertEquals(8, recycled);
        }
    }
}
