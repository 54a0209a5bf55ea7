package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Attention scores {@code scores[m·lds + j] = q_m · key_j} for a few query rows against many keys
 * of a short head dim (64, 128): with so few products per key, reducing each key's vector to one
 * number costs as much as the products, so the per-key vectors of {@link #BLOCK} keys are stored
 * and reduced together ({@link Lanes#sums}), the query row in registers: for head dims of four or eight
 * vectors (64 and 128 with 16 lanes) whole, for multiples of eight (128 with AVX2's 8 lanes, whose 16
 * registers cannot hold that row; 256) in slices of eight vectors, the keys' chains carried between slices
 * through the scratch. The results are bit-identical to {@link MatVec#f32} / {@link MatVec#bf16} on the
 * same rows; other head dims, and keys past the last full block, go through those kernels.
 * Thread-safe; callers own the arrays.
 */
public final class KeyScores {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    private static final VectorSpecies<Short> SS = ShortVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Keys reduced together: one vector's worth of sums. */
    public static final int BLOCK = F;

    private KeyScores() {
    }

    /** Where a block's carried chains start in the scratch: after its per-key vectors. */
    private static final int CHAINS = BLOCK * F;

    /** Floats of scratch that {@link #f32} and {@link #bf16} need: the block's per-key vectors and four chains per key. */
    public static int scratchLength() {
        return CHAINS + 4 * BLOCK * F;
    }

    /**
     * f32 keys {@code [j0, j1)} (key j at byte {@code kOff + j·ldk}), queries {@code q[m·d ..]} in natural order. Each
     * key's score has the same bits whatever range it is scored in. Head dims other than four vectors or a multiple of
     * eight, and keys past the range's last full block, go to {@link MatVec#f32}.
     */
    public static void f32(MemorySegment keys, long kOff, long ldk, int d, float[] q, int rows, int j0, int j1,
                           float[] scores, int lds, float[] scratch) {
        int full = d == 4 * F || d % (8 * F) == 0 ? j1 - (j1 - j0) % BLOCK : j0;
        if (full > j0) {
            if (d <= 8 * F) f32Hoisted(keys, kOff, ldk, q, rows, j0, full, scores, lds, scratch, d == 8 * F);
            else f32Sliced(keys, kOff, ldk, d, q, rows, j0, full, scores, lds, scratch);
        }
        if (full < j1) MatVec.f32(keys, kOff, ldk, d, q, rows, full, j1, scores, 0, lds);
    }

    /** bf16 keys; queries arranged by {@link MatVec#interleaveForBf16}. Otherwise as {@link #f32}, with {@link MatVec#bf16}. */
    public static void bf16(MemorySegment keys, long kOff, long ldk, int d, float[] qi, int rows, int j0, int j1,
                            float[] scores, int lds, float[] scratch) {
        int b = MatVec.BF16_BLOCK;
        int full = d == 2 * b || d % (4 * b) == 0 ? j1 - (j1 - j0) % BLOCK : j0;
        if (full > j0) {
            if (d <= 4 * b) bf16Hoisted(keys, kOff, ldk, qi, rows, j0, full, scores, lds, scratch, d == 4 * b);
            else bf16Sliced(keys, kOff, ldk, d, qi, rows, j0, full, scores, lds, scratch);
        }
        if (full < j1) MatVec.bf16(keys, kOff, ldk, d, qi, rows, full, j1, scores, 0, lds);
    }

    /**
     * Head dims of four or eight vectors (64 and 128 with 16 lanes): the query row stays in
     * registers and each key is straight-line code, so the loop over keys is the innermost loop
     * (C2 hoists its checks) — MatVec.f32's loop over one key's vectors would run once or twice.
     * Same accumulators and order as MatVec.f32: four chains, the second vector of each from
     * {@code 4F} on, added as {@code (a0 + a1) + (a2 + a3)}.
     */
    private static void f32Hoisted(MemorySegment keys, long kOff, long ldk, float[] q, int rows, int from, int full,
                                   float[] scores, int lds, float[] scratch, boolean eight) {
        FloatVector zero = FloatVector.zero(S);
        for (int j0 = from; j0 < full; j0 += BLOCK) {
            for (int m = 0; m < rows; m++) {
                int d = eight ? 8 * F : 4 * F;
                int xo = m * d;
                FloatVector q0 = FloatVector.fromArray(S, q, xo), q1 = FloatVector.fromArray(S, q, xo + F);
                FloatVector q2 = FloatVector.fromArray(S, q, xo + 2 * F), q3 = FloatVector.fromArray(S, q, xo + 3 * F);
                FloatVector q4 = eight ? FloatVector.fromArray(S, q, xo + 4 * F) : zero, q5 = eight ? FloatVector.fromArray(S, q, xo + 5 * F) : zero;
                FloatVector q6 = eight ? FloatVector.fromArray(S, q, xo + 6 * F) : zero, q7 = eight ? FloatVector.fromArray(S, q, xo + 7 * F) : zero;
                for (int j = 0; j < BLOCK; j++) {
                    long row = kOff + (j0 + j) * ldk;
                    FloatVector a0 = FloatVector.fromMemorySegment(S, keys, row, LE).fma(q0, zero);
                    FloatVector a1 = FloatVector.fromMemorySegment(S, keys, row + 4L * F, LE).fma(q1, zero);
                    FloatVector a2 = FloatVector.fromMemorySegment(S, keys, row + 8L * F, LE).fma(q2, zero);
                    FloatVector a3 = FloatVector.fromMemorySegment(S, keys, row + 12L * F, LE).fma(q3, zero);
                    if (eight) {
                        a0 = FloatVector.fromMemorySegment(S, keys, row + 16L * F, LE).fma(q4, a0);
                        a1 = FloatVector.fromMemorySegment(S, keys, row + 20L * F, LE).fma(q5, a1);
                        a2 = FloatVector.fromMemorySegment(S, keys, row + 24L * F, LE).fma(q6, a2);
                        a3 = FloatVector.fromMemorySegment(S, keys, row + 28L * F, LE).fma(q7, a3);
                    }
                    a0.add(a1).add(a2.add(a3)).intoArray(scratch, j * F);
                }
                Lanes.sums(scratch, 0, BLOCK, scores, m * lds + j0);
            }
        }
    }

    /**
     * {@link #f32Hoisted} for bf16 keys of two or four {@link MatVec#BF16_BLOCK}s (64 and 128): per
     * pair of blocks, even and odd halves of each into four chains, as MatVec.bf16 adds them.
     */
    private static void bf16Hoisted(MemorySegment keys, long kOff, long ldk, float[] qi, int rows, int from, int full,
                                    float[] scores, int lds, float[] scratch, boolean four) {
        FloatVector zero = FloatVector.zero(S);
        int b = MatVec.BF16_BLOCK;
        for (int j0 = from; j0 < full; j0 += BLOCK) {
            for (int m = 0; m < rows; m++) {
                int d = four ? 4 * b : 2 * b;
                int xo = m * d;
                FloatVector q0 = FloatVector.fromArray(S, qi, xo), q1 = FloatVector.fromArray(S, qi, xo + F);
                FloatVector q2 = FloatVector.fromArray(S, qi, xo + b), q3 = FloatVector.fromArray(S, qi, xo + b + F);
                FloatVector q4 = four ? FloatVector.fromArray(S, qi, xo + 2 * b) : zero, q5 = four ? FloatVector.fromArray(S, qi, xo + 2 * b + F) : zero;
                FloatVector q6 = four ? FloatVector.fromArray(S, qi, xo + 3 * b) : zero, q7 = four ? FloatVector.fromArray(S, qi, xo + 3 * b + F) : zero;
                for (int j = 0; j < BLOCK; j++) {
                    long row = kOff + (j0 + j) * ldk;
                    IntVector w0 = ShortVector.fromMemorySegment(SS, keys, row, LE).reinterpretAsInts();
                    IntVector w1 = ShortVector.fromMemorySegment(SS, keys, row + 2L * b, LE).reinterpretAsInts();
                    FloatVector a0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q0, zero);
                    FloatVector a1 = w0.and(0xffff0000).reinterpretAsFloats().fma(q1, zero);
                    FloatVector a2 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q2, zero);
                    FloatVector a3 = w1.and(0xffff0000).reinterpretAsFloats().fma(q3, zero);
                    if (four) {
                        IntVector w2 = ShortVector.fromMemorySegment(SS, keys, row + 4L * b, LE).reinterpretAsInts();
                        IntVector w3 = ShortVector.fromMemorySegment(SS, keys, row + 6L * b, LE).reinterpretAsInts();
                        a0 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q4, a0);
                        a1 = w2.and(0xffff0000).reinterpretAsFloats().fma(q5, a1);
                        a2 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q6, a2);
                        a3 = w3.and(0xffff0000).reinterpretAsFloats().fma(q7, a3);
                    }
                    a0.add(a1).add(a2.add(a3)).intoArray(scratch, j * F);
                }
                Lanes.sums(scratch, 0, BLOCK, scores, m * lds + j0);
            }
        }
    }

    /**
     * {@link #f32Hoisted} for head dims of a multiple of eight vectors above eight: per block and query row, slices
     * of eight vectors with that slice of the query in registers, each key's four chains (over the vectors
     * {@code 4t + c}, as in MatVec.f32) stored after a slice and taken up by the next, then added as
     * {@code (a0 + a1) + (a2 + a3)}. The chains start from stored zeros: {@code fma(k, q, +0.0)} either way.
     */
    private static void f32Sliced(MemorySegment keys, long kOff, long ldk, int d, float[] q, int rows, int from, int full,
                                  float[] scores, int lds, float[] scratch) {
        int slice = 8 * F;
        for (int j0 = from; j0 < full; j0 += BLOCK) {
            for (int m = 0; m < rows; m++) {
                Arrays.fill(scratch, CHAINS, CHAINS + 4 * BLOCK * F, 0f);
                for (int s = 0; s < d; s += slice) {
                    int xo = m * d + s;
                    boolean last = s + slice == d;
                    FloatVector q0 = FloatVector.fromArray(S, q, xo), q1 = FloatVector.fromArray(S, q, xo + F);
                    FloatVector q2 = FloatVector.fromArray(S, q, xo + 2 * F), q3 = FloatVector.fromArray(S, q, xo + 3 * F);
                    FloatVector q4 = FloatVector.fromArray(S, q, xo + 4 * F), q5 = FloatVector.fromArray(S, q, xo + 5 * F);
                    FloatVector q6 = FloatVector.fromArray(S, q, xo + 6 * F), q7 = FloatVector.fromArray(S, q, xo + 7 * F);
                    for (int j = 0; j < BLOCK; j++) {
                        long row = kOff + (j0 + j) * ldk + 4L * s;
                        int c = CHAINS + 4 * j * F;
                        FloatVector a0 = FloatVector.fromMemorySegment(S, keys, row, LE).fma(q0, FloatVector.fromArray(S, scratch, c));
                        FloatVector a1 = FloatVector.fromMemorySegment(S, keys, row + 4L * F, LE).fma(q1, FloatVector.fromArray(S, scratch, c + F));
                        FloatVector a2 = FloatVector.fromMemorySegment(S, keys, row + 8L * F, LE).fma(q2, FloatVector.fromArray(S, scratch, c + 2 * F));
                        FloatVector a3 = FloatVector.fromMemorySegment(S, keys, row + 12L * F, LE).fma(q3, FloatVector.fromArray(S, scratch, c + 3 * F));
                        a0 = FloatVector.fromMemorySegment(S, keys, row + 16L * F, LE).fma(q4, a0);
                        a1 = FloatVector.fromMemorySegment(S, keys, row + 20L * F, LE).fma(q5, a1);
                        a2 = FloatVector.fromMemorySegment(S, keys, row + 24L * F, LE).fma(q6, a2);
                        a3 = FloatVector.fromMemorySegment(S, keys, row + 28L * F, LE).fma(q7, a3);
                        if (last) {
                            a0.add(a1).add(a2.add(a3)).intoArray(scratch, j * F);
                        } else {
                            a0.intoArray(scratch, c);
                            a1.intoArray(scratch, c + F);
                            a2.intoArray(scratch, c + 2 * F);
                            a3.intoArray(scratch, c + 3 * F);
                        }
                    }
                }
                Lanes.sums(scratch, 0, BLOCK, scores, m * lds + j0);
            }
        }
    }

    /**
     * {@link #f32Sliced} for bf16 keys of a multiple of four {@link MatVec#BF16_BLOCK}s above four, in MatVec.bf16's order.
     * A copy, not one loop with a per-type key load ({@code ValueAccumulation}'s way): that version's key vectors were
     * boxed, five times slower for both types.
     */
    private static void bf16Sliced(MemorySegment keys, long kOff, long ldk, int d, float[] qi, int rows, int from, int full,
                                   float[] scores, int lds, float[] scratch) {
        int b = MatVec.BF16_BLOCK;
        int slice = 4 * b;
        for (int j0 = from; j0 < full; j0 += BLOCK) {
            for (int m = 0; m < rows; m++) {
                Arrays.fill(scratch, CHAINS, CHAINS + 4 * BLOCK * F, 0f);
                for (int s = 0; s < d; s += slice) {
                    int xo = m * d + s;
                    boolean last = s + slice == d;
                    FloatVector q0 = FloatVector.fromArray(S, qi, xo), q1 = FloatVector.fromArray(S, qi, xo + F);
                    FloatVector q2 = FloatVector.fromArray(S, qi, xo + b), q3 = FloatVector.fromArray(S, qi, xo + b + F);
                    FloatVector q4 = FloatVector.fromArray(S, qi, xo + 2 * b), q5 = FloatVector.fromArray(S, qi, xo + 2 * b + F);
                    FloatVector q6 = FloatVector.fromArray(S, qi, xo + 3 * b), q7 = FloatVector.fromArray(S, qi, xo + 3 * b + F);
                    for (int j = 0; j < BLOCK; j++) {
                        long row = kOff + (j0 + j) * ldk + 2L * s;
                        int c = CHAINS + 4 * j * F;
                        IntVector w0 = ShortVector.fromMemorySegment(SS, keys, row, LE).reinterpretAsInts();
                        IntVector w1 = ShortVector.fromMemorySegment(SS, keys, row + 2L * b, LE).reinterpretAsInts();
                        FloatVector a0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q0, FloatVector.fromArray(S, scratch, c));
                        FloatVector a1 = w0.and(0xffff0000).reinterpretAsFloats().fma(q1, FloatVector.fromArray(S, scratch, c + F));
                        FloatVector a2 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q2, FloatVector.fromArray(S, scratch, c + 2 * F));
                        FloatVector a3 = w1.and(0xffff0000).reinterpretAsFloats().fma(q3, FloatVector.fromArray(S, scratch, c + 3 * F));
                        IntVector w2 = ShortVector.fromMemorySegment(SS, keys, row + 4L * b, LE).reinterpretAsInts();
                        IntVector w3 = ShortVector.fromMemorySegment(SS, keys, row + 6L * b, LE).reinterpretAsInts();
                        a0 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q4, a0);
                        a1 = w2.and(0xffff0000).reinterpretAsFloats().fma(q5, a1);
                        a2 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(q6, a2);
                        a3 = w3.and(0xffff0000).reinterpretAsFloats().fma(q7, a3);
                        if (last) {
                            a0.add(a1).add(a2.add(a3)).intoArray(scratch, j * F);
                        } else {
                            a0.intoArray(scratch, c);
                            a1.intoArray(scratch, c + F);
                            a2.intoArray(scratch, c + 2 * F);
                            a3.intoArray(scratch, c + 3 * F);
                        }
                    }
                }
                Lanes.sums(scratch, 0, BLOCK, scores, m * lds + j0);
            }
        }
    }
}
