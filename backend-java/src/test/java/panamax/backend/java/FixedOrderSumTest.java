package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.Lanes;
import panamax.backend.java.kernel.MatVec;

/**
 * {@link Lanes#sum} adds lanes in one order that scalar code can write down, so kernels give the
 * same bits interpreted and compiled (same seed, same text from the first token on).
 */
class FixedOrderSumTest {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /** The rotate-and-add tree in scalar code: step s adds lane (i + s) mod n to lane i. */
    private static float tree(float[] lanes) {
        float[] v = lanes.clone();
        for (int s = v.length / 2; s >= 1; s /= 2) {
            float[] next = new float[v.length];
            for (int i = 0; i < v.length; i++) next[i] = v[i] + v[(i + s) % v.length];
            v = next;
        }
        return v[0];
    }

    @Test
    void equalsTheScalarTreeBitForBitOnValuesWhereOrderMatters() {
        Random random = new Random(7);
        float[] lanes = new float[F.length()];
        // many calls, so the JIT compiles Lanes.sum part-way through: every result must still match
        for (int round = 0; round < 200_000; round++) {
            for (int i = 0; i < lanes.length; i++) {
                lanes[i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(9) - 4));
            }
            float expected = tree(lanes);
            float actual = Lanes.sum(FloatVector.fromArray(F, lanes, 0));
            if (Float.floatToRawIntBits(expected) != Float.floatToRawIntBits(actual)) {
                assertEquals(expected, actual, 0f, "round " + round);
            }
        }
    }

    @Test
    void manySumsAtOnceEqualTheOneVectorSumBitForBit() {
        Random random = new Random(13);
        int n = F.length();
        for (int count : new int[] {n, 2 * n, 16 * n / Math.max(1, n)}) {
            float[] a = new float[count * n + 5];
            float[] dst = new float[count + 3];
            for (int round = 0; round < 20_000; round++) {
                for (int i = 0; i < a.length; i++) {
                    a[i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(9) - 4));
                }
                if (round % 7 == 0) a[3 + random.nextInt(count * n)] = Float.NaN;
                if (round % 11 == 0) a[3 + random.nextInt(count * n)] = Float.NEGATIVE_INFINITY;
                float[] expected = new float[count];
                for (int j = 0; j < count; j++) expected[j] = tree(java.util.Arrays.copyOfRange(a, 3 + j * n, 3 + (j + 1) * n));
                Lanes.sums(a, 3, count, dst, 2);
                for (int j = 0; j < count; j++) {
                    if (Float.floatToIntBits(expected[j]) != Float.floatToIntBits(dst[2 + j])) {
                        assertEquals(expected[j], dst[2 + j], 0f, "count " + count + ", round " + round + ", vector " + j);
                    }
                }
            }
        }
    }

    @Test
    void aDotProductGivesTheSameBitsOnEveryCall() {
        Random random = new Random(11);
        int k = 4096;
        float[] a = new float[k], b = new float[k];
        for (int i = 0; i < k; i++) {
            a[i] = (float) random.nextGaussian();
            b[i] = (float) (random.nextGaussian() * 1e3);
        }
        float first = MatVec.dot(a, 0, b, 0, k);
        for (int call = 0; call < 50_000; call++) {
            float again = MatVec.dot(a, 0, b, 0, k);
            if (Float.floatToRawIntBits(first) != Float.floatToRawIntBits(again)) {
                assertEquals(first, again, 0f, "call " + call + " (before/after JIT compilation)");
            }
        }
    }
}
