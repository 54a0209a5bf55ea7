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
     * neither overflows; z comes from {@link #expVectors} over a small scratch. A last partial vector
     * goes through the same vector code (padded), so each value's result depends on the value alone,
     * not on n or its index. {@link #sigmoidScalar} is the oracle (within a few ulp).
     */
    public static void sigmoidInPlace(float[] v, int n, boolean gate) {
        int l = S.length();
        int bound = S.loopBound(n);
        float[] z = new float[Math.max(Math.min(bound, SIGMOID_CHUNK), l)];
        for (int c = 0; c < bound; c += SIGMOID_CHUNK) sigmoidChunk(v, c, Math.min(SIGMOID_CHUNK, bound - c), gate, z);
        if (bound < n) {
            // the tail through the same vector code, padded: a value's result does not depend on where it lies
            float[] last = new float[l];
            System.arraycopy(v, bound, last, 0, n - bound);
            sigmoidChunk(last, 0, l, gate, z);
            System.arraycopy(last, 0, v, bound, n - bound);
        }
    }

    /** {@link #sigmoidInPlace} over the whole vectors {@code v[c, c + len)}, exponentials through {@code z}. */
    private static void sigmoidChunk(float[] v, int c, int len, boolean gate, float[] z) {
        int l = S.length();
        for (int i = 0; i < len; i += l) FloatVector.fromArray(S, v, c + i).abs().neg().intoArray(z, i);
        expVectors(z, 0, len, 0f, null);
        for (int i = 0; i < len; i += l) {
            FloatVector x = FloatVector.fromArray(S, v, c + i);
            FloatVector e = FloatVector.fromArray(S, z, i);
            FloatVector sig = FloatVector.broadcast(S, 1f).blend(e, x.compare(VectorOperators.LT, 0f)).div(e.add(1f));
            (gate ? x.mul(sig) : sig).intoArray(v, c + i);
        }
    }

    /** Values whose exponentials {@link #sigmoidInPlace} takes at a time (1 KB of scratch). */
    private static final int SIGMOID_CHUNK = 256;

    /** σ(x) in double, rounded to float: the oracle of {@link #sigmoidInPlace}. */
    public static float sigmoidScalar(float x) {
        double z = Math.exp(-Math.abs((double) x));
        return (float) ((x >= 0 ? 1 : z) / (1 + z));
    }

    /**
     * {@code v[i] = exp(v[i] − max)} for i in [from, to), returning the sum. Every value goes through
     * the vector code, the last partial vector padded with −∞ (whose exponentials are exact zeros), and
     * the sum's lanes are counted from {@code from}: a value's exponential does not depend on where it
     * lies, and the sum of a run is the same wherever the run starts.
     */
    public static float expShifted(float[] v, int from, int to, float max) {
        int bound = from + S.loopBound(to - from);
        if (bound == to) return expVectors(v, from, bound, max, null);
        float[] last = new float[S.length()];
        java.util.Arrays.fill(last, Float.NEGATIVE_INFINITY);
        System.arraycopy(v, bound, last, 0, to - bound);
        float total = expVectors(v, from, bound, max, last);
        System.arraycopy(last, 0, v, bound, to - bound);
        return total;
    }

    /**
     * {@code v[i] = e^(v[i] − shift)} over whole vectors {@code [from, bound)}, then over the one vector
     * {@code last} when it is not null, returning the sum of all of them (one accumulator, in that order):
     * Cephes' range reduction and polynomial, exactly 0 below −87.3. The one copy of the exponential,
     * and a leaf that takes arrays: a vector-valued {@code exp(FloatVector)} called from loops that C2
     * inlines into large kernels (attention's per-head work) was left uninlined there, and a vector
     * passed to a call that is not inlined is boxed — 11 % of attention's time.
     */
    private static float expVectors(float[] v, int from, int bound, float shift, float[] last) {
        FloatVector sum = FloatVector.zero(S);
        for (int i = from; i < bound; i += S.length()) {
            expInPlace(v, i, shift);
            sum = sum.add(FloatVector.fromArray(S, v, i));
        }
        if (last != null) {
            expInPlace(last, 0, shift);
            sum = sum.add(FloatVector.fromArray(S, last, 0));
        }
        return Lanes.sum(sum);
    }

    /** {@code a[at + l] = e^(a[at + l] − shift)} for one vector (arrays in and out: no vector crosses the call). */
    private static void expInPlace(float[] a, int at, float shift) {
        FloatVector x = FloatVector.fromArray(S, a, at).sub(shift);
        FloatVector c = x.max(LOW).min(HIGH);
        // n = round(c·log2 e) by the 1.5·2^23 trick (exact for |n| < 2^22); r = c − n·ln 2 in two exact steps
        FloatVector n = c.mul(LOG2E).add(ROUNDER).sub(ROUNDER);
        FloatVector r = c.sub(n.mul(LN2_HI)).sub(n.mul(LN2_LO));
        FloatVector p = FloatVector.broadcast(S, P0).fma(r, FloatVector.broadcast(S, P1)).fma(r, FloatVector.broadcast(S, P2))
                .fma(r, FloatVector.broadcast(S, P3)).fma(r, FloatVector.broadcast(S, P4)).fma(r, FloatVector.broadcast(S, P5));
        p = p.fma(r.mul(r), r).add(1f);
        IntVector pow = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23);
        p.mul(pow.reinterpretAsFloats()).blend(0f, x.compare(VectorOperators.LT, LOW)).intoArray(a, at);
    }

    /**
     * {@code v[i] *= scale} for i in [from, to), returning the largest product ({@link Math#max}'s rule, so
     * NaN wins and the order does not matter): attention's scaled scores and their maximum in one pass.
     * Each product is the scalar one; the maximum is taken a vector at a time. −∞ when the range is empty
     * ({@code to <= from}).
     */
    public static float scaleAndMax(float[] v, int from, int to, float scale) {
        if (to <= from) return Float.NEGATIVE_INFINITY;
        int bound = from + S.loopBound(to - from);
        FloatVector m = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        for (int i = from; i < bound; i += S.length()) {
            FloatVector x = FloatVector.fromArray(S, v, i).mul(scale);
            x.intoArray(v, i);
            m = m.max(x);
        }
        float max = m.reduceLanes(VectorOperators.MAX);
        for (int i = bound; i < to; i++) {
            v[i] *= scale;
            max = Math.max(max, v[i]);
        }
        return max;
    }

    /** {@code v[i] *= factor} for i in [from, to), a vector at a time (each product the scalar one). */
    public static void scale(float[] v, int from, int to, float factor) {
        if (to <= from) return;
        int bound = from + S.loopBound(to - from);
        for (int i = from; i < bound; i += S.length()) FloatVector.fromArray(S, v, i).mul(factor).intoArray(v, i);
        for (int i = bound; i < to; i++) v[i] *= factor;
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
