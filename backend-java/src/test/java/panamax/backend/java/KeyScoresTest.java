package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.KeyScores;
import panamax.backend.java.kernel.MatVec;

/**
 * {@link KeyScores} reduces sixteen keys' vectors at once but must give exactly the bits of the
 * per-key kernels it replaces ({@link MatVec#f32}, {@link MatVec#bf16}), for head dims with and
 * without the straight-line paths, scalar tails, key counts that leave a partial block, and strided
 * keys (a cache with more capacity than tokens).
 */
class KeyScoresTest {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Test
    void scoresEqualThePerKeyKernelsBitForBit() {
        Random random = new Random(5);
        float[] scratch = new float[KeyScores.scratchLength()];
        try (Arena arena = Arena.ofShared()) {
            for (int d : new int[] {8, 16, 40, 48, 64, 80, 96, 100, 128, 256}) {
                for (int tk : new int[] {1, 15, 16, 17, 50, 96}) {
                    for (int rows = 1; rows <= 5; rows += 2) {
                        int stride = d + 3; // elements between keys
                        MemorySegment f32 = arena.allocate(4L * stride * tk + 64, 64);
                        MemorySegment bf16 = arena.allocate(2L * stride * tk + 64, 64);
                        for (int j = 0; j < tk; j++) {
                            for (int i = 0; i < d; i++) {
                                float value = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(5) - 2));
                                f32.set(F32, 4L * (j * stride + i), value);
                                bf16.set(I16, 2L * (j * stride + i), (short) (Float.floatToRawIntBits(value) >>> 16));
                            }
                        }
                        float[] q = new float[rows * d];
                        for (int i = 0; i < q.length; i++) q[i] = (float) random.nextGaussian();
                        float[] qi = new float[rows * d];
                        for (int r = 0; r < rows; r++) MatVec.interleaveForBf16(q, r * d, d, qi, r * d);
                        int lds = tk + 2;
                        float[] expected = new float[rows * lds];
                        float[] actual = new float[rows * lds];
                        MatVec.f32(f32, 0, 4L * stride, d, q, rows, 0, tk, expected, 0, lds);
                        KeyScores.f32(f32, 0, 4L * stride, d, q, rows, 0, tk, actual, lds, scratch);
                        assertSameBits(expected, actual, "f32 d " + d + " tk " + tk + " rows " + rows);
                        // a range of the keys (a causal block's): the same bits for those keys, nothing written outside
                        int j0 = random.nextInt(tk), j1 = j0 + 1 + random.nextInt(tk - j0);
                        float[] part = new float[rows * lds];
                        KeyScores.f32(f32, 0, 4L * stride, d, q, rows, j0, j1, part, lds, scratch);
                        assertSameBits(inRange(expected, rows, lds, j0, j1), part, "f32 d " + d + " keys [" + j0 + ", " + j1 + ") rows " + rows);
                        MatVec.bf16(bf16, 0, 2L * stride, d, qi, rows, 0, tk, expected, 0, lds);
                        KeyScores.bf16(bf16, 0, 2L * stride, d, qi, rows, 0, tk, actual, lds, scratch);
                        assertSameBits(expected, actual, "bf16 d " + d + " tk " + tk + " rows " + rows);
                        part = new float[rows * lds];
                        KeyScores.bf16(bf16, 0, 2L * stride, d, qi, rows, j0, j1, part, lds, scratch);
                        assertSameBits(inRange(expected, rows, lds, j0, j1), part, "bf16 d " + d + " keys [" + j0 + ", " + j1 + ") rows " + rows);
                    }
                }
            }
        }
    }

    /** {@code scores} with every key outside {@code [j0, j1)} zero. */
    private static float[] inRange(float[] scores, int rows, int lds, int j0, int j1) {
        float[] out = new float[scores.length];
        for (int m = 0; m < rows; m++) System.arraycopy(scores, m * lds + j0, out, m * lds + j0, j1 - j0);
        return out;
    }

    private static void assertSameBits(float[] expected, float[] actual, String what) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Float.floatToIntBits(expected[i]), Float.floatToIntBits(actual[i]), what + ", element " + i);
        }
    }
}
