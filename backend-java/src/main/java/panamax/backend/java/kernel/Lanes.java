package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The sum of a float vector's lanes in one fixed order. {@code reduceLanes(ADD)} may add the lanes
 * in any order, and does differently before and after the JIT compiles a kernel, so the same call
 * could round differently on the first tokens of a run than on later ones: same seed, different
 * text. This sum rotates and adds (half, quarter, ... of the vector), ending with the total in lane
 * 0: exact IEEE lane-wise adds in an order fixed by the species, interpreted or compiled.
 */
public final class Lanes {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int N = F.length();
    /** The species the fold below sums whole (up to 16 lanes); null when the preferred one is wider. The rotations
     * are package-visible for kernels that write the fold out ({@code AffineDots}). */
    private static final VectorSpecies<Float> FOLDED = N <= 16 ? F : null;
    static final VectorShuffle<Float> R8 = N >= 16 ? VectorShuffle.iota(F, 8, 1, true) : null;
    static final VectorShuffle<Float> R4 = N >= 8 ? VectorShuffle.iota(F, 4, 1, true) : null;
    static final VectorShuffle<Float> R2 = N >= 4 ? VectorShuffle.iota(F, 2, 1, true) : null;
    static final VectorShuffle<Float> R1 = N >= 2 ? VectorShuffle.iota(F, 1, 1, true) : null;

    /** Lanes whose index has bit s set (s = 8, 4, 2, 1), and the swap of those lanes with their partners. */
    private static final VectorMask<Float> M8 = N >= 16 ? VectorMask.fromLong(F, 0xff00ff00ff00ff00L) : null;
    private static final VectorMask<Float> M4 = N >= 8 ? VectorMask.fromLong(F, 0xf0f0f0f0f0f0f0f0L) : null;
    private static final VectorMask<Float> M2 = N >= 4 ? VectorMask.fromLong(F, 0xccccccccccccccccL) : null;
    private static final VectorMask<Float> M1 = N >= 2 ? VectorMask.fromLong(F, 0xaaaaaaaaaaaaaaaaL) : null;
    private static final VectorShuffle<Float> X8 = N >= 16 ? VectorShuffle.fromOp(F, i -> i ^ 8) : null;
    private static final VectorShuffle<Float> X4 = N >= 8 ? VectorShuffle.fromOp(F, i -> i ^ 4) : null;
    private static final VectorShuffle<Float> X2 = N >= 4 ? VectorShuffle.fromOp(F, i -> i ^ 2) : null;
    private static final VectorShuffle<Float> X1 = N >= 2 ? VectorShuffle.fromOp(F, i -> i ^ 1) : null;
    /** Lane ℓ of the merged sums belongs to vector bitreverse(ℓ); this puts them back in order. */
    private static final VectorShuffle<Float> BIT_REVERSED = N <= 16 ? VectorShuffle.fromOp(F, Lanes::bitReversed) : null;

    private Lanes() {
    }

    /**
     * {@code dst[dstOff + j] = sum(a[off + j·N ..])} for {@code j < count} (N the preferred lane count,
     * count a multiple of N), each bit-identical to {@link #sum(FloatVector)} at under half the
     * arithmetic (~60 vector ops for 16 sums of 16 lanes, against 16 × 9). N vectors are reduced
     * together, two into one per step: a blend keeps each vector's half and a lane swap brings in
     * the other half, so every lane adds the same pair that the single-vector fold adds.
     * Overwrites {@code a[off .. off + count·N)}. Kernels whose register blocks end in many sums
     * store their accumulators and call this, which also keeps the sums' vectors out of a kernel
     * too large for C2 to inline more into (a vector passed to a call that is not inlined is boxed).
     */
    public static void sums(float[] a, int off, int count, float[] dst, int dstOff) {
        if (N > 16 || N == 1) {
            for (int j = 0; j < count; j++) dst[dstOff + j] = inLaneOrder(FloatVector.fromArray(F, a, off + j * N));
            return;
        }
        for (int base = off; base < off + count * N; base += N * N) {
            int vectors = N;
            if (N >= 16) vectors = merge(a, base, vectors, M8, X8);
            if (N >= 8) vectors = merge(a, base, vectors, M4, X4);
            if (N >= 4) vectors = merge(a, base, vectors, M2, X2);
            merge(a, base, vectors, M1, X1);
            FloatVector.fromArray(F, a, base).rearrange(BIT_REVERSED).intoArray(dst, dstOff + (base - off) / N);
        }
    }

    /** Folds pairs of the {@code vectors} vectors at {@code a[base..]} into half as many, in place. */
    private static int merge(float[] a, int base, int vectors, VectorMask<Float> high, VectorShuffle<Float> swap) {
        for (int q = 0; q < vectors / 2; q++) {
            FloatVector x = FloatVector.fromArray(F, a, base + 2 * q * N);
            FloatVector y = FloatVector.fromArray(F, a, base + (2 * q + 1) * N);
            x.blend(y, high).add(y.blend(x, high).rearrange(swap)).intoArray(a, base + q * N);
        }
        return vectors / 2;
    }

    private static int bitReversed(int lane) {
        return Integer.reverse(lane) >>> (32 - Integer.numberOfTrailingZeros(N));
    }

    /**
     * Σ of {@code v}'s lanes, in a fixed order. Every method on this path stays under C2's
     * MaxInlineSize (35 bytecodes), so it is inlined even at call sites the profile calls cold (the
     * end of a row block): a FloatVector passed to a method that is not inlined is boxed, and a
     * 107-byte version of this sum cost 27 % of the batched matvec's time as a boxed call.
     */
    public static float sum(FloatVector v) {
        if (v.species() != FOLDED) return inLaneOrder(v);
        return fold1(fold2(fold4(fold8(v)))).lane(0);
    }

    private static FloatVector fold8(FloatVector v) {
        return N >= 16 ? v.add(v.rearrange(R8)) : v;
    }

    private static FloatVector fold4(FloatVector v) {
        return N >= 8 ? v.add(v.rearrange(R4)) : v;
    }

    private static FloatVector fold2(FloatVector v) {
        return N >= 4 ? v.add(v.rearrange(R2)) : v;
    }

    private static FloatVector fold1(FloatVector v) {
        return N >= 2 ? v.add(v.rearrange(R1)) : v;
    }

    /** Lane 0 + lane 1 + ...: for species other than the preferred one (rare, off the hot paths). */
    private static float inLaneOrder(FloatVector v) {
        float s = 0;
        for (int i = 0; i < v.length(); i++) s += v.lane(i);
        return s;
    }
}
