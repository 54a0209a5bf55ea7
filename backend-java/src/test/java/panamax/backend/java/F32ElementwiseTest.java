package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.BinaryOp;
import panamax.backend.java.kernel.F32Elementwise;

/**
 * Binary ops between f32 segments give, element by element, the bits of the scalar Java operation the strided loop
 * applies ({@code x + y}, {@code Math.max}, ...): every length from 0 past two vectors (vector part and tail), ranges
 * that start inside the run, odd byte offsets, and NaN, signed zeros, infinities and subnormals among the values.
 */
class F32ElementwiseTest {
    private static final float[] SPECIAL = {Float.NaN, 0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE,
            -Float.MIN_VALUE, 1f, -1f, Float.MAX_VALUE};

    @Test
    void everyOpMatchesTheScalarOperationBitForBit() {
        Random random = new Random(11);
        int checked = 0;
        for (BinaryOp op : BinaryOp.values()) {
            if (!F32Elementwise.supports(op)) continue;
            for (int length = 0; length <= 70; length++) {
                for (int from : new int[] {0, 3}) {
                    if (from > length) continue;
                    try (Arena arena = Arena.ofConfined()) {
                        float[] x = values(random, length), y = values(random, length);
                        long ao = 4, bo = 12, dOff = 8; // offsets into each segment, as views have
                        MemorySegment a = arena.allocate(4L * length + ao), b = arena.allocate(4L * length + bo), d = arena.allocate(4L * length + dOff);
                        for (int i = 0; i < length; i++) {
                            a.set(ValueLayout.JAVA_FLOAT_UNALIGNED, ao + 4L * i, x[i]);
                            b.set(ValueLayout.JAVA_FLOAT_UNALIGNED, bo + 4L * i, y[i]);
                            d.set(ValueLayout.JAVA_FLOAT_UNALIGNED, dOff + 4L * i, 42f);
                        }
                        F32Elementwise.binary(op, a, ao, b, bo, d, dOff, from, length);
                        for (int i = 0; i < length; i++) {
                            float want = i < from ? 42f : scalar(op, x[i], y[i]);
                            float got = d.get(ValueLayout.JAVA_FLOAT_UNALIGNED, dOff + 4L * i);
                            assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got),
                                    op + " at " + i + " of " + length + " from " + from + ": " + x[i] + ", " + y[i]);
                            checked++;
                        }
                    }
                }
            }
        }
        assertTrue(checked > 10_000, "compared " + checked + " elements");
    }

    private static float[] values(Random random, int length) {
        float[] v = new float[length];
        for (int i = 0; i < length; i++) {
            v[i] = random.nextInt(4) == 0 ? SPECIAL[random.nextInt(SPECIAL.length)] : (float) random.nextGaussian() * 100;
        }
        return v;
    }

    /** What {@code ElementwiseOps.applyBinary} computes per element. */
    private static float scalar(BinaryOp op, float x, float y) {
        float[] a = {x};
        ElementwiseOps.applyBinary(op, a, new float[] {y}, 1);
        return a[0];
    }
}
