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
        // b − unit·s of the tile's keys, group-major ([g·TILE + key]): the group-constant parts of
        // sixteen keys' scores are then vector FMAs (a scalar loop over two groups per score cost
        // as much as the keys' multiply-adds)
        float[] offsets = new float[TILE * groups];
        // each key's four row vectors are stored, and the tile's sums reduced sixteen keys at a time
        // (Lanes.sums: the bits of one Lanes.sum per vector, ~4 vector ops per sum instead of ~9)
        float[] vectors = new float[ROWS * TILE * S.length()];
        float[] dots = new float[ROWS * TILE];
        // each word lane's group scale, per key ([key·words + word]): one load per chunk in the kernels
        int words = k * bits / 32;
        float[] laneScales = new float[TILE * words];
        VectorShuffle<Float> spread = wordsPerGroup < V ? VectorShuffle.fromOp(S, l -> l / wordsPerGroup) : null;
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        for (int t0 = n0; t0 < n1; t0 += TILE) {
            int tile = Math.min(TILE, n1 - t0);
            params.loadRows(t0, tile, groups, scales, biases);
            spreadScales(scales, tile, groups, words, gShift, spread, laneScales);
            // two keys per call: each x vector loaded once for both (the loads, not the FMAs, bound one key
            // at a time); an odd last key is paired with itself
            for (int j = 0; j < tile; j += 2) {
                int jb = Math.min(j + 1, tile - 1);
                long rowA = base + (t0 + j) * rowBytes;
                long rowB = base + (t0 + jb) * rowBytes;
                switch (bits) {
                    case 8 -> dots8(packed, rowA, rowB, k, xa, laneScales, j * words, jb * words, vectors, j, jb);
                    case 4 -> dots4(packed, rowA, rowB, k, xa, laneScales, j * words, jb * words, vectors, j, jb);
                    default -> dots2(packed, rowA, rowB, k, xa, laneScales, j * words, jb * words, vectors, j, jb);
                }
            }
            for (int r = 0; r < m; r++) Lanes.sums(vectors, r * TILE * S.length(), TILE, dots, r * TILE);
            for (int j = 0; j < tile; j++) {
                for (int g = 0; g < groups; g++) offsets[g * TILE + j] = biases[j * groups + g] - unit * scales[j * groups + g];
            }
            for (int r = 0; r < m; r++) {
                for (int j = 0; j < tile; j += S.length()) {
                    FloatVector score = FloatVector.fromArray(S, dots, r * TILE + j).mul(unit);
                    for (int g = 0; g < groups; g++) {
                        score = FloatVector.fromArray(S, offsets, g * TILE + j).fma(FloatVector.broadcast(S, xs[r * groups + g]), score);
                    }
                    score.intoArray(c, r * ldc + t0 + j, S.indexInRange(j, tile));
                }
            }
        }
    }

    /** The group scale of every word of the tile's keys, key after key (words per key: {@code words}). */
    private static void spreadScales(float[] scales, int tile, int groups, int words, int gShift, VectorShuffle<Float> spread,
                                     float[] laneScales) {
        for (int j = 0; j < tile; j++) {
            for (int word = 0; word < words; word += V) {
                laneScales(scales, j * groups, word, gShift, spread).intoArray(laneScales, j * words + word);
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
    // each stores the vectors whose lane sums are Σ_g s_g·Σ x·(1 + q·2^-bits) of rows A and B against the
    // four arranged x rows, row r's at vectors[(r·TILE + key)·lanes]. One dots(bits) taking positions
    // four at a time with loop-invariant rotations ran 1.3–1.8× slower (one kv head × 8192 tokens,
    // 4-bit: 0.57–0.82 → 1.04–1.09 ms), so the copies stay.
    private static void dots8(MemorySegment packed, long rowA, long rowB, int k, float[] xa, float[] laneScales, int lsA, int lsB,
                              float[] vectors, int keyA, int keyB) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 4 * V, word += V) {
            IntVector wa = IntVector.fromMemorySegment(IS, packed, rowA + 4L * word, LE);
            IntVector wb = IntVector.fromMemorySegment(IS, packed, rowB + 4L * word, LE);
            FloatVector s0 = FloatVector.zero(S), s1 = FloatVector.zero(S), s2 = FloatVector.zero(S), s3 = FloatVector.zero(S);
            FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
            for (int p = 0; p < 4; p++) {
                int o = c + p * V;
                int rot = (15 - 8 * p) & 31;
                FloatVector fa = wa.lanewise(VectorOperators.ROL, rot).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
                FloatVector fb = wb.lanewise(VectorOperators.ROL, rot).and(0x7f8000).or(0x3f800000).reinterpretAsFloats();
                FloatVector x = FloatVector.fromArray(S, xa, o);
                s0 = fa.fma(x, s0);
                t0 = fb.fma(x, t0);
                x = FloatVector.fromArray(S, xa, k + o);
                s1 = fa.fma(x, s1);
                t1 = fb.fma(x, t1);
                x = FloatVector.fromArray(S, xa, 2 * k + o);
                s2 = fa.fma(x, s2);
                t2 = fb.fma(x, t2);
                x = FloatVector.fromArray(S, xa, 3 * k + o);
                s3 = fa.fma(x, s3);
                t3 = fb.fma(x, t3);
            }
            FloatVector sv = FloatVector.fromArray(S, laneScales, lsA + word);
            a0 = s0.fma(sv, a0);
            a1 = s1.fma(sv, a1);
            a2 = s2.fma(sv, a2);
            a3 = s3.fma(sv, a3);
            sv = FloatVector.fromArray(S, laneScales, lsB + word);
            b0 = t0.fma(sv, b0);
            b1 = t1.fma(sv, b1);
            b2 = t2.fma(sv, b2);
            b3 = t3.fma(sv, b3);
        }
        int f = S.length();
        a0.intoArray(vectors, keyA * f);
        a1.intoArray(vectors, (TILE + keyA) * f);
        a2.intoArray(vectors, (2 * TILE + keyA) * f);
        a3.intoArray(vectors, (3 * TILE + keyA) * f);
        b0.intoArray(vectors, keyB * f);
        b1.intoArray(vectors, (TILE + keyB) * f);
        b2.intoArray(vectors, (2 * TILE + keyB) * f);
        b3.intoArray(vectors, (3 * TILE + keyB) * f);
    }

    private static void dots4(MemorySegment packed, long rowA, long rowB, int k, float[] xa, float[] laneScales, int lsA, int lsB,
                              float[] vectors, int keyA, int keyB) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 8 * V, word += V) {
            IntVector wa = IntVector.fromMemorySegment(IS, packed, rowA + 4L * word, LE);
            IntVector wb = IntVector.fromMemorySegment(IS, packed, rowB + 4L * word, LE);
            FloatVector s0 = FloatVector.zero(S), s1 = FloatVector.zero(S), s2 = FloatVector.zero(S), s3 = FloatVector.zero(S);
            FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
            for (int p = 0; p < 8; p++) {
                int o = c + p * V;
                int rot = (19 - 4 * p) & 31;
                FloatVector fa = wa.lanewise(VectorOperators.ROL, rot).and(0x780000).or(0x3f800000).reinterpretAsFloats();
                FloatVector fb = wb.lanewise(VectorOperators.ROL, rot).and(0x780000).or(0x3f800000).reinterpretAsFloats();
                FloatVector x = FloatVector.fromArray(S, xa, o);
                s0 = fa.fma(x, s0);
                t0 = fb.fma(x, t0);
                x = FloatVector.fromArray(S, xa, k + o);
                s1 = fa.fma(x, s1);
                t1 = fb.fma(x, t1);
                x = FloatVector.fromArray(S, xa, 2 * k + o);
                s2 = fa.fma(x, s2);
                t2 = fb.fma(x, t2);
                x = FloatVector.fromArray(S, xa, 3 * k + o);
                s3 = fa.fma(x, s3);
                t3 = fb.fma(x, t3);
            }
            FloatVector sv = FloatVector.fromArray(S, laneScales, lsA + word);
            a0 = s0.fma(sv, a0);
            a1 = s1.fma(sv, a1);
            a2 = s2.fma(sv, a2);
            a3 = s3.fma(sv, a3);
            sv = FloatVector.fromArray(S, laneScales, lsB + word);
            b0 = t0.fma(sv, b0);
            b1 = t1.fma(sv, b1);
            b2 = t2.fma(sv, b2);
            b3 = t3.fma(sv, b3);
        }
        int f = S.length();
        a0.intoArray(vectors, keyA * f);
        a1.intoArray(vectors, (TILE + keyA) * f);
        a2.intoArray(vectors, (2 * TILE + keyA) * f);
        a3.intoArray(vectors, (3 * TILE + keyA) * f);
        b0.intoArray(vectors, keyB * f);
        b1.intoArray(vectors, (TILE + keyB) * f);
        b2.intoArray(vectors, (2 * TILE + keyB) * f);
        b3.intoArray(vectors, (3 * TILE + keyB) * f);
    }

    private static void dots2(MemorySegment packed, long rowA, long rowB, int k, float[] xa, float[] laneScales, int lsA, int lsB,
                              float[] vectors, int keyA, int keyB) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 16 * V, word += V) {
            IntVector wa = IntVector.fromMemorySegment(IS, packed, rowA + 4L * word, LE);
            IntVector wb = IntVector.fromMemorySegment(IS, packed, rowB + 4L * word, LE);
            FloatVector s0 = FloatVector.zero(S), s1 = FloatVector.zero(S), s2 = FloatVector.zero(S), s3 = FloatVector.zero(S);
            FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
            for (int p = 0; p < 16; p++) {
                int o = c + p * V;
                int rot = (21 - 2 * p) & 31;
                FloatVector fa = wa.lanewise(VectorOperators.ROL, rot).and(0x600000).or(0x3f800000).reinterpretAsFloats();
                FloatVector fb = wb.lanewise(VectorOperators.ROL, rot).and(0x600000).or(0x3f800000).reinterpretAsFloats();
                FloatVector x = FloatVector.fromArray(S, xa, o);
                s0 = fa.fma(x, s0);
                t0 = fb.fma(x, t0);
                x = FloatVector.fromArray(S, xa, k + o);
                s1 = fa.fma(x, s1);
                t1 = fb.fma(x, t1);
                x = FloatVector.fromArray(S, xa, 2 * k + o);
                s2 = fa.fma(x, s2);
                t2 = fb.fma(x, t2);
                x = FloatVector.fromArray(S, xa, 3 * k + o);
                s3 = fa.fma(x, s3);
                t3 = fb.fma(x, t3);
            }
            FloatVector sv = FloatVector.fromArray(S, laneScales, lsA + word);
            a0 = s0.fma(sv, a0);
            a1 = s1.fma(sv, a1);
            a2 = s2.fma(sv, a2);
            a3 = s3.fma(sv, a3);
            sv = FloatVector.fromArray(S, laneScales, lsB + word);
            b0 = t0.fma(sv, b0);
            b1 = t1.fma(sv, b1);
            b2 = t2.fma(sv, b2);
            b3 = t3.fma(sv, b3);
        }
        int f = S.length();
        a0.intoArray(vectors, keyA * f);
        a1.intoArray(vectors, (TILE + keyA) * f);
        a2.intoArray(vectors, (2 * TILE + keyA) * f);
        a3.intoArray(vectors, (3 * TILE + keyA) * f);
        b0.intoArray(vectors, keyB * f);
        b1.intoArray(vectors, (TILE + keyB) * f);
        b2.intoArray(vectors, (2 * TILE + keyB) * f);
        b3.intoArray(vectors, (3 * TILE + keyB) * f);
    }
}
