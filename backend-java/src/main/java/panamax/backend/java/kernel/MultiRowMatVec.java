package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Register-blocked {@code out[m, n] = Σ_k x[m, k]·W[n, k]} for a few x rows (batched decode): four
 * weight rows are streamed together and every weight vector, once loaded and widened, is FMA'd into
 * the accumulators of four x rows (a 4 × 4 block of accumulators), so a weight row is converted
 * once per four x rows instead of once per x row, and each x vector load feeds four weight rows —
 * which also keeps a long x (k = 8192, 32 KB, the down projection) from being re-read from L2 once
 * per output. x rows beyond a multiple of four take a 4 × 1 block; weight rows beyond a multiple of
 * four take {@link MatVec}. Callers own every array; the kernels keep no state and are thread-safe.
 */
public final class MultiRowMatVec {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    private static final VectorSpecies<Short> SS = ShortVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final int B = MatVec.BF16_BLOCK;

    private MultiRowMatVec() {
    }

    /**
     * bf16 W (row {@code n} at byte {@code wOff + n·ldwBytes}): for {@code n in [n0, n1)} and
     * {@code m < rows}, {@code out[outOff + m·ldo + n] = dot(W[n], x[m])}; xi holds the x rows
     * (stride k) arranged by {@link MatVec#interleaveForBf16}.
     */
    public static void bf16(MemorySegment w, long wOff, long ldwBytes, int k, float[] xi, int rows,
                            int n0, int n1, float[] out, int outOff, int ldo) {
        if (rows < 4 && k < 4096) {
            // x fits L1 and there is no row block to share a weight vector: one sequential weight
            // stream per thread (MatVec) measured faster than four interleaved ones
            MatVec.bf16(w, wOff, ldwBytes, k, xi, rows, n0, n1, out, outOff, ldo);
            return;
        }
        float[] sums = blockSums();
        int n = n0;
        for (; n + 4 <= n1; n += 4) {
            long r0 = wOff + n * ldwBytes;
            int m = 0;
            for (; m + 4 <= rows; m += 4) bf16Block4(w, r0, ldwBytes, k, xi, m, sums, out, outOff + m * ldo + n, ldo);
            for (; m < rows; m++) bf16Block1(w, r0, ldwBytes, k, xi, m, out, outOff + m * ldo + n);
        }
        if (n < n1) MatVec.bf16(w, wOff, ldwBytes, k, xi, rows, n, n1, out, outOff, ldo);
    }

    /** Scratch for a 4 × 4 block's accumulators and their sums ({@link #f32} takes it from its caller). */
    public static float[] blockSums() {
        return new float[16 * F + 16];
    }

    /** Four weight rows from {@code r0} × x rows {@code m..m+3}; results at {@code out[o + j·ldo + i]} for row m+j, weight i. */
    private static void bf16Block4(MemorySegment w, long r0, long ld, int k, float[] xi, int m, float[] sums, float[] out, int o, int ldo) {
        FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S), a02 = FloatVector.zero(S), a03 = FloatVector.zero(S);
        FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S), a12 = FloatVector.zero(S), a13 = FloatVector.zero(S);
        FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S), a22 = FloatVector.zero(S), a23 = FloatVector.zero(S);
        FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S), a32 = FloatVector.zero(S), a33 = FloatVector.zero(S);
        long r1 = r0 + ld, r2 = r1 + ld, r3 = r2 + ld;
        int x0 = m * k, x1 = x0 + k, x2 = x1 + k, x3 = x2 + k;
        int bound = k - k % B;
        for (int i = 0; i < bound; i += B) {
            IntVector v0 = ShortVector.fromMemorySegment(SS, w, r0 + 2L * i, LE).reinterpretAsInts(), v1 = ShortVector.fromMemorySegment(SS, w, r1 + 2L * i, LE).reinterpretAsInts(), v2 = ShortVector.fromMemorySegment(SS, w, r2 + 2L * i, LE).reinterpretAsInts(), v3 = ShortVector.fromMemorySegment(SS, w, r3 + 2L * i, LE).reinterpretAsInts();
            // the even halves, then the odd halves: each x vector feeds four weight rows
            FloatVector w0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(), w1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(), w2 = v2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(), w3 = v3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            FloatVector x = FloatVector.fromArray(S, xi, x0 + i);
            a00 = w0.fma(x, a00); a10 = w1.fma(x, a10); a20 = w2.fma(x, a20); a30 = w3.fma(x, a30);
            x = FloatVector.fromArray(S, xi, x1 + i);
            a01 = w0.fma(x, a01); a11 = w1.fma(x, a11); a21 = w2.fma(x, a21); a31 = w3.fma(x, a31);
            x = FloatVector.fromArray(S, xi, x2 + i);
            a02 = w0.fma(x, a02); a12 = w1.fma(x, a12); a22 = w2.fma(x, a22); a32 = w3.fma(x, a32);
            x = FloatVector.fromArray(S, xi, x3 + i);
            a03 = w0.fma(x, a03); a13 = w1.fma(x, a13); a23 = w2.fma(x, a23); a33 = w3.fma(x, a33);
            w0 = v0.and(0xffff0000).reinterpretAsFloats(); w1 = v1.and(0xffff0000).reinterpretAsFloats(); w2 = v2.and(0xffff0000).reinterpretAsFloats(); w3 = v3.and(0xffff0000).reinterpretAsFloats();
            x = FloatVector.fromArray(S, xi, x0 + i + F);
            a00 = w0.fma(x, a00); a10 = w1.fma(x, a10); a20 = w2.fma(x, a20); a30 = w3.fma(x, a30);
            x = FloatVector.fromArray(S, xi, x1 + i + F);
            a01 = w0.fma(x, a01); a11 = w1.fma(x, a11); a21 = w2.fma(x, a21); a31 = w3.fma(x, a31);
            x = FloatVector.fromArray(S, xi, x2 + i + F);
            a02 = w0.fma(x, a02); a12 = w1.fma(x, a12); a22 = w2.fma(x, a22); a32 = w3.fma(x, a32);
            x = FloatVector.fromArray(S, xi, x3 + i + F);
            a03 = w0.fma(x, a03); a13 = w1.fma(x, a13); a23 = w2.fma(x, a23); a33 = w3.fma(x, a33);
        }
        // the accumulators leave through an array: this method is too large for C2 to inline the
        // lane sums, and a vector passed to a call that is not inlined is boxed
        a00.intoArray(sums, 0 * F); a01.intoArray(sums, 1 * F); a02.intoArray(sums, 2 * F); a03.intoArray(sums, 3 * F);
        a10.intoArray(sums, 4 * F); a11.intoArray(sums, 5 * F); a12.intoArray(sums, 6 * F); a13.intoArray(sums, 7 * F);
        a20.intoArray(sums, 8 * F); a21.intoArray(sums, 9 * F); a22.intoArray(sums, 10 * F); a23.intoArray(sums, 11 * F);
        a30.intoArray(sums, 12 * F); a31.intoArray(sums, 13 * F); a32.intoArray(sums, 14 * F); a33.intoArray(sums, 15 * F);
        finishBf16(sums, w, r0, ld, k, bound, xi, x0, out, o, ldo);
    }

    /** Four weight rows from {@code r0} × x row m: two accumulators (even, odd) per weight row. */
    private static void bf16Block1(MemorySegment w, long r0, long ld, int k, float[] xi, int m, float[] out, int o) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        long r1 = r0 + ld, r2 = r1 + ld, r3 = r2 + ld;
        int x0 = m * k;
        int bound = k - k % B;
        for (int i = 0; i < bound; i += B) {
            IntVector v0 = ShortVector.fromMemorySegment(SS, w, r0 + 2L * i, LE).reinterpretAsInts(), v1 = ShortVector.fromMemorySegment(SS, w, r1 + 2L * i, LE).reinterpretAsInts(), v2 = ShortVector.fromMemorySegment(SS, w, r2 + 2L * i, LE).reinterpretAsInts(), v3 = ShortVector.fromMemorySegment(SS, w, r3 + 2L * i, LE).reinterpretAsInts();
            FloatVector x = FloatVector.fromArray(S, xi, x0 + i);
            a0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a0); a1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a1); a2 = v2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a2); a3 = v3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a3);
            x = FloatVector.fromArray(S, xi, x0 + i + F);
            b0 = v0.and(0xffff0000).reinterpretAsFloats().fma(x, b0); b1 = v1.and(0xffff0000).reinterpretAsFloats().fma(x, b1); b2 = v2.and(0xffff0000).reinterpretAsFloats().fma(x, b2); b3 = v3.and(0xffff0000).reinterpretAsFloats().fma(x, b3);
        }
        out[o + 0] = Lanes.sum(a0.add(b0)) + tail(w, r0, k, bound, xi, x0);
        out[o + 1] = Lanes.sum(a1.add(b1)) + tail(w, r1, k, bound, xi, x0);
        out[o + 2] = Lanes.sum(a2.add(b2)) + tail(w, r2, k, bound, xi, x0);
        out[o + 3] = Lanes.sum(a3.add(b3)) + tail(w, r3, k, bound, xi, x0);
    }

    /**
     * {@code out[o + j·ldo + i] = Σ lanes(sums[(4i + j)·F ..]) + the scalar tail} for weight row
     * {@code r0 + i·ld} and x row {@code x0 + j·k}: the 4 × 4 block's results, in the order and
     * rounding of a per-row {@link Lanes#sum}.
     */
    private static void finishBf16(float[] sums, MemorySegment w, long r0, long ld, int k, int bound, float[] xi, int x0,
                                   float[] out, int o, int ldo) {
        Lanes.sums(sums, 0, 16, sums, 16 * F);
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                out[o + j * ldo + i] = sums[16 * F + 4 * i + j] + tail(w, r0 + i * ld, k, bound, xi, x0 + j * k);
            }
        }
    }

    /** {@link #finishBf16} for f32 weight rows {@code q0 + i·k}. */
    private static void finishF32(float[] sums, float[] w, int q0, int k, int bound, float[] xs, int x0,
                                  float[] out, int o, int ldo) {
        Lanes.sums(sums, 0, 16, sums, 16 * F);
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                out[o + j * ldo + i] = sums[16 * F + 4 * i + j] + tail(w, q0 + i * k, k, bound, xs, x0 + j * k);
            }
        }
    }

    /** Σ over the scalar k tail {@code [bound, k)} of one bf16 row against x; small enough to inline. */
    private static float tail(MemorySegment w, long row, int k, int bound, float[] xi, int xo) {
        return bound == k ? 0 : tailLoop(w, row, k, bound, xi, xo);
    }

    private static float tailLoop(MemorySegment w, long row, int k, int bound, float[] xi, int xo) {
        float sum = 0;
        for (int i = bound; i < k; i++) sum += Floats.bf16ToFloat(w.get(I16, row + 2L * i)) * xi[xo + i];
        return sum;
    }

    /**
     * f32 weight rows held in an array ({@code nb} rows of k from {@code wOff}, e.g. a decoded block
     * of quantized rows) against x rows (stride k, same element order as the weights):
     * {@code out[outOff + m·ldo + j] = dot(w[j], x[m])} for {@code j < nb}, {@code m < rows}; {@code sums}
     * from {@link #blockSums} (called once per block of weight rows, so the caller keeps it).
     */
    public static void f32(float[] w, int wOff, int nb, int k, float[] x, int rows, float[] out, int outOff, int ldo, float[] sums) {
        int j = 0;
        for (; j + 4 <= nb; j += 4) {
            int m = 0;
            for (; m + 4 <= rows; m += 4) f32Block4(w, wOff + j * k, k, x, m, sums, out, outOff + m * ldo + j, ldo);
            for (; m < rows; m++) {
                for (int t = 0; t < 4; t++) out[outOff + m * ldo + j + t] = MatVec.dot(w, wOff + (j + t) * k, x, m * k, k);
            }
        }
        for (; j < nb; j++) {
            for (int m = 0; m < rows; m++) out[outOff + m * ldo + j] = MatVec.dot(w, wOff + j * k, x, m * k, k);
        }
    }

    private static void f32Block4(float[] w, int w0ff, int k, float[] xs, int m, float[] sums, float[] out, int o, int ldo) {
        FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S), a02 = FloatVector.zero(S), a03 = FloatVector.zero(S);
        FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S), a12 = FloatVector.zero(S), a13 = FloatVector.zero(S);
        FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S), a22 = FloatVector.zero(S), a23 = FloatVector.zero(S);
        FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S), a32 = FloatVector.zero(S), a33 = FloatVector.zero(S);
        int q0 = w0ff, q1 = q0 + k, q2 = q1 + k, q3 = q2 + k;
        int x0 = m * k, x1 = x0 + k, x2 = x1 + k, x3 = x2 + k;
        int bound = S.loopBound(k);
        for (int i = 0; i < bound; i += F) {
            FloatVector w0 = FloatVector.fromArray(S, w, q0 + i), w1 = FloatVector.fromArray(S, w, q1 + i);
            FloatVector w2 = FloatVector.fromArray(S, w, q2 + i), w3 = FloatVector.fromArray(S, w, q3 + i);
            FloatVector x = FloatVector.fromArray(S, xs, x0 + i);
            a00 = w0.fma(x, a00); a10 = w1.fma(x, a10); a20 = w2.fma(x, a20); a30 = w3.fma(x, a30);
            x = FloatVector.fromArray(S, xs, x1 + i);
            a01 = w0.fma(x, a01); a11 = w1.fma(x, a11); a21 = w2.fma(x, a21); a31 = w3.fma(x, a31);
            x = FloatVector.fromArray(S, xs, x2 + i);
            a02 = w0.fma(x, a02); a12 = w1.fma(x, a12); a22 = w2.fma(x, a22); a32 = w3.fma(x, a32);
            x = FloatVector.fromArray(S, xs, x3 + i);
            a03 = w0.fma(x, a03); a13 = w1.fma(x, a13); a23 = w2.fma(x, a23); a33 = w3.fma(x, a33);
        }
        // the accumulators leave through an array: this method is too large for C2 to inline the
        // lane sums, and a vector passed to a call that is not inlined is boxed
        a00.intoArray(sums, 0 * F); a01.intoArray(sums, 1 * F); a02.intoArray(sums, 2 * F); a03.intoArray(sums, 3 * F);
        a10.intoArray(sums, 4 * F); a11.intoArray(sums, 5 * F); a12.intoArray(sums, 6 * F); a13.intoArray(sums, 7 * F);
        a20.intoArray(sums, 8 * F); a21.intoArray(sums, 9 * F); a22.intoArray(sums, 10 * F); a23.intoArray(sums, 11 * F);
        a30.intoArray(sums, 12 * F); a31.intoArray(sums, 13 * F); a32.intoArray(sums, 14 * F); a33.intoArray(sums, 15 * F);
        finishF32(sums, w, q0, k, bound, xs, x0, out, o, ldo);
    }

    private static float tail(float[] w, int wo, int k, int bound, float[] x, int xo) {
        return bound == k ? 0 : tailLoop(w, wo, k, bound, x, xo);
    }

    private static float tailLoop(float[] w, int wo, int k, int bound, float[] x, int xo) {
        float sum = 0;
        for (int i = bound; i < k; i++) sum += w[wo + i] * x[xo + i];
        return sum;
    }

    /** Scalar twin of {@link #bf16} (x in natural order): the test oracle. */
    public static void bf16Scalar(MemorySegment w, long wOff, long ldwBytes, int k, float[] x, int rows,
                                  int n0, int n1, float[] out, int outOff, int ldo) {
        for (int n = n0; n < n1; n++) {
            for (int m = 0; m < rows; m++) {
                float sum = 0;
                for (int i = 0; i < k; i++) sum += Floats.bf16ToFloat(w.get(I16, wOff + n * ldwBytes + 2L * i)) * x[m * k + i];
                out[outOff + m * ldo + n] = sum;
            }
        }
    }
}
