package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code c[r, row] = x[r]·W[row]} for up to four x rows against short affine rows of 2, 4 or 8-bit
 * codes: attention's q·Kᵀ over an affine-quantized cache (a row is one token's head, 64–256 codes).
 * Each chunk of 16 words is decoded once, by {@link QuantMatVec}'s bit placement (a rotate and one
 * ternary-logic op give {@code f = 1 + q·2^-bits}), and multiplied into all four rows against x
 * arranged to the code order ({@link QuantMatVec#arrange}); the group scales are applied per chunk
 * lane and the group-constant part {@code Σ_g (b_g − 2^bits·s_g)·Σx_g} is added per score. The
 * general matrix-vector kernel decodes a row once per x row and pays its per-row costs each time,
 * which for 128-code rows made a 4-query score 7× the cost of its arithmetic. Callers own every
 * array; stateless, thread-safe.
 */
public final class AffineScores {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** x rows per call. */
    public static final int ROWS = 4;
    /** Key rows whose group parameters are widened together. */
    private static final int TILE = 16;
    /** Longest row served: attention heads, where per-row costs matter (weights use {@link QuantMatVec}). */
    private static final int MAX_K = 512;

    private AffineScores() {
    }

    /** True for 2, 4 and 8-bit rows of k ≤ 512 codes in the chunk and group layouts {@link QuantMatVec} decodes. */
    public static boolean supports(int bits, int k, int groupSize) {
        return k <= MAX_K && QuantMatVec.supports(bits, k, groupSize);
    }

    /**
     * {@code m ≤ 4} rows of x (natural order, stride k) as {@link #scores} takes them, made once per
     * product rather than per range of keys: {@code [0]} arranged to the code order (missing rows
     * zero), {@code [1]} each row's group sums.
     */
    public static float[][] arrange(float[] x, int m, int k, int bits, int groupSize) {
        int groups = k / groupSize;
        float[] xa = new float[ROWS * k];
        float[] xs = new float[ROWS * groups];
        for (int r = 0; r < m; r++) {
            QuantMatVec.arrange(x, r * k, k, bits, xa, r * k);
            QuantMatVec.groupSums(x, r * k, k, groupSize, xs, r * groups);
        }
        return new float[][] {xa, xs};
    }

    /**
     * Scores of {@code m ≤ 4} rows of x, given as {@link #arrange} made them, against W rows
     * {@code [n0, n1)} (row n at byte {@code base + n·rowBytes}); results at {@code c[r·ldc + n]}.
     */
    public static void scores(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[][] arranged, int m, int n0, int n1, float[] c, int ldc) {
        int groups = k / groupSize;
        int wordsPerGroup = groupSize * bits / 32;
        float unit = 1 << bits;
        float[] xa = arranged[0];
        float[] xs = arranged[1];
        // scales of several groups are spread from one vector load: padded by a vector
        float[] scales = new float[TILE * groups + V];
        float[] biases = new float[TILE * groups];
        // each key's four row vectors are stored, and the tile's sums reduced sixteen keys at a time
        // (Lanes.sums: the bits of one Lanes.sum per vector, ~4 vector ops per sum instead of ~9)
        float[] vectors = new float[ROWS * TILE * S.length()];
        float[] dots = new float[ROWS * TILE];
        VectorShuffle<Float> spread = wordsPerGroup < V ? VectorShuffle.fromOp(S, l -> l / wordsPerGroup) : null;
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        for (int t0 = n0; t0 < n1; t0 += TILE) {
            int tile = Math.min(TILE, n1 - t0);
            params.loadRows(t0, tile, groups, scales, biases);
            for (int j = 0; j < tile; j++) {
                long row = base + (t0 + j) * rowBytes;
                int po = j * groups;
                switch (bits) {
                    case 8 -> dots8(packed, row, k, xa, scales, po, gShift, spread, vectors, j);
                    case 4 -> dots4(packed, row, k, xa, scales, po, gShift, spread, vectors, j);
                    default -> dots2(packed, row, k, xa, scales, po, gShift, spread, vectors, j);
                }
            }
            for (int r = 0; r < m; r++) Lanes.sums(vectors, r * TILE * S.length(), TILE, dots, r * TILE);
            // the group-constant part: b − unit·s once per key and group, then its dot with each row's group sums
            for (int i = 0; i < tile * groups; i++) biases[i] -= unit * scales[i];
            for (int r = 0; r < m; r++) {
                for (int j = 0; j < tile; j++) {
                    int po = j * groups;
                    float bias = 0;
                    for (int g = 0; g < groups; g++) bias += biases[po + g] * xs[r * groups + g];
                    c[r * ldc + t0 + j] = unit * dots[r * TILE + j] + bias;
                }
            }
        }
    }

    /**
     * The scale of each lane of the chunk starting at word {@code word} of a row whose group scales
     * start at {@code scales[po]}: one group's scale broadcast, or (several groups per chunk) spread.
     */
    static FloatVector laneScales(float[] scales, int po, int word, int gShift, VectorShuffle<Float> spread) {
        int g = po + (word >>> gShift);
        return spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread);
    }

    // dots8, dots4 and dots2 are one loop with the width's rotations and trip count as constants;
    // each stores the vectors whose lane sums are Σ_g s_g·Σ x·(1 + q·2^-bits) of the row against the four
    // arranged x rows, row r's at vectors[(r·TILE + key)·lanes]. One
    // dots(bits) taking positions four at a time with loop-invariant rotations ran 1.3–1.8× slower
    // (one kv head × 8192 tokens, 4-bit: 0.57–0.82 → 1.04–1.09 ms), so the copies stay.
    private static void dots8(MemorySegment packed, long row, int k, float[] xa, float[] scales, int po, int gShift,
                              VectorShuffle<Float> spread, float[] vectors, int key) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 4 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            FloatVector f = w.lanewise(VectorOperators.ROL, 15).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
            FloatVector t0 = f.mul(FloatVector.fromArray(S, xa, c));
            FloatVector t1 = f.mul(FloatVector.fromArray(S, xa, k + c));
            FloatVector t2 = f.mul(FloatVector.fromArray(S, xa, 2 * k + c));
            FloatVector t3 = f.mul(FloatVector.fromArray(S, xa, 3 * k + c));
            for (int p = 1; p < 4; p++) {
                int o = c + p * V;
                f = w.lanewise(VectorOperators.ROL, (15 - 8 * p) & 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
                t0 = f.fma(FloatVector.fromArray(S, xa, o), t0);
                t1 = f.fma(FloatVector.fromArray(S, xa, k + o), t1);
                t2 = f.fma(FloatVector.fromArray(S, xa, 2 * k + o), t2);
                t3 = f.fma(FloatVector.fromArray(S, xa, 3 * k + o), t3);
            }
            FloatVector sv = laneScales(scales, po, word, gShift, spread);
            a0 = t0.fma(sv, a0);
            a1 = t1.fma(sv, a1);
            a2 = t2.fma(sv, a2);
            a3 = t3.fma(sv, a3);
        }
        int f = S.length();
        a0.intoArray(vectors, key * f);
        a1.intoArray(vectors, (TILE + key) * f);
        a2.intoArray(vectors, (2 * TILE + key) * f);
        a3.intoArray(vectors, (3 * TILE + key) * f);
    }

    private static void dots4(MemorySegment packed, long row, int k, float[] xa, float[] scales, int po, int gShift,
                              VectorShuffle<Float> spread, float[] vectors, int key) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            FloatVector f = w.lanewise(VectorOperators.ROL, 19).and(0x780000).or(0x3f800000).reinterpretAsFloats();
            FloatVector t0 = f.mul(FloatVector.fromArray(S, xa, c));
            FloatVector t1 = f.mul(FloatVector.fromArray(S, xa, k + c));
            FloatVector t2 = f.mul(FloatVector.fromArray(S, xa, 2 * k + c));
            FloatVector t3 = f.mul(FloatVector.fromArray(S, xa, 3 * k + c));
            for (int p = 1; p < 8; p++) {
                int o = c + p * V;
                f = w.lanewise(VectorOperators.ROL, (19 - 4 * p) & 31).and(0x780000).or(0x3f800000).reinterpretAsFloats();
                t0 = f.fma(FloatVector.fromArray(S, xa, o), t0);
                t1 = f.fma(FloatVector.fromArray(S, xa, k + o), t1);
                t2 = f.fma(FloatVector.fromArray(S, xa, 2 * k + o), t2);
                t3 = f.fma(FloatVector.fromArray(S, xa, 3 * k + o), t3);
            }
            FloatVector sv = laneScales(scales, po, word, gShift, spread);
            a0 = t0.fma(sv, a0);
            a1 = t1.fma(sv, a1);
            a2 = t2.fma(sv, a2);
            a3 = t3.fma(sv, a3);
        }
        int f = S.length();
        a0.intoArray(vectors, key * f);
        a1.intoArray(vectors, (TILE + key) * f);
        a2.intoArray(vectors, (2 * TILE + key) * f);
        a3.intoArray(vectors, (3 * TILE + key) * f);
    }

    private static void dots2(MemorySegment packed, long row, int k, float[] xa, float[] scales, int po, int gShift,
                              VectorShuffle<Float> spread, float[] vectors, int key) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 16 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            FloatVector f = w.lanewise(VectorOperators.ROL, 21).and(0x600000).or(0x3f800000).reinterpretAsFloats();
            FloatVector t0 = f.mul(FloatVector.fromArray(S, xa, c));
            FloatVector t1 = f.mul(FloatVector.fromArray(S, xa, k + c));
            FloatVector t2 = f.mul(FloatVector.fromArray(S, xa, 2 * k + c));
            FloatVector t3 = f.mul(FloatVector.fromArray(S, xa, 3 * k + c));
            for (int p = 1; p < 16; p++) {
                int o = c + p * V;
                f = w.lanewise(VectorOperators.ROL, (21 - 2 * p) & 31).and(0x600000).or(0x3f800000).reinterpretAsFloats();
                t0 = f.fma(FloatVector.fromArray(S, xa, o), t0);
                t1 = f.fma(FloatVector.fromArray(S, xa, k + o), t1);
                t2 = f.fma(FloatVector.fromArray(S, xa, 2 * k + o), t2);
                t3 = f.fma(FloatVector.fromArray(S, xa, 3 * k + o), t3);
            }
            FloatVector sv = laneScales(scales, po, word, gShift, spread);
            a0 = t0.fma(sv, a0);
            a1 = t1.fma(sv, a1);
            a2 = t2.fma(sv, a2);
            a3 = t3.fma(sv, a3);
        }
        int f = S.length();
        a0.intoArray(vectors, key * f);
        a1.intoArray(vectors, (TILE + key) * f);
        a2.intoArray(vectors, (2 * TILE + key) * f);
        a3.intoArray(vectors, (3 * TILE + key) * f);
    }
}
