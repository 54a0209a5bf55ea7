package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/** Each matmul kernel path, batched quantized matmul and attention agree with float64 references built from read-back values. */
class MatmulAndAttentionTest extends FreshBackendTest {
    private final Random random = new Random(5);


    private Tensor random(DType dtype, int... dims) {
        float[] v = new float[(int) Shape.of(dims).size()];
        for (int i = 0; i < v.length; i++) v[i] = (float) random.nextGaussian();
        return backend.fromFloats(v, Shape.of(dims), dtype);
    }

    /** Reference [..., m, n] of a [..., m, k] × b [..., k, n] given both as full row-major value arrays of equal batch. */
    private static double[] reference(float[] a, float[] b, int batch, int m, int k, int n) {
        double[] out = new double[batch * m * n];
        for (int t = 0; t < batch; t++) {
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int l = 0; l < k; l++) s += (double) a[(t * m + i) * k + l] * b[(t * k + l) * n + j];
                    out[(t * m + i) * n + j] = s;
                }
            }
        }
        return out;
    }

    private static void assertClose(double[] want, float[] got, double tolerance, String what) {
        assertEquals(want.length, got.length, what + " size");
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], tolerance * (1 + Math.abs(want[i])), what + " at " + i);
        }
    }

    private void checkMatmul(Tensor a, Tensor b, int batch, int m, int k, int n, double tolerance, String what) {
        try (Tensor ac = ops.copy(a); Tensor bc = ops.copy(b); Tensor y = ops.matmul(a, b)) {
            assertClose(reference(backend.toFloats(ac), backend.toFloats(bc), batch, m, k, n), backend.toFloats(y), tolerance, what);
        }
    }

    @Test
    void everyMatmulPathAgreesWithTheReference() {
        for (DType wt : new DType[] {DType.F32, DType.BF16, DType.F16}) {
            for (int m : new int[] {1, 3, 9, 40}) {
                try (Tensor x = random(DType.F32, m, 96);
                     Tensor w = random(wt, 70, 96);
                     Tensor wT = ops.transpose(w, 1, 0);
                     Tensor b = random(wt, 96, 70)) {
                    checkMatmul(x, wT, 1, m, 96, 70, 1e-4, "x·Wᵀ " + wt + " m=" + m);
                    checkMatmul(x, b, 1, m, 96, 70, 1e-4, "x·B " + wt + " m=" + m);
                }
            }
        }
    }

    @Test
    void batchedRowsAgainstOneWeightMatrixAreFoldedIntoOnePass() {
        try (Tensor x = random(DType.F32, 3, 2, 96);
             Tensor w = random(DType.BF16, 50, 96);
             Tensor wT = ops.transpose(w, 1, 0);
             Tensor xs = ops.slice(x, 1, 1, 2);          // [3, 1, 96], not contiguous
             Tensor y = ops.matmul(xs, wT);
             Tensor xc = ops.copy(xs);
             Tensor wc = ops.copy(wT)) {
            assertEquals(Shape.of(3, 1, 50), y.shape());
            assertClose(reference(backend.toFloats(xc), backend.toFloats(wc), 1, 3, 96, 50), backend.toFloats(y), 1e-4, "folded");
        }
    }

    @Test
    void batchAxesBroadcast() {
        try (Tensor a = random(DType.F32, 2, 1, 5, 16);
             Tensor b = random(DType.F32, 3, 16, 7);
             Tensor ab = ops.broadcastTo(a, Shape.of(2, 3, 5, 16));
             Tensor bb = ops.broadcastTo(b, Shape.of(2, 3, 16, 7));
             Tensor y = ops.matmul(a, b);
             Tensor abc = ops.copy(ab);
             Tensor bbc = ops.copy(bb)) {
            assertEquals(Shape.of(2, 3, 5, 7), y.shape());
            assertClose(reference(backend.toFloats(abc), backend.toFloats(bbc), 6, 5, 16, 7), backend.toFloats(y), 1e-5, "batched");
        }
    }

    @Test
    void quantizedMatmulBroadcastsBatchedWeightsBothWays() {
        for (int bits : new int[] {3, 4, 8}) {
            for (boolean transpose : new boolean[] {true, false}) {
                for (int m : new int[] {1, 7}) {
                    // n = 128 without transpose: 4- and 8-bit rows take the arranged vector decode, 3-bit the generic one
                    int[] wDims = transpose ? new int[] {1, 3, 24, 128} : new int[] {1, 3, 128, 128};
                    int k = 128, n = transpose ? 24 : 128;
                    try (Tensor w = random(DType.F32, wDims);
                         QuantizedMatrix q = ops.quantize(w, 32, bits);
                         Tensor deq = ops.dequantize(q);
                         Tensor wk = transpose ? ops.transpose(deq, 0, 1, 3, 2) : ops.copy(deq);
                         Tensor x = random(DType.F32, 2, 3, m, k);
                         Tensor y = ops.quantizedMatmul(x, q, transpose);
                         Tensor want = ops.matmul(x, wk)) {
                        assertEquals(Shape.of(2, 3, m, n), y.shape());
                        float[] wv = backend.toFloats(want);
                        double[] wd = new double[wv.length];
                        for (int i = 0; i < wv.length; i++) wd[i] = wv[i];
                        assertClose(wd, backend.toFloats(y), 1e-4, "b" + bits + " transpose=" + transpose + " m=" + m);
                    }
                }
            }
        }
    }

    /** Naive attention in double with an explicit visibility rule; fully masked rows give zeros. */
    private static double[] attention(float[] q, float[] k, float[] v, int b, int hq, int hkv, int tq, int tk, int d, int dv,
                                      double scale, java.util.function.IntPredicate visible, double[] additive) {
        double[] out = new double[b * hq * tq * dv];
        int group = hq / hkv;
        for (int bi = 0; bi < b; bi++) for (int h = 0; h < hq; h++) for (int i = 0; i < tq; i++) {
            int kv = h / group;
            double[] s = new double[tk];
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < tk; j++) {
                int code = ((bi * hq + h) * tq + i) * tk + j;
                if (!visible.test(code)) {
                    s[j] = Double.NEGATIVE_INFINITY;
                    continue;
                }
                double dot = 0;
                for (int e = 0; e < d; e++) dot += (double) q[((bi * hq + h) * tq + i) * d + e] * k[((bi * hkv + kv) * tk + j) * d + e];
                s[j] = dot * scale + (additive == null ? 0 : additive[code]);
                max = Math.max(max, s[j]);
            }
            if (max == Double.NEGATIVE_INFINITY) continue;
            double sum = 0;
            for (int j = 0; j < tk; j++) sum += s[j] = Math.exp(s[j] - max);
            for (int j = 0; j < tk; j++) {
                for (int e = 0; e < dv; e++) out[((bi * hq + h) * tq + i) * dv + e] += s[j] / sum * v[((bi * hkv + kv) * tk + j) * dv + e];
            }
        }
        return out;
    }

    @Test
    void attentionWithGroupedHeadsAndEveryMaskKind() {
        int b = 2, hq = 4, hkv = 2, tq = 3, tk = 6, d = 8, dv = 5;
        double scale = 1 / Math.sqrt(d);
        try (Tensor q = random(DType.F32, b, hq, tq, d); Tensor k = random(DType.F32, b, hkv, tk, d); Tensor v = random(DType.F32, b, hkv, tk, dv)) {
            float[] qv = backend.toFloats(q), kv = backend.toFloats(k), vv = backend.toFloats(v);
            // causal, with and without a window of 2
            for (int window : new int[] {0, 2}) {
                java.util.function.IntPredicate causal = code -> {
                    int j = code % tk, i = code / tk % tq;
                    int last = tk - tq + i;
                    return j <= last && (window == 0 || j > last - window);
                };
                try (Tensor y = ops.scaledDotProductAttention(q, k, v, scale, new AttentionMask.Causal(window))) {
                    assertClose(attention(qv, kv, vv, b, hq, hkv, tq, tk, d, dv, scale, causal, null), backend.toFloats(y), 1e-5, "causal " + window);
                }
            }
            // explicit BOOL [1, 1, tq, tk] broadcast, with query row 1 fully masked
            int[] allowed = new int[tq * tk];
            for (int i = 0; i < tq * tk; i++) allowed[i] = i / tk == 1 ? 0 : random.nextInt(3) == 0 ? 0 : 1;
            allowed[0] = 1;
            try (Tensor mask = backend.fromInts(allowed, Shape.of(1, 1, tq, tk), DType.BOOL);
                 Tensor y = ops.scaledDotProductAttention(q, k, v, scale, new AttentionMask.Explicit(mask))) {
                double[] want = attention(qv, kv, vv, b, hq, hkv, tq, tk, d, dv, scale, code -> allowed[code % (tq * tk)] != 0, null);
                assertClose(want, backend.toFloats(y), 1e-5, "bool mask");
            }
            // explicit additive f32 mask [b, 1, tq, tk] with -inf entries
            float[] add = new float[b * tq * tk];
            double[] addFull = new double[b * hq * tq * tk];
            for (int i = 0; i < add.length; i++) add[i] = random.nextInt(4) == 0 ? Float.NEGATIVE_INFINITY : (float) random.nextGaussian();
            for (int code = 0; code < addFull.length; code++) {
                int bi = code / (hq * tq * tk);
                addFull[code] = add[bi * tq * tk + code % (tq * tk)];
            }
            try (Tensor mask = backend.fromFloats(add, Shape.of(b, 1, tq, tk), DType.F32);
                 Tensor y = ops.scaledDotProductAttention(q, k, v, scale, new AttentionMask.Explicit(mask))) {
                double[] want = attention(qv, kv, vv, b, hq, hkv, tq, tk, d, dv, scale,
                        code -> addFull[code] != Double.NEGATIVE_INFINITY, addFull);
                assertClose(want, backend.toFloats(y), 1e-5, "additive mask");
            }
        }
    }
}
