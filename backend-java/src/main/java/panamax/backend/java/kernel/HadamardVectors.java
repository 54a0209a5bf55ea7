package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The normalized fast Walsh–Hadamard transform of one row in place, O(n log n): the butterflies of
 * strides below the vector length run inside registers (a lane swap and one fused multiply-add per
 * stride), the wider ones between vectors. {@link #scalar} is the oracle twin. Stateless; tables
 * immutable.
 */
public final class HadamardVectors {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int L = F.length();
    private static final int STAGES = Integer.numberOfTrailingZeros(L);
    /** Per in-register stride h = 2^s: the lane swap i ↔ i^h and the sign +1 (bit h clear) / −1 (set). */
    private static final VectorShuffle<Float>[] SWAP = newShuffles();
    private static final FloatVector[] SIGN = new FloatVector[STAGES];

    static {
        for (int s = 0; s < STAGES; s++) {
            int h = 1 << s;
            int[] swap = new int[L];
            float[] sign = new float[L];
            for (int i = 0; i < L; i++) {
                swap[i] = i ^ h;
                sign[i] = (i & h) == 0 ? 1f : -1f;
            }
            SWAP[s] = VectorShuffle.fromArray(F, swap, 0);
            SIGN[s] = FloatVector.fromArray(F, sign, 0);
        }
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Float>[] newShuffles() {
        return new VectorShuffle[STAGES];
    }

    private HadamardVectors() {
    }

    /**
     * {@code row[0..n) = post ⊙ H·(pre ⊙ row)} with H normalized by 1/√n; {@code pre} and {@code post}
     * (n multipliers each) may be null for none. n is a power of two.
     */
    public static void transform(float[] row, int n, float[] pre, float[] post) {
        if (n < L || L < 2 || Integer.bitCount(n) != 1) {
            scalar(row, n, pre, post);
            return;
        }
        float norm = (float) (1 / Math.sqrt(n));
        for (int i = 0; i < n; i += L) {
            FloatVector v = FloatVector.fromArray(F, row, i);
            v = pre == null ? v.mul(norm) : v.mul(FloatVector.fromArray(F, pre, i)).mul(norm);
            for (int s = 0; s < STAGES; s++) v = v.fma(SIGN[s], v.rearrange(SWAP[s]));
            v.intoArray(row, i);
        }
        for (int h = L; h < n; h *= 2) {
            for (int base = 0; base < n; base += 2 * h) {
                for (int i = base; i < base + h; i += L) {
                    FloatVector a = FloatVector.fromArray(F, row, i);
                    FloatVector b = FloatVector.fromArray(F, row, i + h);
                    a.add(b).intoArray(row, i);
                    a.sub(b).intoArray(row, i + h);
                }
            }
        }
        if (post != null) {
            for (int i = 0; i < n; i += L) FloatVector.fromArray(F, row, i).mul(FloatVector.fromArray(F, post, i)).intoArray(row, i);
        }
    }

    /** The scalar twin of {@link #transform}. */
    public static void scalar(float[] row, int n, float[] pre, float[] post) {
        float norm = (float) (1 / Math.sqrt(n));
        for (int i = 0; i < n; i++) row[i] = (pre == null ? row[i] : row[i] * pre[i]) * norm;
        for (int h = 1; h < n; h *= 2) {
            for (int base = 0; base < n; base += 2 * h) {
                for (int i = base; i < base + h; i++) {
                    float a = row[i];
                    float b = row[i + h];
                    row[i] = a + b;
                    row[i + h] = a - b;
                }
            }
        }
        if (post != null) for (int i = 0; i < n; i++) row[i] *= post[i];
    }
}
