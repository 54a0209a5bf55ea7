package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code c[r, row] = x[r]·W[row]} for up to four x rows against short affine rows of 2, 4 or 8-bit
 * codes: attention's q·Kᵀ over an affine-quantized cache (a row is one token's head, 64–512 codes).
 * Lanes are keys: a tile of sixteen key rows is transposed ({@link KeyColumns}) so that each code
 * word of the sixteen keys is one vector, decoded by {@link QuantMatVec}'s bit placement (a rotate and one
 * ternary-logic op give {@code f = 1 + q·2^-bits} for sixteen keys at once) and multiplied into the
 * four x rows with x's element broadcast. Per group, the sums are scaled by each key's
 * {@code 2^bits·s}; the group-constant part {@code Σ_g (b_g − 2^bits·s_g)·Σx_g} is a vector FMA per
 * group. No sum is reduced across lanes: the lanes come out as sixteen scores. (Lanes over the head
 * dimension, as matrix-vector kernels do, needed a 16-lane reduction per key and row, which cost as
 * much as the multiply-adds.) Callers own every array; stateless, thread-safe.
 */
public final class AffineScores {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    /** x rows per call. */
    public static final int ROWS = 4;
    /** Keys per tile: one per lane (the transposition is written for sixteen). */
    private static final int TILE = 16;
    /** Longest row served: attention heads, where per-row costs matter (weights use {@link QuantMatVec}). */
    private static final int MAX_K = 512;

    private AffineScores() {
    }

    /** True for 2, 4 and 8-bit rows of k ≤ 512 codes in the chunk and group layouts {@link QuantMatVec} decodes. */
    public static boolean supports(int bits, int k, int groupSize) {
        return k <= MAX_K && QuantMatVec.supports(bits, k, groupSize) && KeyColumns.supported() && S.length() == TILE;
    }

    /**
     * {@code m ≤ 4} rows of x (natural order, stride k) as {@link #scores} takes them, made once per
     * product rather than per range of keys: {@code [0]} the rows padded to four with zeros,
     * {@code [1]} each row's group sums.
     */
    public static float[][] arrange(float[] x, int m, int k, int bits, int groupSize) {
        int groups = k / groupSize;
        float[] xn = new float[ROWS * k];
        float[] xs = new float[ROWS * groups];
        System.arraycopy(x, 0, xn, 0, m * k);
        for (int r = 0; r < m; r++) QuantMatVec.groupSums(x, r * k, k, groupSize, xs, r * groups);
        return new float[][] {xn, xs};
    }

    /**
     * Scores of {@code m ≤ 4} rows of x, given as {@link #arrange} made them, against W rows
     * {@code [n0, n1)} (row n at byte {@code base + n·rowBytes}); results at {@code c[r·ldc + n]}.
     */
    public static void scores(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[][] arranged, int m, int n0, int n1, float[] c, int ldc) {
        int groups = k / groupSize;
        int words = k * bits / 32;
        int wordsPerGroup = groupSize * bits / 32;
        float unit = 1 << bits;
        float[] x = arranged[0];
        float[] xs = arranged[1];
        float[] scales = new float[TILE * groups];
        float[] biases = new float[TILE * groups];
        // per group, the tile's keys side by side ([g·TILE + key]): 2^bits·s, and b − 2^bits·s
        float[] unitScales = new float[groups * TILE];
        float[] offsets = new float[groups * TILE];
        int[] columns = new int[(words + 15) / 16 * 256];
        float[] totals = new float[ROWS * TILE];
        for (int t0 = n0; t0 < n1; t0 += TILE) {
            int tile = Math.min(TILE, n1 - t0);
            params.loadRows(t0, tile, groups, scales, biases);
            for (int g = 0; g < groups; g++) {
                for (int j = 0; j < tile; j++) {
                    unitScales[g * TILE + j] = unit * scales[j * groups + g];
                    offsets[g * TILE + j] = biases[j * groups + g] - unit * scales[j * groups + g];
                }
            }
            for (int w0 = 0; w0 < words; w0 += 16) KeyColumns.transpose16(packed, base + t0 * rowBytes, rowBytes, tile, w0, columns);
            switch (bits) {
                case 8 -> tile8(columns, words, k, wordsPerGroup, x, unitScales, totals);
                case 4 -> tile4(columns, words, k, wordsPerGroup, x, unitScales, totals);
                default -> tile2(columns, words, k, wordsPerGroup, x, unitScales, totals);
            }
            VectorMask<Float> in = S.indexInRange(0, tile);
            for (int r = 0; r < m; r++) {
                FloatVector score = FloatVector.fromArray(S, totals, r * TILE);
                for (int g = 0; g < groups; g++) {
                    score = FloatVector.fromArray(S, offsets, g * TILE).fma(FloatVector.broadcast(S, xs[r * groups + g]), score);
                }
                score.intoArray(c, r * ldc + t0, in);
            }
        }
    }

    // tile8, tile4 and tile2 are one loop with the width's rotations and codes per word as constants:
    // the sums 2^bits·s_g·Σ x·(1 + q·2^-bits) of the four x rows against the tile's keys, row r's at
    // totals[r·TILE ...]; even and odd code positions go to separate accumulators (two FMA chains per row).
    private static void tile8(int[] columns, int words, int k, int wordsPerGroup, float[] x, float[] unitScales, float[] totals) {
        FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int w = 0; w < words; w++) {
            IntVector codes = IntVector.fromArray(IS, columns, w * 16);
            int dim = w * 4;
            FloatVector f;
            f = codes.lanewise(VectorOperators.LSHL, 15).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 7).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 1]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 1]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 1]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 1]), b3);
            f = codes.lanewise(VectorOperators.LSHR, 1).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 2]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 2]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 2]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 2]), a3);
            f = codes.lanewise(VectorOperators.LSHR, 9).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 3]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 3]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 3]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 3]), b3);
            if (((w + 1) & (wordsPerGroup - 1)) == 0) {
                // the group's last word: its sums, times each key's 2^bits·s
                FloatVector s = FloatVector.fromArray(S, unitScales, w / wordsPerGroup * TILE);
                t0 = a0.add(b0).fma(s, t0);
                t1 = a1.add(b1).fma(s, t1);
                t2 = a2.add(b2).fma(s, t2);
                t3 = a3.add(b3).fma(s, t3);
                a0 = FloatVector.zero(S);
                a1 = FloatVector.zero(S);
                a2 = FloatVector.zero(S);
                a3 = FloatVector.zero(S);
                b0 = FloatVector.zero(S);
                b1 = FloatVector.zero(S);
                b2 = FloatVector.zero(S);
                b3 = FloatVector.zero(S);
            }
        }
        t0.intoArray(totals, 0);
        t1.intoArray(totals, TILE);
        t2.intoArray(totals, 2 * TILE);
        t3.intoArray(totals, 3 * TILE);
    }

    private static void tile4(int[] columns, int words, int k, int wordsPerGroup, float[] x, float[] unitScales, float[] totals) {
        FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int w = 0; w < words; w++) {
            IntVector codes = IntVector.fromArray(IS, columns, w * 16);
            int dim = w * 8;
            FloatVector f;
            f = codes.lanewise(VectorOperators.LSHL, 19).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 15).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 1]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 1]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 1]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 1]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 11).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 2]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 2]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 2]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 2]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 7).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 3]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 3]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 3]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 3]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 3).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 4]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 4]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 4]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 4]), a3);
            f = codes.lanewise(VectorOperators.LSHR, 1).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 5]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 5]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 5]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 5]), b3);
            f = codes.lanewise(VectorOperators.LSHR, 5).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 6]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 6]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 6]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 6]), a3);
            f = codes.lanewise(VectorOperators.LSHR, 9).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 7]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 7]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 7]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 7]), b3);
            if (((w + 1) & (wordsPerGroup - 1)) == 0) {
                // the group's last word: its sums, times each key's 2^bits·s
                FloatVector s = FloatVector.fromArray(S, unitScales, w / wordsPerGroup * TILE);
                t0 = a0.add(b0).fma(s, t0);
                t1 = a1.add(b1).fma(s, t1);
                t2 = a2.add(b2).fma(s, t2);
                t3 = a3.add(b3).fma(s, t3);
                a0 = FloatVector.zero(S);
                a1 = FloatVector.zero(S);
                a2 = FloatVector.zero(S);
                a3 = FloatVector.zero(S);
                b0 = FloatVector.zero(S);
                b1 = FloatVector.zero(S);
                b2 = FloatVector.zero(S);
                b3 = FloatVector.zero(S);
            }
        }
        t0.intoArray(totals, 0);
        t1.intoArray(totals, TILE);
        t2.intoArray(totals, 2 * TILE);
        t3.intoArray(totals, 3 * TILE);
    }

    private static void tile2(int[] columns, int words, int k, int wordsPerGroup, float[] x, float[] unitScales, float[] totals) {
        FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int w = 0; w < words; w++) {
            IntVector codes = IntVector.fromArray(IS, columns, w * 16);
            int dim = w * 16;
            FloatVector f;
            f = codes.lanewise(VectorOperators.LSHL, 21).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 19).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 1]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 1]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 1]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 1]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 17).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 2]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 2]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 2]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 2]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 15).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 3]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 3]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 3]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 3]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 13).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 4]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 4]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 4]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 4]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 11).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 5]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 5]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 5]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 5]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 9).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 6]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 6]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 6]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 6]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 7).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 7]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 7]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 7]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 7]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 5).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 8]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 8]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 8]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 8]), a3);
            f = codes.lanewise(VectorOperators.LSHL, 3).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 9]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 9]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 9]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 9]), b3);
            f = codes.lanewise(VectorOperators.LSHL, 1).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 10]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 10]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 10]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 10]), a3);
            f = codes.lanewise(VectorOperators.LSHR, 1).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 11]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 11]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 11]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 11]), b3);
            f = codes.lanewise(VectorOperators.LSHR, 3).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 12]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 12]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 12]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 12]), a3);
            f = codes.lanewise(VectorOperators.LSHR, 5).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 13]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 13]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 13]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 13]), b3);
            f = codes.lanewise(VectorOperators.LSHR, 7).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            a0 = f.fma(FloatVector.broadcast(S, x[dim + 14]), a0);
            a1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 14]), a1);
            a2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 14]), a2);
            a3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 14]), a3);
            f = codes.lanewise(VectorOperators.LSHR, 9).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            b0 = f.fma(FloatVector.broadcast(S, x[dim + 15]), b0);
            b1 = f.fma(FloatVector.broadcast(S, x[1 * k + dim + 15]), b1);
            b2 = f.fma(FloatVector.broadcast(S, x[2 * k + dim + 15]), b2);
            b3 = f.fma(FloatVector.broadcast(S, x[3 * k + dim + 15]), b3);
            if (((w + 1) & (wordsPerGroup - 1)) == 0) {
                // the group's last word: its sums, times each key's 2^bits·s
                FloatVector s = FloatVector.fromArray(S, unitScales, w / wordsPerGroup * TILE);
                t0 = a0.add(b0).fma(s, t0);
                t1 = a1.add(b1).fma(s, t1);
                t2 = a2.add(b2).fma(s, t2);
                t3 = a3.add(b3).fma(s, t3);
                a0 = FloatVector.zero(S);
                a1 = FloatVector.zero(S);
                a2 = FloatVector.zero(S);
                a3 = FloatVector.zero(S);
                b0 = FloatVector.zero(S);
                b1 = FloatVector.zero(S);
                b2 = FloatVector.zero(S);
                b3 = FloatVector.zero(S);
            }
        }
        t0.intoArray(totals, 0);
        t1.intoArray(totals, TILE);
        t2.intoArray(totals, 2 * TILE);
        t3.intoArray(totals, 3 * TILE);
    }
}
