package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The pool's fresh buffers: zeroed, of the size asked for, those of 2 MiB or more starting on a 2 MiB boundary (the
 * memory Linux may back with huge pages), and recycled by exact size.
 */
class SegmentPoolTest {
    @Test
    void largeBuffersStartOnAHugePageBoundaryAndComeBackZeroedThenRecycled() {
        try (SegmentPool pool = new SegmentPool(64L << 20)) {
            long bytes = SegmentPool.HUGE_PAGE_BYTES + 12_345;
            SegmentPool.Buffer large = pool.take(bytes);
            assertEquals(bytes, large.segment().byteSize());
            assertEquals(0, large.segment().address() % SegmentPool.HUGE_PAGE_BYTES, "2 MiB aligned");
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
            long bytes = SegmentPool.HUGE_PAGE_BYTES - 64;
            SegmentPool.Buffer small = pool.take(bytes);
            assertEquals(bytes, small.segment().byteSize());
            assertEquals(0, small.segment().address() % 64);
            small.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, bytes - 8, -1L);
            pool.give(small);
            assertSame(small, pool.take(bytes), "recycled by exact size");
        }
    }
}
