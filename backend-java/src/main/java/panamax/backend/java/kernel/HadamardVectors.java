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
        if (n >= 8 * L) {
            // eight vectors at a time stay in registers through the strides below 8·L
            for (int i = 0; i < n; i += 8 * L) block8(row, i, pre, n == 8 * L ? post : null, norm);
            if (n == 8 * L) return; // the block was the whole row, post applied at its stores
        } else if (n == 4 * L) {
            block4(row, pre, post, norm); // the whole row in four registers, post applied at its stores
            return;
        } else {
            for (int i = 0; i < n; i += L) inLanes(row, i, pre, norm);
        }
        for (int h = n >= 8 * L ? 8 * L : L; h < n; h *= 2) {
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

    /** The in-register strides of the vector at {@code row[i]}, after multiplying by {@code pre} (or not) and {@code norm}. */
    private static void inLanes(float[] row, int i, float[] pre, float norm) {
        FloatVector v = FloatVector.fromArray(F, row, i);
        v = pre == null ? v.mul(norm) : v.mul(FloatVector.fromArray(F, pre, i)).mul(norm);
        for (int s = 0; s < STAGES; s++) v = v.fma(SIGN[s], v.rearrange(SWAP[s]));
        v.intoArray(row, i);
    }

    /**
     * A row of 4·L in registers: {@link #inLanes}' arithmetic on each vector (pre, then norm, then the
     * in-register strides), the strides L and 2·L between them, and {@code post} (or null) at the
     * stores — the same operations in the same order as the generic path, so the same bits.
     */
    private static void block4(float[] row, float[] pre, float[] post, float norm) {
        FloatVector v0 = FloatVector.fromArray(F, row, 0);
        FloatVector v1 = FloatVector.fromArray(F, row, L);
        FloatVector v2 = FloatVector.fromArray(F, row, 2 * L);
        FloatVector v3 = FloatVector.fromArray(F, row, 3 * L);
        if (pre != null) {
            v0 = v0.mul(FloatVector.fromArray(F, pre, 0));
            v1 = v1.mul(FloatVector.fromArray(F, pre, L));
            v2 = v2.mul(FloatVector.fromArray(F, pre, 2 * L));
            v3 = v3.mul(FloatVector.fromArray(F, pre, 3 * L));
        }
        v0 = v0.mul(norm);
        v1 = v1.mul(norm);
        v2 = v2.mul(norm);
        v3 = v3.mul(norm);
        for (int s = 0; s < STAGES; s++) {
            FloatVector sign = SIGN[s];
            VectorShuffle<Float> swap = SWAP[s];
            v0 = v0.fma(sign, v0.rearrange(swap));
            v1 = v1.fma(sign, v1.rearrange(swap));
            v2 = v2.fma(sign, v2.rearrange(swap));
            v3 = v3.fma(sign, v3.rearrange(swap));
        }
        FloatVector t;
        t = v0; v0 = t.add(v1); v1 = t.sub(v1); // stride L
        t = v2; v2 = t.add(v3); v3 = t.sub(v3);
        t = v0; v0 = t.add(v2); v2 = t.sub(v2); // stride 2·L
        t = v1; v1 = t.add(v3); v3 = t.sub(v3);
        if (post != null) {
            v0 = v0.mul(FloatVector.fromArray(F, post, 0));
            v1 = v1.mul(FloatVector.fromArray(F, post, L));
            v2 = v2.mul(FloatVector.fromArray(F, post, 2 * L));
            v3 = v3.mul(FloatVector.fromArray(F, post, 3 * L));
        }
        v0.intoArray(row, 0);
        v1.intoArray(row, L);
        v2.intoArray(row, 2 * L);
        v3.intoArray(row, 3 * L);
    }

    /**
     * All strides up to 4·L of the eight vectors at {@code row[i]}, held in registers; {@code post}
     * (or null) multiplies the stores. Written out by hand: vectors passed to or returned from a
     * call that C2 does not inline are boxed.
     */
    private static void block8(float[] row, int i, float[] pre, float[] post, float norm) {
        FloatVector v0 = FloatVector.fromArray(F, row, i).mul(norm);
        FloatVector v1 = FloatVector.fromArray(F, row, i + L).mul(norm);
        FloatVector v2 = FloatVector.fromArray(F, row, i + 2 * L).mul(norm);
        FloatVector v3 = FloatVector.fromArray(F, row, i + 3 * L).mul(norm);
        FloatVector v4 = FloatVector.fromArray(F, row, i + 4 * L).mul(norm);
        FloatVector v5 = FloatVector.fromArray(F, row, i + 5 * L).mul(norm);
        FloatVector v6 = FloatVector.fromArray(F, row, i + 6 * L).mul(norm);
        FloatVector v7 = FloatVector.fromArray(F, row, i + 7 * L).mul(norm);
        if (pre != null) {
            v0 = v0.mul(FloatVector.fromArray(F, pre, i));
            v1 = v1.mul(FloatVector.fromArray(F, pre, i + L));
            v2 = v2.mul(FloatVector.fromArray(F, pre, i + 2 * L));
            v3 = v3.mul(FloatVector.fromArray(F, pre, i + 3 * L));
            v4 = v4.mul(FloatVector.fromArray(F, pre, i + 4 * L));
            v5 = v5.mul(FloatVector.fromArray(F, pre, i + 5 * L));
            v6 = v6.mul(FloatVector.fromArray(F, pre, i + 6 * L));
            v7 = v7.mul(FloatVector.fromArray(F, pre, i + 7 * L));
        }
        for (int s = 0; s < STAGES; s++) {
            FloatVector sign = SIGN[s];
            VectorShuffle<Float> swap = SWAP[s];
            v0 = v0.fma(sign, v0.rearrange(swap));
            v1 = v1.fma(sign, v1.rearrange(swap));
            v2 = v2.fma(sign, v2.rearrange(swap));
            v3 = v3.fma(sign, v3.rearrange(swap));
            v4 = v4.fma(sign, v4.rearrange(swap));
            v5 = v5.fma(sign, v5.rearrange(swap));
            v6 = v6.fma(sign, v6.rearrange(swap));
            v7 = v7.fma(sign, v7.rearrange(swap));
        }
        FloatVector t;
        // stride L
        t = v0; v0 = t.add(v1); v1 = t.sub(v1);
        t = v2; v2 = t.add(v3); v3 = t.sub(v3);
        t = v4; v4 = t.add(v5); v5 = t.sub(v5);
        t = v6; v6 = t.add(v7); v7 = t.sub(v7);
        // stride 2·L
        t = v0; v0 = t.add(v2); v2 = t.sub(v2);
        t = v1; v1 = t.add(v3); v3 = t.sub(v3);
        t = v4; v4 = t.add(v6); v6 = t.sub(v6);
        t = v5; v5 = t.add(v7); v7 = t.sub(v7);
        // stride 4·L
        t = v0; v0 = t.add(v4); v4 = t.sub(v4);
        t = v1; v1 = t.add(v5); v5 = t.sub(v5);
        t = v2; v2 = t.add(v6); v6 = t.sub(v6);
        t = v3; v3 = t.add(v7); v7 = t.sub(v7);
        if (post != null) {
            v0 = v0.mul(FloatVector.fromArray(F, post, i));
            v1 = v1.mul(FloatVector.fromArray(F, post, i + L));
            v2 = v2.mul(FloatVector.fromArray(F, post, i + 2 * L));
            v3 = v3.mul(FloatVector.fromArray(F, post, i + 3 * L));
            v4 = v4.mul(FloatVector.fromArray(F, post, i + 4 * L));
            v5 = v5.mul(FloatVector.fromArray(F, post, i + 5 * L));
            v6 = v6.mul(FloatVector.fromArray(F, post, i + 6 * L));
            v7 = v7.mul(FloatVector.fromArray(F, post, i + 7 * L));
        }
        v0.intoArray(row, i);
        v1.intoArray(row, i + L);
        v2.intoArray(row, i + 2 * L);
        v3.intoArray(row, i + 3 * L);
        v4.intoArray(row, i + 4 * L);
        v5.intoArray(row, i + 5 * L);
        v6.intoArray(row, i + 6 * L);
        v7.intoArray(row, i + 7 * L);
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
