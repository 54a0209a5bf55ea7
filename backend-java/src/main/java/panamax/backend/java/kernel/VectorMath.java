package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * A vectorized {@code exp} for softmax: Cephes' single-precision range reduction and polynomial
 * (within 2 ulp of {@link Math#exp} on [-87, 88]), exact 0 below -87.3 and for −∞. It replaces
 * {@code lanewise(EXP)}, whose fallback before JIT compilation costs microseconds per vector.
 */
public final class VectorMath {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    private static final float LOW = -87.33654f;
    private static final float HIGH = 88.3762626647949f;
    private static final float ROUNDER = 12582912f;
    /** Cephes' polynomial for e^r on |r| ≤ ln2/2, highest degree first. */
    private static final float P0 = 1.9875691500e-4f, P1 = 1.3981999507e-3f, P2 = 8.3334519073e-3f;
    private static final float P3 = 4.1665795894e-2f, P4 = 1.6666665459e-1f, P5 = 5.0000001201e-1f;

    private VectorMath() {
    }

    /**
     * {@code v[i] = v[i]·σ(v[i])} (SiLU) for i in [0, n), or {@code σ(v[i])} when {@code gate} is
     * false. σ(x) = 1/(1+e^{−x}) for x ≥ 0 and e^{x}/(1+e^{x}) below, both from z = e^{−|x|} so that
     * neither overflows; z comes from {@link #expVectors} over a small scratch. The scalar tail and
     * {@link #sigmoidScalar} are the oracle.
     */
    public static void sigmoidInPlace(float[] v, int n, boolean gate) {
        int l = S.length();
        int bound = S.loopBound(n);
        float[] z = new float[Math.min(bound, SIGMOID_CHUNK)];
        for (int c = 0; c < bound; c += SIGMOID_CHUNK) {
            int len = Math.min(SIGMOID_CHUNK, bound - c);
            for (int i = 0; i < len; i += l) FloatVector.fromArray(S, v, c + i).abs().neg().intoArray(z, i);
            expVectors(z, 0, len, 0f);
            for (int i = 0; i < len; i += l) {
                FloatVector x = FloatVector.fromArray(S, v, c + i);
                FloatVector e = FloatVector.fromArray(S, z, i);
                FloatVector sig = FloatVector.broadcast(S, 1f).blend(e, x.compare(VectorOperators.LT, 0f)).div(e.add(1f));
                (gate ? x.mul(sig) : sig).intoArray(v, c + i);
            }
        }
        for (int i = bound; i < n; i++) v[i] = gate ? v[i] * sigmoidScalar(v[i]) : sigmoidScalar(v[i]);
    }

    /** Values whose exponentials {@link #sigmoidInPlace} takes at a time (1 KB of scratch). */
    private static final int SIGMOID_CHUNK = 256;

    /** σ(x) in double, rounded to float: the oracle of {@link #sigmoidInPlace}. */
    public static float sigmoidScalar(float x) {
        double z = Math.exp(-Math.abs((double) x));
        return (float) ((x >= 0 ? 1 : z) / (1 + z));
    }

    /** {@code v[i] = exp(v[i] − max)} for i in [from, to), returning the sum; the scalar tail uses {@link Math#exp}. */
    public static float expShifted(float[] v, int from, int to, float max) {
        int bound = from + S.loopBound(to - from);
        float total = expVectors(v, from, bound, max);
        for (int i = bound; i < to; i++) {
            float e = (float) Math.exp(v[i] - max);
            v[i] = e;
            total += e;
        }
        return total;
    }

    /**
     * {@code v[i] = e^(v[i] − shift)} over whole vectors {@code [from, bound)}, returning their sum:
     * Cephes' range reduction and polynomial, exactly 0 below −87.3. The one copy of the exponential,
     * and a leaf that takes arrays: a vector-valued {@code exp(FloatVector)} called from loops that C2
     * inlines into large kernels (attention's per-head work) was left uninlined there, and a vector
     * passed to a call that is not inlined is boxed — 11 % of attention's time.
     */
    private static float expVectors(float[] v, int from, int bound, float shift) {
        FloatVector sum = FloatVector.zero(S);
        for (int i = from; i < bound; i += S.length()) {
            FloatVector x = FloatVector.fromArray(S, v, i).sub(shift);
            FloatVector c = x.max(LOW).min(HIGH);
            // n = round(c·log2 e) by the 1.5·2^23 trick (exact for |n| < 2^22); r = c − n·ln 2 in two exact steps
            FloatVector n = c.mul(LOG2E).add(ROUNDER).sub(ROUNDER);
            FloatVector r = c.sub(n.mul(LN2_HI)).sub(n.mul(LN2_LO));
            FloatVector p = FloatVector.broadcast(S, P0).fma(r, FloatVector.broadcast(S, P1)).fma(r, FloatVector.broadcast(S, P2))
                    .fma(r, FloatVector.broadcast(S, P3)).fma(r, FloatVector.broadcast(S, P4)).fma(r, FloatVector.broadcast(S, P5));
            p = p.fma(r.mul(r), r).add(1f);
            IntVector pow = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23);
            FloatVector e = p.mul(pow.reinterpretAsFloats()).blend(0f, x.compare(VectorOperators.LT, LOW));
            e.intoArray(v, i);
            sum = sum.add(e);
        }
        return Lanes.sum(sum);
    }

    /** Scalar twin of {@link #expShifted}: the test oracle. */
    public static float expShiftedScalar(float[] v, int from, int to, float max) {
        float total = 0;
        for (int i = from; i < to; i++) {
            float e = (float) Math.exp(v[i] - max);
            v[i] = e;
            total += e;
        }
        return total;
    }
}
