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
 * Dot-product-per-output-row kernels for {@code out[m, n] = Σ_k x[m, k]·W[n, k]} with W row-major
 * [N, K] in a segment (HF Linear weights): each W row is streamed once from memory and reused from
 * L1 for the few x rows. bf16 rows are loaded as shorts and widened by shifting; x must be
 * pre-arranged with {@link #interleaveForBf16} so even/odd lanes line up.
 */
public final class MatVec {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    private static final VectorSpecies<Short> SS = ShortVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    /** Elements per bf16 block: one short vector, i.e. two float vectors. */
    public static final int BF16_BLOCK = 2 * F;

    private MatVec() {
    }

    /**
     * x rearranged so each block of {@link #BF16_BLOCK} holds its even elements then its odd ones;
     * the tail past the last full block is unchanged.
     */
    public static void interleaveForBf16(float[] x, int xOff, int k, float[] dst, int dstOff) {
        int full = k - k % BF16_BLOCK;
        for (int b = 0; b < full; b += BF16_BLOCK) {
            for (int l = 0; l < F; l++) {
                dst[dstOff + b + l] = x[xOff + b + 2 * l];
                dst[dstOff + b + F + l] = x[xOff + b + 2 * l + 1];
            }
        }
        System.arraycopy(x, xOff + full, dst, dstOff + full, k - full);
    }

    /**
     * bf16 W: for rows {@code n in [n0, n1)} and {@code m < rows}: {@code out[outOff + m·ldo + n] =
     * dot(W[n], x[m])}, x from {@link #interleaveForBf16} with row stride k.
     */
    public static void bf16(MemorySegment w, long wOff, long ldwBytes, int k, float[] xi, int rows,
                            int n0, int n1, float[] out, int outOff, int ldo) {
        bf16(w, wOff, ldwBytes, k, xi, 0, rows, n0, n1, out, outOff, ldo);
    }

    /** {@link #bf16} for the x rows {@code m in [m0, m1)} only. */
    public static void bf16(MemorySegment w, long wOff, long ldwBytes, int k, float[] xi, int m0, int m1,
                            int n0, int n1, float[] out, int outOff, int ldo) {
        int twoBlocks = 2 * BF16_BLOCK;
        int bound2 = k - k % twoBlocks;
        int bound1 = k - k % BF16_BLOCK;
        for (int n = n0; n < n1; n++) {
            long row = wOff + n * ldwBytes;
            for (int m = m0; m < m1; m++) {
                int xo = m * k;
                FloatVector acc0 = FloatVector.zero(S), acc1 = FloatVector.zero(S);
                FloatVector acc2 = FloatVector.zero(S), acc3 = FloatVector.zero(S);
                int i = 0;
                for (; i < bound2; i += twoBlocks) {
                    IntVector w0 = ShortVector.fromMemorySegment(SS, w, row + 2L * i, LE).reinterpretAsInts();
                    IntVector w1 = ShortVector.fromMemorySegment(SS, w, row + 2L * (i + BF16_BLOCK), LE).reinterpretAsInts();
                    acc0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i), acc0);
                    acc1 = w0.and(0xffff0000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i + F), acc1);
                    acc2 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats()
                            .fma(FloatVector.fromArray(S, xi, xo + i + BF16_BLOCK), acc2);
                    acc3 = w1.and(0xffff0000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i + BF16_BLOCK + F), acc3);
                }
                for (; i < bound1; i += BF16_BLOCK) {
                    IntVector w0 = ShortVector.fromMemorySegment(SS, w, row + 2L * i, LE).reinterpretAsInts();
                    acc0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i), acc0);
                    acc1 = w0.and(0xffff0000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i + F), acc1);
                }
                float sum = Lanes.sum(acc0.add(acc1).add(acc2.add(acc3)));
                for (; i < k; i++) sum += Floats.bf16ToFloat(w.get(I16, row + 2L * i)) * xi[xo + i];
                out[outOff + m * ldo + n] = sum;
            }
        }
    }

    /** f32 W: like {@link #bf16} with x in natural order. */
    public static void f32(MemorySegment w, long wOff, long ldwBytes, int k, float[] x, int rows,
                           int n0, int n1, float[] out, int outOff, int ldo) {
        int bound4 = k - k % (4 * F);
        int bound1 = S.loopBound(k);
        for (int n = n0; n < n1; n++) {
            long row = wOff + n * ldwBytes;
            for (int m = 0; m < rows; m++) {
                int xo = m * k;
                FloatVector acc0 = FloatVector.zero(S), acc1 = FloatVector.zero(S);
                FloatVector acc2 = FloatVector.zero(S), acc3 = FloatVector.zero(S);
                int i = 0;
                for (; i < bound4; i += 4 * F) {
                    acc0 = FloatVector.fromMemorySegment(S, w, row + 4L * i, LE).fma(FloatVector.fromArray(S, x, xo + i), acc0);
                    acc1 = FloatVector.fromMemorySegment(S, w, row + 4L * (i + F), LE).fma(FloatVector.fromArray(S, x, xo + i + F), acc1);
                    acc2 = FloatVector.fromMemorySegment(S, w, row + 4L * (i + 2 * F), LE)
                            .fma(FloatVector.fromArray(S, x, xo + i + 2 * F), acc2);
                    acc3 = FloatVector.fromMemorySegment(S, w, row + 4L * (i + 3 * F), LE)
                            .fma(FloatVector.fromArray(S, x, xo + i + 3 * F), acc3);
                }
                for (; i < bound1; i += F) {
                    acc0 = FloatVector.fromMemorySegment(S, w, row + 4L * i, LE).fma(FloatVector.fromArray(S, x, xo + i), acc0);
                }
                float sum = Lanes.sum(acc0.add(acc1).add(acc2.add(acc3)));
                for (; i < k; i++) sum += w.get(F32, row + 4L * i) * x[xo + i];
                out[outOff + m * ldo + n] = sum;
            }
        }
    }

    /** f16 W: scalar widening (the JIT maps {@link Float#float16ToFloat} to a single instruction). */
    public static void f16(MemorySegment w, long wOff, long ldwBytes, int k, float[] x, int rows,
                           int n0, int n1, float[] out, int outOff, int ldo) {
        float[] row = new float[k];
        for (int n = n0; n < n1; n++) {
            long base = wOff + n * ldwBytes;
            for (int i = 0; i < k; i++) row[i] = Float.float16ToFloat(w.get(I16, base + 2L * i));
            for (int m = 0; m < rows; m++) out[outOff + m * ldo + n] = dot(row, 0, x, m * k, k);
        }
    }

    /** Vector dot product of two float runs. */
    public static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        int bound = S.loopBound(n);
        FloatVector acc = FloatVector.zero(S);
        int i = 0;
        for (; i < bound; i += F) {
            acc = FloatVector.fromArray(S, a, aOff + i).fma(FloatVector.fromArray(S, b, bOff + i), acc);
        }
        float sum = Lanes.sum(acc);
        for (; i < n; i++) sum += a[aOff + i] * b[bOff + i];
        return sum;
    }

    /** Scalar twin of {@link #dot}: the test oracle. */
    public static float dotScalar(float[] a, int aOff, float[] b, int bOff, int n) {
        float sum = 0;
        for (int i = 0; i < n; i++) sum += a[aOff + i] * b[bOff + i];
        return sum;
    }

    /**
     * {@code acc[accOff + i] = fma(s, v[vOff + i], acc[accOff + i])} for {@code i < n}: one fused
     * multiply-add per element in the vector body and the scalar tail alike, so an element's result
     * does not depend on where a caller's run of columns starts or ends.
     */
    public static void axpy(float s, float[] v, int vOff, float[] acc, int accOff, int n) {
        int bound = S.loopBound(n);
        FloatVector sv = FloatVector.broadcast(S, s);
        int i = 0;
        for (; i < bound; i += F) {
            FloatVector.fromArray(S, v, vOff + i).fma(sv, FloatVector.fromArray(S, acc, accOff + i)).intoArray(acc, accOff + i);
        }
        for (; i < n; i++) acc[accOff + i] = Math.fma(s, v[vOff + i], acc[accOff + i]);
    }
}
