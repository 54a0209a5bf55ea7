package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/** Strided views share storage, every op reads them correctly, and memory accounting returns to its baseline. */
class TensorViewsTest extends FreshBackendTest {

    private static float[] iota(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i;
        return v;
    }

    @Test
    void transposeSliceAndBroadcastAreViewsThatAllocateNothing() {
        try (Tensor x = backend.fromFloats(iota(24), Shape.of(2, 3, 4), DType.F32)) {
            long before = backend.memoryStats().activeBytes();
            try (Tensor t = ops.transpose(x, 2, 0, 1);
                 Tensor s = ops.slice(t, 0, 1, 3);
                 Tensor b = ops.broadcastTo(x, Shape.of(5, 2, 3, 4))) {
                assertEquals(before, backend.memoryStats().activeBytes());
                assertEquals(Shape.of(4, 2, 3), t.shape());
                assertEquals(Shape.of(2, 2, 3), s.shape());
                // s[i, j, k] = x[j, k, i + 1]
                float[] got = backend.toFloats(s);
                int at = 0;
                for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) for (int k = 0; k < 3; k++) {
                    assertEquals(j * 12 + k * 4 + i + 1, got[at++], 0f);
                }
                float[] bv = backend.toFloats(b);
                for (int r = 0; r < 5; r++) assertEquals(iota(24)[7], bv[r * 24 + 7], 0f);
            }
        }
    }

    @Test
    void closingAViewKeepsTheBaseAliveAndClosingTheLastHandleFrees() {
        Tensor x = backend.fromFloats(iota(12), Shape.of(3, 4), DType.F32);
        Tensor view = ops.transpose(x, 1, 0);
        x.close();
        assertEquals(48, backend.memoryStats().activeBytes(), "storage lives while a view is open");
        assertEquals(2f, backend.toFloats(view)[6], 0f); // view[2, 0] = x[0, 2]... row-major of [4,3]: index 6 = (2,0)
        view.close();
        assertEquals(0, backend.memoryStats().activeBytes());
        view.close(); // harmless
        assertEquals(0, backend.memoryStats().activeBytes());
    }

    @Test
    void usingAClosedTensorThrowsIllegalState() {
        Tensor x = backend.fromFloats(iota(4), Shape.of(4), DType.F32);
        x.close();
        assertThrows(IllegalStateException.class, () -> backend.toFloats(x));
        assertThrows(IllegalStateException.class, () -> ops.add(x, 1.0));
    }

    @Test
    void everyOpAcceptsNonContiguousViews() {
        try (Tensor x = backend.fromFloats(iota(24), Shape.of(4, 6), DType.BF16);
             Tensor t = ops.transpose(x, 1, 0);            // [6, 4], strides (1, 6)
             Tensor s = ops.slice(t, 1, 1, 3);             // [6, 2]
             Tensor c = ops.copy(s);
             Tensor sum = ops.add(s, c);
             Tensor r = ops.reshape(s, Shape.of(12));      // needs a copy
             Tensor ct = ops.transpose(c, 1, 0);
             Tensor m = ops.matmul(s, ct)) {
            float[] cv = backend.toFloats(c);
            assertArrayEquals(cv, backend.toFloats(r));
            float[] sv = backend.toFloats(sum);
            for (int i = 0; i < cv.length; i++) assertEquals(2 * cv[i], sv[i], 0f);
            float[] mv = backend.toFloats(m);
            for (int i = 0; i < 6; i++) {
                for (int j = 0; j < 6; j++) {
                    float want = cv[i * 2] * cv[j * 2] + cv[i * 2 + 1] * cv[j * 2 + 1];
                    assertEquals(want, mv[i * 6 + j], Math.abs(want) * 1e-2f);
                }
            }
        }
    }

    @Test
    void reshapeOfContiguousDataSharesStorage() {
        try (Tensor x = backend.fromFloats(iota(12), Shape.of(3, 4), DType.F32)) {
            long before = backend.memoryStats().activeBytes();
            try (Tensor r = ops.reshape(x, Shape.of(2, 6))) {
                assertEquals(before, backend.memoryStats().activeBytes());
                assertArrayEquals(iota(12), backend.toFloats(r));
            }
            assertThrows(IllegalArgumentException.class, () -> ops.reshape(x, Shape.of(5)));
        }
    }

    @Test
    void fromSegmentWrapsNativeMemoryWithoutCopyingAndCopiesHeapMemory() {
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(16, 4);
            try (Tensor t = backend.fromSegment(mine, Shape.of(4), DType.F32)) {
                assertEquals(16, backend.memoryStats().activeBytes(), "workers cannot read a confined segment: copied");
                assertEquals(0, backend.memoryStats().mappedBytes());
            }
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment native_ = arena.allocate(16, 4);
            for (int i = 0; i < 4; i++) native_.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), i, i);
            try (Tensor t = backend.fromSegment(native_, Shape.of(4), DType.F32)) {
                assertEquals(0, backend.memoryStats().activeBytes(), "a wrapped segment is not owned storage");
                assertEquals(16, backend.memoryStats().mappedBytes());
                native_.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 3, 42f);
                assertEquals(42f, backend.toFloats(t)[3], 0f, "the tensor reads the caller's memory");
            }
            assertEquals(0, backend.memoryStats().mappedBytes());
        }
        MemorySegment heap = MemorySegment.ofArray(new float[] {1, 2, 3});
        try (Tensor t = backend.fromSegment(heap, Shape.of(3), DType.F32)) {
            assertEquals(12, backend.memoryStats().activeBytes(), "heap segments are copied");
            assertArrayEquals(new float[] {1, 2, 3}, backend.toFloats(t));
        }
        assertThrows(IllegalArgumentException.class, () -> backend.fromSegment(heap, Shape.of(4), DType.F32));
    }

    @Test
    void peakMemoryTracksTheLargestActiveAmountUntilReset() {
        backend.resetPeakMemory();
        try (Tensor a = ops.zeros(Shape.of(1000), DType.F32)) {
            try (Tensor b = ops.zeros(Shape.of(500), DType.F32)) {
                assertEquals(6000, backend.memoryStats().peakBytes());
            }
            assertEquals(4000, backend.memoryStats().activeBytes());
            backend.resetPeakMemory();
            assertEquals(4000, backend.memoryStats().peakBytes());
        }
    }

    @Test
    void recycledBuffersNeverLeakOldValuesIntoZeros() {
        try (Tensor a = ops.full(Shape.of(64), 7.0, DType.F32)) {
            assertEquals(7f, backend.toFloats(a)[0], 0f);
        }
        try (Tensor z = ops.zeros(Shape.of(64), DType.F32)) {
            assertArrayEquals(new float[64], backend.toFloats(z));
        }
    }
}
