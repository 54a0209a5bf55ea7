package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code x·W} and {@code x·Wᵀ} for up to four rows of x against an MLX affine matrix W whose rows of 2,
 * 3 or 4-bit codes fit one vector of words — the p·V and q·Kᵀ products of attention over an
 * affine-quantized cache. {@link #accumulate} uses
 * {@code Σₜ xₜ·(q·sₜ + bₜ) = Σₜ (xₜ·sₜ)·q + Σₜ xₜ·bₜ}: codes are decoded in registers (as
 * {@link CodebookVectors} reads its rows), converted to float and accumulated with the per-token
 * weight {@code x·s} into four rows' accumulators held across blocks of 32 tokens; the bias term is one
 * scalar per row and group. Scratch is allocated per call. Stateless.
 */
public final class AffineAccumulate {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final int L = F.length();
    /** Rows of x per call. */
    public static final int ROWS = 4;
    private static final int BLOCK = 32;

    private AffineAccumulate() {
    }

    /** True for 2, 3 and 4-bit rows of {@code n} codes that fit one vector of words, in groups of whole vectors. */
    public static boolean supports(int bits, int n, int groupSize) {
        return bits >= 2 && bits <= 4 && groupSize % L == 0 && CodebookVectors.WordDecoding.fits(bits, n);
    }

    /**
     * Adds {@code Σ_{kk ∈ [k0, k1)} x[r·k + kk]·W[kk, ·]} to {@code acc[r·n ...]} for rows r < m (x holds
     * m rows of k; rows past m count as zero). W row kk starts at byte {@code base + kk·rowBytes}.
     */
    public static void accumulate(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int n, RowScales params,
                                  float[] x, int m, int k, int k0, int k1, float[] acc) {
        var dec = CodebookVectors.WordDecoding.of(bits);
        int groups = n / groupSize;
        int words = n * bits / 32;
        float[] s = new float[groups];
        float[] b = new float[groups];
        float[] w = new float[ROWS * BLOCK * groups];  // x·s per row, token, group
        float[] biasSum = new float[ROWS * groups];
        long[] rowByte = new long[BLOCK];
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int t0 = k0; t0 < k1; t0 += BLOCK) {
            int count = Math.min(BLOCK, k1 - t0);
            for (int t = 0; t < count; t++) {
                int kk = t0 + t;
                params.load(kk, s, b);
                rowByte[t] = base + kk * rowBytes;
                for (int r = 0; r < ROWS; r++) {
                    float xv = r < m ? x[r * k + kk] : 0f;
                    for (int g = 0; g < groups; g++) {
                        w[(r * BLOCK + t) * groups + g] = xv * s[g];
                        biasSum[r * groups + g] += xv * b[g];
                    }
                }
            }
            for (int j = 0, chunk = 0; j < n; j += L, chunk++) {
                int g = j / groupSize;
                VectorShuffle<Integer> low = dec.low()[chunk];
                VectorShuffle<Integer> high = dec.high()[chunk];
                IntVector right = dec.right()[chunk];
                IntVector left = dec.left()[chunk];
                FloatVector a0 = FloatVector.fromArray(F, acc, j);
                FloatVector a1 = FloatVector.fromArray(F, acc, n + j);
                FloatVector a2 = FloatVector.fromArray(F, acc, 2 * n + j);
                FloatVector a3 = FloatVector.fromArray(F, acc, 3 * n + j);
                for (int t = 0; t < count; t++) {
                    IntVector raw = CodebookVectors.rowWords(packed, rowByte[t], words);
                    IntVector lo = raw.rearrange(low).lanewise(VectorOperators.LSHR, right);
                    IntVector hi = raw.rearrange(high).lanewise(VectorOperators.LSHL, 1).lanewise(VectorOperators.LSHL, left);
                    FloatVector q = (FloatVector) lo.or(hi).and(mask).convert(VectorOperators.I2F, 0);
                    a0 = q.fma(FloatVector.broadcast(F, w[t * groups + g]), a0);
                    a1 = q.fma(FloatVector.broadcast(F, w[(BLOCK + t) * groups + g]), a1);
                    a2 = q.fma(FloatVector.broadcast(F, w[(2 * BLOCK + t) * groups + g]), a2);
                    a3 = q.fma(FloatVector.broadcast(F, w[(3 * BLOCK + t) * groups + g]), a3);
                }
                a0.intoArray(acc, j);
                a1.intoArray(acc, n + j);
                a2.intoArray(acc, 2 * n + j);
                a3.intoArray(acc, 3 * n + j);
            }
        }
        for (int r = 0; r < ROWS; r++) {
            for (int j = 0; j < n; j++) acc[r * n + j] += biasSum[r * groups + j / groupSize];
        }
    }

    /**
     * Scores {@code x·Wᵀ} of up to four rows of x ({@code k} = W's row length, the same support as
     * {@link #supports}) against W rows {@code [n0, n1)}: {@code c[r·ldc + row] = Σ_g s_g·Σ_{j∈g} x_j·q_j +
     * Σ_g b_g·Σ_{j∈g} x_j}, each code chunk scaled by its group's scale in registers, one reduction per
     * row and W row, and the bias term from per-group sums of x computed once.
     */
    public static void scores(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] x, int m, int n0, int n1, float[] c, int ldc) {
        var dec = CodebookVectors.WordDecoding.of(bits);
        int groups = k / groupSize;
        int words = k * bits / 32;
        float[] s = new float[groups];
        float[] b = new float[groups];
        float[] xp = new float[ROWS * k];              // x padded to four rows
        System.arraycopy(x, 0, xp, 0, m * k);
        float[] xSum = new float[ROWS * groups];
        for (int r = 0; r < m; r++) {
            for (int j = 0; j < k; j++) xSum[r * groups + j / groupSize] += x[r * k + j];
        }
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int row = n0; row < n1; row++) {
            params.load(row, s, b);
            IntVector raw = CodebookVectors.rowWords(packed, base + row * rowBytes, words);
            FloatVector a0 = FloatVector.zero(F);
            FloatVector a1 = FloatVector.zero(F);
            FloatVector a2 = FloatVector.zero(F);
            FloatVector a3 = FloatVector.zero(F);
            for (int j = 0, chunk = 0; j < k; j += L, chunk++) {
                IntVector lo = raw.rearrange(dec.low()[chunk]).lanewise(VectorOperators.LSHR, dec.right()[chunk]);
                IntVector hi = raw.rearrange(dec.high()[chunk]).lanewise(VectorOperators.LSHL, 1).lanewise(VectorOperators.LSHL, dec.left()[chunk]);
                FloatVector q = ((FloatVector) lo.or(hi).and(mask).convert(VectorOperators.I2F, 0)).mul(s[j / groupSize]);
                a0 = q.fma(FloatVector.fromArray(F, xp, j), a0);
                a1 = q.fma(FloatVector.fromArray(F, xp, k + j), a1);
                a2 = q.fma(FloatVector.fromArray(F, xp, 2 * k + j), a2);
                a3 = q.fma(FloatVector.fromArray(F, xp, 3 * k + j), a3);
            }
            c[row] = Lanes.sum(a0) + bias(b, xSum, 0, groups);
            if (m > 1) c[ldc + row] = Lanes.sum(a1) + bias(b, xSum, 1, groups);
            if (m > 2) c[2 * ldc + row] = Lanes.sum(a2) + bias(b, xSum, 2, groups);
            if (m > 3) c[3 * ldc + row] = Lanes.sum(a3) + bias(b, xSum, 3, groups);
        }
    }

    /** {@code Σ_g b_g·Σ_{j∈g} x[r, j]}: the bias term of row r's score. */
    private static float bias(float[] b, float[] xSum, int r, int groups) {
        float sum = 0;
        for (int g = 0; g < groups; g++) sum += b[g] * xSum[r * groups + g];
        return sum;
    }
}
