package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.BPanelSource;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.Gemm;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.Parallel;
import panamax.backend.java.kernel.QuantMatVec;
import panamax.backend.java.kernel.RowScales;
import panamax.backend.java.kernel.VectorMath;

/** Every Vector API kernel agrees with its scalar twin on awkward sizes (tails, partial tiles, several threads). */
class KernelOracleTest {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final Random random = new Random(11);

    private float[] gaussian(int n) {
        return GaussianFloats.of(random, n);
    }

    private static void assertNear(float want, float got, double scale, String what) {
        assertEquals(want, got, 1e-5 * scale + 1e-6, what);
    }

    @Test
    void gemmMatchesItsScalarTwinOnPartialTiles() {
        try (Parallel parallel = new Parallel(3)) {
            for (int[] mnk : new int[][] {{1, 1, 1}, {7, 33, 5}, {13, 70, 300}, {64, 64, 257}, {6, 32, 512}}) {
                int m = mnk[0], n = mnk[1], k = mnk[2];
                float[] a = gaussian(m * k);
                float[] b = gaussian(k * n);
                BPanelSource panels = (k0, kc, n0, nr, dst, off, width) -> {
                    for (int kk = 0; kk < kc; kk++) {
                        for (int j = 0; j < width; j++) dst[off + kk * width + j] = j < nr ? b[(k0 + kk) * n + n0 + j] : 0f;
                    }
                };
                float[] fast = new float[m * n];
                float[] slow = new float[m * n];
                Gemm.multiply(parallel, m, n, k, a, k, panels, fast, n);
                Gemm.multiplyScalar(m, n, k, a, k, panels, slow, n);
                for (int i = 0; i < m * n; i++) assertNear(slow[i], fast[i], Math.sqrt(k) * 4, "gemm " + m + "x" + n + "x" + k + " at " + i);
            }
        }
    }

    @Test
    void matrixVectorKernelsMatchScalarDotsForBf16AndF32Rows() {
        try (Arena arena = Arena.ofConfined()) {
            for (int k : new int[] {1, 31, 32, 100, 1024 + 17}) {
                int n = 9, rows = 3;
                float[] w = gaussian(n * k);
                float[] x = gaussian(rows * k);
                MemorySegment wb = arena.allocate(2L * n * k);
                MemorySegment wf = arena.allocate(4L * n * k);
                float[] wRounded = new float[n * k];
                for (int i = 0; i < n * k; i++) {
                    wb.setAtIndex(I16, i, Floats.floatToBf16(w[i]));
                    wRounded[i] = Floats.roundToBf16(w[i]);
                    wf.setAtIndex(F32, i, w[i]);
                }
                float[] xi = new float[rows * k];
                for (int r = 0; r < rows; r++) MatVec.interleaveForBf16(x, r * k, k, xi, r * k);
                float[] outB = new float[rows * n];
                float[] outF = new float[rows * n];
                MatVec.bf16(wb, 0, 2L * k, k, xi, rows, 0, n, outB, 0, n);
                MatVec.f32(wf, 0, 4L * k, k, x, rows, 0, n, outF, 0, n);
                for (int r = 0; r < rows; r++) {
                    for (int j = 0; j < n; j++) {
                        assertNear(MatVec.dotScalar(wRounded, j * k, x, r * k, k), outB[r * n + j], Math.sqrt(k) * 4, "bf16 k=" + k);
                        assertNear(MatVec.dotScalar(w, j * k, x, r * k, k), outF[r * n + j], Math.sqrt(k) * 4, "f32 k=" + k);
                    }
                }
            }
        }
    }

    @Test
    void quantizedVectorKernelMatchesTheDequantizingKernel() {
        try (Arena arena = Arena.ofConfined()) {
            // k = 6400 crosses the kernel's 2048-code row blocks with a partial last block; n = 37
            // rows span two full 16-row tiles and a partial one
            for (int[] kn : new int[][] {{1024, 7}, {6400, 37}})
            for (int bits : new int[] {2, 4, 8}) {
                for (int gs : new int[] {32, 64, 128}) {
                    int k = kn[0], n = kn[1], rows = 2, words = k * bits / 32;
                    if (!QuantMatVec.supports(bits, k, gs)) {
                        assertEquals(2, bits, "only 2-bit codes in groups of 32 (8 groups per chunk) use the generic kernel");
                        continue;
                    }
                    QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                    MemorySegment packed = q.packed();
                    RowScales params = q.params();
                    float[] x = gaussian(rows * k);
                    float[] xa = new float[rows * k];
                    for (int r = 0; r < rows; r++) QuantMatVec.arrange(x, r * k, k, bits, xa, r * k);
                    float[] fast = new float[rows * n];
                    float[] slow = new float[rows * n];
                    QuantMatVec.vector(packed, 0, 4L * words, bits, gs, k, params, xa, QuantMatVec.groupSums(x, rows, k, gs), rows, 0, n, fast, n);
                    QuantMatVec.generic(packed, 0, 4L * words, bits, gs, k, params, x, rows, 0, n, slow, n);
                    for (int i = 0; i < rows * n; i++) assertNear(slow[i], fast[i], Math.sqrt(k) * 8, "b" + bits + " g" + gs);
                }
            }
        }
    }

    @Test
    void packedCodesRoundTripForEveryWidth() {
        try (Arena arena = Arena.ofConfined()) {
            for (int bits = 2; bits <= 8; bits++) {
                if (bits == 7) continue;
                int cols = 128;
                int[] codes = new int[cols];
                for (int i = 0; i < cols; i++) codes[i] = random.nextInt(1 << bits);
                MemorySegment packed = arena.allocate(4L * cols * bits / 32);
                AffineCodes.packRow(codes, cols, bits, packed, 0);
                int[] back = new int[cols - 3];
                AffineCodes.unpack(packed, 0, bits, 3, cols, back);
                for (int i = 3; i < cols; i++) assertEquals(codes[i], back[i - 3], "bits " + bits + " element " + i);
            }
        }
    }

    @Test
    void vectorExpIsWithinTwoUlpOfMathExpAndZeroForMinusInfinity() {
        int n = 4099;
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = -100f + 200f * i / n;
        v[5] = Float.NEGATIVE_INFINITY;
        float[] fast = v.clone();
        float[] slow = v.clone();
        float sumFast = VectorMath.expShifted(fast, 0, n, 0f);
        float sumSlow = VectorMath.expShiftedScalar(slow, 0, n, 0f);
        for (int i = 0; i < n; i++) {
            if (v[i] > 88f) continue; // past f32 overflow both are infinite or clamped
            float ulp = Math.ulp(slow[i]);
            assertEquals(slow[i], fast[i], v[i] < -87.3f ? Float.MIN_NORMAL : 2 * ulp, "exp(" + v[i] + ")");
        }
        assertEquals(0f, fast[5], 0f);
        assertEquals(sumSlow, sumFast, Math.abs(sumSlow) * 1e-6f);
    }

    @Test
    void scaledScoresAndTheirMaximumAreTheScalarLoopsBitForBit() {
        java.util.Random random = new java.util.Random(7);
        int checked = 0;
        for (int n : new int[] {0, 1, 15, 16, 17, 200, 1027}) {
            for (int from : new int[] {0, 3}) {
                float[] v = new float[from + n + 5];
                for (int i = 0; i < v.length; i++) v[i] = (float) random.nextGaussian() * 30f;
                if (n > 2) {
                    v[from + n / 2] = Float.NEGATIVE_INFINITY;
                    v[from + 1] = -0f;
                }
                float[] fast = v.clone();
                float[] slow = v.clone();
                float max = Float.NEGATIVE_INFINITY;
                for (int i = from; i < from + n; i++) {
                    slow[i] *= 0.125f;
                    max = Math.max(max, slow[i]);
                }
                assertEquals(max, VectorMath.scaleAndMax(fast, from, from + n, 0.125f), "max of " + n + " from " + from);
                for (int i = 0; i < v.length; i++) slow[i] *= i >= from && i < from + n ? 1.7f : 1f;
                VectorMath.scale(fast, from, from + n, 1.7f);
                for (int i = 0; i < v.length; i++) {
                    assertEquals(Float.floatToRawIntBits(slow[i]), Float.floatToRawIntBits(fast[i]), "element " + i + " of " + n + " from " + from);
                    checked++;
                }
            }
        }
        assertEquals(Float.NEGATIVE_INFINITY, VectorMath.scaleAndMax(new float[0], 0, -3, 2f), "a causal row before its first key");
        float[] nan = {1f, Float.NaN, 3f};
        assertTrue(Float.isNaN(VectorMath.scaleAndMax(nan, 0, 3, 1f)), "NaN wins, as with Math.max");
        assertTrue(checked >= 2600, "checked " + checked);
    }

    @Test
    void vectorSiluAndSigmoidStayWithinFourUlpOfTheDoubleFormulaOverTheWholeRange() {
        int n = 8195; // vector body plus a scalar tail
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = -120f + 240f * i / n;
        v[7] = Float.NEGATIVE_INFINITY;
        v[8] = Float.POSITIVE_INFINITY;
        for (boolean gate : new boolean[] {true, false}) {
            float[] fast = v.clone();
            VectorMath.sigmoidInPlace(fast, n, gate);
            for (int i = 0; i < n; i++) {
                float sig = VectorMath.sigmoidScalar(v[i]);
                float want = gate ? v[i] * sig : sig;
                if (Float.isNaN(want)) {
                    assertEquals(Float.NaN, fast[i], "silu(" + v[i] + ")"); // -inf · 0, as in the scalar path
                    continue;
                }
                // below ≈ -87 the vector exp flushes to 0 where double keeps a subnormal
                double tolerance = v[i] < -80f ? (1 + Math.abs(v[i])) * Float.MIN_NORMAL : 4 * Math.ulp(want);
                assertEquals(want, fast[i], tolerance, (gate ? "silu(" : "sigmoid(") + v[i] + ")");
            }
        }
    }
}
