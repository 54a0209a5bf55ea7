package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
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
    /** The species the fold below sums whole (up to 16 lanes); null when the preferred one is wider. */
    private static final VectorSpecies<Float> FOLDED = N <= 16 ? F : null;
    private static final VectorShuffle<Float> R8 = N >= 16 ? VectorShuffle.iota(F, 8, 1, true) : null;
    private static final VectorShuffle<Float> R4 = N >= 8 ? VectorShuffle.iota(F, 4, 1, true) : null;
    private static final VectorShuffle<Float> R2 = N >= 4 ? VectorShuffle.iota(F, 2, 1, true) : null;
    private static final VectorShuffle<Float> R1 = N >= 2 ? VectorShuffle.iota(F, 1, 1, true) : null;

    private Lanes() {
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

    /**
     * {@link #sum(FloatVector)} of the preferred-species vector stored at {@code a[off..]}: for kernels
     * whose accumulators leave through an array because C2 will not inline more into them.
     */
    public static float sum(float[] a, int off) {
        return sum(FloatVector.fromArray(F, a, off));
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
