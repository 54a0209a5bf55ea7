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
    private static final VectorShuffle<Float> R8 = N >= 16 ? VectorShuffle.iota(F, 8, 1, true) : null;
    private static final VectorShuffle<Float> R4 = N >= 8 ? VectorShuffle.iota(F, 4, 1, true) : null;
    private static final VectorShuffle<Float> R2 = N >= 4 ? VectorShuffle.iota(F, 2, 1, true) : null;
    private static final VectorShuffle<Float> R1 = N >= 2 ? VectorShuffle.iota(F, 1, 1, true) : null;

    private Lanes() {
    }

    /** Σ of {@code v}'s lanes, in a fixed order. */
    public static float sum(FloatVector v) {
        if (v.species() != F || N > 16) return inLaneOrder(v);
        if (N >= 16) v = v.add(v.rearrange(R8));
        if (N >= 8) v = v.add(v.rearrange(R4));
        if (N >= 4) v = v.add(v.rearrange(R2));
        if (N >= 2) v = v.add(v.rearrange(R1));
        return v.lane(0);
    }

    /** Lane 0 + lane 1 + ...: for species other than the preferred one (rare, off the hot paths). */
    private static float inLaneOrder(FloatVector v) {
        float s = 0;
        for (int i = 0; i < v.length(); i++) s += v.lane(i);
        return s;
    }
}
