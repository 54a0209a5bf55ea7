package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.MultiRowMatVec;
import panamax.backend.java.kernel.QuantMatVec;
import panamax.backend.java.kernel.RowScales;

/**
 * The register-blocked multi-row matvecs agree with their scalar twins for 1..16 x rows, odd
 * output counts and k tails, sub-ranges of output rows and padded (strided) weight rows; and each
 * x row's outputs are the bits of that row computed alone.
 */
class MultiRowKernelsTest {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final Random random = new Random(5);

    private float[] gaussian(int n) {
        return GaussianFloats.of(random, n);
    }

    /** Prefill-sized calls: several L2 tiles of x rows and panels of weight rows, with leftover rows of both and k tails. */
    @Test
    void bf16PrefillTilesHaveTheBitsOfEachRowAlone() {
        try (Arena arena = Arena.ofConfined()) {
            for (int k : new int[] {32, 512 + 48, 1024 + 17}) {
                int n = 70, ld = k + 1;
                MemorySegment w = arena.allocate(2L * n * ld + 8);
                for (int i = 0; i < n * ld; i++) w.set(I16, 2 + 2L * i, Floats.floatToBf16((float) random.nextGaussian()));
                for (int rows : new int[] {9, 12, 37, 66}) {
                    float[] x = gaussian(rows * k);
                    float[] xi = new float[rows * k];
                    for (int r = 0; r < rows; r++) MatVec.interleaveForBf16(x, r * k, k, xi, r * k);
                    float[] fast = new float[rows * n];
                    MultiRowMatVec.bf16(w, 2, 2L * ld, k, xi, rows, 3, n, fast, 0, n);
                    for (int r = 0; r < rows; r++) {
                        float[] alone = new float[n];
                        MultiRowMatVec.bf16(w, 2, 2L * ld, k, java.util.Arrays.copyOfRange(xi, r * k, r * k + k), 1, 3, n, alone, 0, n);
                        for (int j = 3; j < n; j++) {
                            assertEquals(Float.floatToRawIntBits(alone[j]), Float.floatToRawIntBits(fast[r * n + j]),
                                    "k=" + k + ": row " + r + " of " + rows + " differs from that row alone at " + j);
                        }
                    }
                }
            }
        }
    }

    @Test
    void bf16MultiRowMatchesScalarDotsForEveryRowCountAndTail() {
        try (Arena arena = Arena.ofConfined()) {
            for (int k : new int[] {1, 31, 32, 100, 1024 + 17}) {
                for (int n : new int[] {1, 4, 9, 13, 28}) {
                    // rows padded by 3 elements: a strided view of a wider matrix
                    int ld = k + 3;
                    MemorySegment w = arena.allocate(2L * n * ld + 8);
                    long wOff = 6;
                    for (int i = 0; i < n * ld; i++) w.set(I16, wOff + 2L * i, Floats.floatToBf16((float) random.nextGaussian()));
                    for (int rows = 1; rows <= 16; rows++) {
                        float[] x = gaussian(rows * k);
                        float[] xi = new float[rows * k];
                        for (int r = 0; r < rows; r++) MatVec.interleaveForBf16(x, r * k, k, xi, r * k);
                        int ldo = n + 2, outOff = 1;
                        float[] fast = new float[outOff + rows * ldo];
                        float[] slow = new float[outOff + rows * ldo];
                        int n0 = n > 4 ? 1 : 0;
                        MultiRowMatVec.bf16(w, wOff, 2L * ld, k, xi, rows, n0, n, fast, outOff, ldo);
                        MultiRowMatVec.bf16Scalar(w, wOff, 2L * ld, k, x, rows, n0, n, slow, outOff, ldo);
                        for (int i = 0; i < fast.length; i++) {
                            assertEquals(slow[i], fast[i], 2e-5 * k + 1e-5, "k=" + k + " n=" + n + " rows=" + rows + " at " + i);
                        }
                        for (int r = 0; r < rows; r++) {
                            float[] alone = new float[ldo];
                            MultiRowMatVec.bf16(w, wOff, 2L * ld, k, java.util.Arrays.copyOfRange(xi, r * k, r * k + k), 1, n0, n, alone, 0, ldo);
                            for (int j = n0; j < n; j++) {
                                assertEquals(Float.floatToRawIntBits(alone[j]), Float.floatToRawIntBits(fast[outOff + r * ldo + j]),
                                        "k=" + k + " n=" + n + ": row " + r + " of " + rows + " differs from that row alone at " + j);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void f32BlocksMatchDotsWithTails() {
        for (int k : new int[] {1, 15, 16, 33, 250}) {
            for (int nb = 1; nb <= 9; nb += 4) {
                float[] w = gaussian(nb * k + 5);
                for (int rows = 1; rows <= 16; rows++) {
                    float[] x = gaussian(rows * k);
                    float[] out = new float[rows * (nb + 1)];
                    MultiRowMatVec.f32(w, 5, nb, k, x, rows, out, 0, nb + 1, MultiRowMatVec.blockSums());
                    for (int m = 0; m < rows; m++) {
                        for (int j = 0; j < nb; j++) {
                            float want = MatVec.dot(w, 5 + j * k, x, m * k, k);
                            assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(out[m * (nb + 1) + j]),
                                    "k=" + k + " nb=" + nb + " rows=" + rows + ": not MatVec.dot's bits");
                        }
                    }
                }
            }
        }
    }

    @Test
    void quantizedMultiRowMatchesTheDequantizingKernel() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits : new int[] {2, 4, 8}) {
                for (int gs : new int[] {32, 64, 128}) {
                    int k = 1024, words = k * bits / 32;
                    if (!QuantMatVec.supports(bits, k, gs)) continue; // e.g. 2 bits in groups of 32 at 512-bit vectors
                    checked++;
                    // 150 (outputs 5..150): one x row streams four parts of 36 rows (or two of 72), in panels of 16
                    // rows at groups of 32 (16 + 16 + 4), and a last row
                    for (int n : new int[] {13, 150}) {
                        QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                        MemorySegment packed = q.packed();
                        RowScales params = q.params();
                        for (int rows : new int[] {1, 2, 3, 4, 5, 7, 8, 11, 16}) {
                            float[] x = gaussian(rows * k);
                            float[] xa = new float[rows * k];
                            for (int r = 0; r < rows; r++) QuantMatVec.arrange(x, r * k, k, bits, xa, r * k);
                            float[] fast = new float[rows * n];
                            float[] slow = new float[rows * n];
                            // two sub-ranges, as two threads would split the outputs
                            QuantMatVec.vector(packed, 0, 4L * words, bits, gs, k, params, xa, QuantMatVec.groupSums(x, rows, k, gs), rows, 0, 5, fast, n);
                            QuantMatVec.vector(packed, 0, 4L * words, bits, gs, k, params, xa, QuantMatVec.groupSums(x, rows, k, gs), rows, 5, n, fast, n);
                            QuantMatVec.generic(packed, 0, 4L * words, bits, gs, k, params, x, rows, 0, n, slow, n);
                            for (int i = 0; i < rows * n; i++) {
                                assertEquals(slow[i], fast[i], 1e-4 * Math.sqrt(k) * 8, "b" + bits + " g" + gs + " n=" + n + " rows=" + rows + " at " + i);
                            }
                            // each x row alone (the one-row kernels, four weight rows at a time) gives the same bits
                            for (int r = 0; r < rows; r++) {
                                float[] alone = new float[n];
                                QuantMatVec.vector(packed, 0, 4L * words, bits, gs, k, params, java.util.Arrays.copyOfRange(xa, r * k, r * k + k),
                                        QuantMatVec.groupSums(java.util.Arrays.copyOfRange(x, r * k, r * k + k), 1, k, gs), 1, 0, n, alone, n);
                                for (int j = 0; j < n; j++) {
                                    assertEquals(Float.floatToRawIntBits(alone[j]), Float.floatToRawIntBits(fast[r * n + j]),
                                            "b" + bits + " g" + gs + " n=" + n + ": row " + r + " of " + rows + " differs from that row alone at " + j);
                                }
                            }
                        }
                    }
                }
            }
        }
        VectorWidth.requireChecked(checked, "the quantized multi-row mat-vec (QuantMatVec.vector)", 128, 256, 512);
    }
}
