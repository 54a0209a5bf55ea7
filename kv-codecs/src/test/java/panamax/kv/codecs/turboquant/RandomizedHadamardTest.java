package panamax.kv.codecs.turboquant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.JavaBackendFixture;
import panamax.kv.codecs.internal.KvKernels;

/** The per-head randomized Hadamard rotation, against a scalar butterfly written here. */
class RandomizedHadamardTest {
    private static final long[] IDS = {42, 7, 3};

    /** The oracle: pad, multiply by the head's signs, in-place radix-2 butterflies, scale by 1/√n. */
    static float[] rotate(float[] x, int from, int d, int n, float[] signs) {
        double[] y = new double[n];
        for (int i = 0; i < d; i++) y[i] = x[from + i] * signs[i];
        for (int h = 1; h < n; h *= 2) {
            for (int i = 0; i < n; i += 2 * h) {
                for (int j = i; j < i + h; j++) {
                    double a = y[j];
                    double b = y[j + h];
                    y[j] = a + b;
                    y[j + h] = a - b;
                }
            }
        }
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = (float) (y[i] / Math.sqrt(n));
        return out;
    }

    @Test
    void forwardMatchesTheScalarButterflyForEveryHeadIncludingPaddedDims() {
        for (int d : new int[] {64, 80, 96, 128, 256}) {
            int n = Math.max(64, Integer.highestOneBit(d - 1) << 1);
            int heads = 3;
            int tokens = 5;
            leakChecked(b -> {
                float[] x = JavaBackendFixture.gaussians(d, 2 * heads * tokens * d);
                try (RandomizedHadamard rotation = new RandomizedHadamard(b, heads, d, n, IDS);
                     Tensor xt = b.fromFloats(x, Shape.of(2, heads, tokens, d), DType.F32);
                     Tensor y = rotation.forward(KvKernels.of(b), xt);
                     Tensor back = rotation.inverse(KvKernels.of(b), y)) {
                    assertEquals(Shape.of(2, heads, tokens, n), y.shape());
                    float[] got = b.toFloats(y);
                    for (int v = 0; v < 2 * heads * tokens; v++) {
                        int head = v / tokens % heads;
                        float[] expected = rotate(x, v * d, d, n, RandomizedHadamard.signs(n, head, IDS));
                        for (int i = 0; i < n; i++) {
                            assertEquals(expected[i], got[v * n + i], 1e-5, "d=" + d + " vector " + v + " coordinate " + i);
                        }
                    }
                    assertTrue(JavaBackendFixture.maxAbsDiff(x, b.toFloats(back)) < 1e-5, "inverse(forward(x)) = x at d=" + d);
                }
            });
        }
    }

    @Test
    void headsUseDifferentSignsAndTheSameIdsGiveTheSameSigns() {
        float[] h0 = RandomizedHadamard.signs(128, 0, IDS);
        float[] h1 = RandomizedHadamard.signs(128, 1, IDS);
        int same = 0;
        for (int i = 0; i < 128; i++) if (h0[i] == h1[i]) same++;
        assertTrue(same > 40 && same < 88, "independent heads agree on about half the signs, found " + same);
        assertEquals(java.util.Arrays.toString(h0), java.util.Arrays.toString(RandomizedHadamard.signs(128, 0, IDS)));
    }
}
