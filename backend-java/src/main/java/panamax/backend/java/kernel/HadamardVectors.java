package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
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
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;

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

    /** True when {@link #rotateBf16} takes rows of {@code n}: four or eight vectors. */
    public static boolean rotatesBf16(int n) {
        return L == 16 && I.length() == L && (n == 4 * L || n == 8 * L);
    }

    /**
     * The multipliers {@link #rotateBf16} takes for a sign row: {@code signs[j]·(1/√n)} (rounded as
     * {@link #transform}'s two multiplies: ±1 is exact), in the order the bf16 kernels hold a row: per
     * chunk of 2·L values one int lane holds the bf16 pair (2i, 2i + 1), so one vector holds the chunk's
     * even values and one its odd values ({@code dst[c + i]} for value c + 2i, {@code dst[c + L + i]} for
     * c + 2i + 1).
     */
    public static void bf16Factors(float[] signs, int n, float[] dst) {
        float norm = (float) (1 / Math.sqrt(n));
        for (int c = 0; c < n; c += 2 * L) {
            for (int i = 0; i < L; i++) {
                dst[c + i] = signs[c + 2 * i] * norm;
                dst[c + L + i] = signs[c + 2 * i + 1] * norm;
            }
        }
    }

    /**
     * The forward rotation of one bf16 row straight from memory: {@code dst[0..n) = H·(signs ⊙ row)},
     * with {@code factors} from {@link #bf16Factors}; the same bits as {@link #transform}. Each int load
     * splits into the chunk's even and odd values (a shift and a mask: no widening shuffle), so the
     * stride-1 butterfly runs between vectors, strides 2 to 2·L/2 inside them (the same lane swaps as
     * {@link #transform}'s strides 1 to L/2, in the same order), and wider strides between chunks; the
     * halves are zipped back in the stores. Returns the f32 sum of the squares of the result, from the
     * registers (in its own order: not bit for bit {@link CodebookEncoding#sumOfSquares}). n as
     * {@link #rotatesBf16} allows. The two row lengths are written out by {@code tools/gen-bf16-row-kernels.py}.
     */
    public static float rotateBf16(MemorySegment src, long byteOff, int n, float[] factors, float[] dst) {
        return n == 4 * L ? rotateBf16Of4(src, byteOff, factors, dst) : rotateBf16Of8(src, byteOff, factors, dst);
    }

    // ---- generated by tools/gen-bf16-row-kernels.py: begin ----

    /** {@link #rotateBf16} of a row of 8 vectors. */
    private static float rotateBf16Of8(MemorySegment src, long byteOff, float[] factors, float[] dst) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, byteOff + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, byteOff + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w2 = IntVector.fromMemorySegment(I, src, byteOff + 128L, ByteOrder.LITTLE_ENDIAN);
        IntVector w3 = IntVector.fromMemorySegment(I, src, byteOff + 192L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x2 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y2 = w2.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x3 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y3 = w3.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector e2 = x2.mul(FloatVector.fromArray(F, factors, 64));
        FloatVector o2 = y2.mul(FloatVector.fromArray(F, factors, 80));
        FloatVector e3 = x3.mul(FloatVector.fromArray(F, factors, 96));
        FloatVector o3 = y3.mul(FloatVector.fromArray(F, factors, 112));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(o2); o2 = t.sub(o2);
        t = e3; e3 = t.add(o3); o3 = t.sub(o3);
        // strides 2 .. 16
        e0 = e0.fma(SIGN_1, e0.rearrange(SWAP_1));
        o0 = o0.fma(SIGN_1, o0.rearrange(SWAP_1));
        e1 = e1.fma(SIGN_1, e1.rearrange(SWAP_1));
        o1 = o1.fma(SIGN_1, o1.rearrange(SWAP_1));
        e2 = e2.fma(SIGN_1, e2.rearrange(SWAP_1));
        o2 = o2.fma(SIGN_1, o2.rearrange(SWAP_1));
        e3 = e3.fma(SIGN_1, e3.rearrange(SWAP_1));
        o3 = o3.fma(SIGN_1, o3.rearrange(SWAP_1));
        e0 = e0.fma(SIGN_2, e0.rearrange(SWAP_2));
        o0 = o0.fma(SIGN_2, o0.rearrange(SWAP_2));
        e1 = e1.fma(SIGN_2, e1.rearrange(SWAP_2));
        o1 = o1.fma(SIGN_2, o1.rearrange(SWAP_2));
        e2 = e2.fma(SIGN_2, e2.rearrange(SWAP_2));
        o2 = o2.fma(SIGN_2, o2.rearrange(SWAP_2));
        e3 = e3.fma(SIGN_2, e3.rearrange(SWAP_2));
        o3 = o3.fma(SIGN_2, o3.rearrange(SWAP_2));
        e0 = e0.fma(SIGN_4, e0.rearrange(SWAP_4));
        o0 = o0.fma(SIGN_4, o0.rearrange(SWAP_4));
        e1 = e1.fma(SIGN_4, e1.rearrange(SWAP_4));
        o1 = o1.fma(SIGN_4, o1.rearrange(SWAP_4));
        e2 = e2.fma(SIGN_4, e2.rearrange(SWAP_4));
        o2 = o2.fma(SIGN_4, o2.rearrange(SWAP_4));
        e3 = e3.fma(SIGN_4, e3.rearrange(SWAP_4));
        o3 = o3.fma(SIGN_4, o3.rearrange(SWAP_4));
        e0 = e0.fma(SIGN_8, e0.rearrange(SWAP_8));
        o0 = o0.fma(SIGN_8, o0.rearrange(SWAP_8));
        e1 = e1.fma(SIGN_8, e1.rearrange(SWAP_8));
        o1 = o1.fma(SIGN_8, o1.rearrange(SWAP_8));
        e2 = e2.fma(SIGN_8, e2.rearrange(SWAP_8));
        o2 = o2.fma(SIGN_8, o2.rearrange(SWAP_8));
        e3 = e3.fma(SIGN_8, e3.rearrange(SWAP_8));
        o3 = o3.fma(SIGN_8, o3.rearrange(SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(e3); e3 = t.sub(e3);
        t = o2; o2 = t.add(o3); o3 = t.sub(o3);
        t = e0; e0 = t.add(e2); e2 = t.sub(e2); // stride 64
        t = o0; o0 = t.add(o2); o2 = t.sub(o2);
        t = e1; e1 = t.add(e3); e3 = t.sub(e3);
        t = o1; o1 = t.add(o3); o3 = t.sub(o3);
        // even and odd values zipped back into order
        ZIP_LOW.selectFrom(e0.reinterpretAsInts(), o0.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 0);
        ZIP_HIGH.selectFrom(e0.reinterpretAsInts(), o0.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 16);
        ZIP_LOW.selectFrom(e1.reinterpretAsInts(), o1.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 32);
        ZIP_HIGH.selectFrom(e1.reinterpretAsInts(), o1.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 48);
        ZIP_LOW.selectFrom(e2.reinterpretAsInts(), o2.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 64);
        ZIP_HIGH.selectFrom(e2.reinterpretAsInts(), o2.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 80);
        ZIP_LOW.selectFrom(e3.reinterpretAsInts(), o3.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 96);
        ZIP_HIGH.selectFrom(e3.reinterpretAsInts(), o3.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 112);
        // the sum of squares from the registers: one chain per chunk, then one reduction
        FloatVector s0 = e0.mul(e0).add(o0.mul(o0));
        FloatVector s1 = e1.mul(e1).add(o1.mul(o1));
        FloatVector s2 = e2.mul(e2).add(o2.mul(o2));
        FloatVector s3 = e3.mul(e3).add(o3.mul(o3));
        return Lanes.sum(s0.add(s1).add(s2.add(s3)));
    }

    /** {@link #rotateBf16} of a row of 4 vectors. */
    private static float rotateBf16Of4(MemorySegment src, long byteOff, float[] factors, float[] dst) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, byteOff + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, byteOff + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        // strides 2 .. 16
        e0 = e0.fma(SIGN_1, e0.rearrange(SWAP_1));
        o0 = o0.fma(SIGN_1, o0.rearrange(SWAP_1));
        e1 = e1.fma(SIGN_1, e1.rearrange(SWAP_1));
        o1 = o1.fma(SIGN_1, o1.rearrange(SWAP_1));
        e0 = e0.fma(SIGN_2, e0.rearrange(SWAP_2));
        o0 = o0.fma(SIGN_2, o0.rearrange(SWAP_2));
        e1 = e1.fma(SIGN_2, e1.rearrange(SWAP_2));
        o1 = o1.fma(SIGN_2, o1.rearrange(SWAP_2));
        e0 = e0.fma(SIGN_4, e0.rearrange(SWAP_4));
        o0 = o0.fma(SIGN_4, o0.rearrange(SWAP_4));
        e1 = e1.fma(SIGN_4, e1.rearrange(SWAP_4));
        o1 = o1.fma(SIGN_4, o1.rearrange(SWAP_4));
        e0 = e0.fma(SIGN_8, e0.rearrange(SWAP_8));
        o0 = o0.fma(SIGN_8, o0.rearrange(SWAP_8));
        e1 = e1.fma(SIGN_8, e1.rearrange(SWAP_8));
        o1 = o1.fma(SIGN_8, o1.rearrange(SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        // even and odd values zipped back into order
        ZIP_LOW.selectFrom(e0.reinterpretAsInts(), o0.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 0);
        ZIP_HIGH.selectFrom(e0.reinterpretAsInts(), o0.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 16);
        ZIP_LOW.selectFrom(e1.reinterpretAsInts(), o1.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 32);
        ZIP_HIGH.selectFrom(e1.reinterpretAsInts(), o1.reinterpretAsInts()).reinterpretAsFloats().intoArray(dst, 48);
        // the sum of squares from the registers: one chain per chunk, then one reduction
        FloatVector s0 = e0.mul(e0).add(o0.mul(o0));
        FloatVector s1 = e1.mul(e1).add(o1.mul(o1));
        return Lanes.sum(s0.add(s1));
    }

    // ---- generated by tools/gen-bf16-row-kernels.py: end ----

    /**
     * The in-register stages' tables as constants, for {@link #rotateBf16}, whose stages are written
     * out: looped over the table arrays, or in a helper method, some of its vector operations were left
     * unintrinsified by C2 (an argument it could not unbox, "unbox failed v2=CastPP"; boxed calls, four
     * times slower).
     */
    static final FloatVector SIGN_1 = SIGN[0];
    static final FloatVector SIGN_2 = SIGN[Math.min(1, STAGES - 1)];
    static final FloatVector SIGN_4 = SIGN[Math.min(2, STAGES - 1)];
    static final FloatVector SIGN_8 = SIGN[Math.min(3, STAGES - 1)];
    static final VectorShuffle<Float> SWAP_1 = SWAP[0];
    static final VectorShuffle<Float> SWAP_2 = SWAP[Math.min(1, STAGES - 1)];
    static final VectorShuffle<Float> SWAP_4 = SWAP[Math.min(2, STAGES - 1)];
    static final VectorShuffle<Float> SWAP_8 = SWAP[Math.min(3, STAGES - 1)];

    /**
     * Two-vector selects: lane i ← lane i/2 of the first vector (i even) or of the second (odd), from lane 0
     * (LOW) or L/2 (HIGH): even and odd values zipped back into order (here and in {@link CodebookVectors#lookupPacked4}).
     */
    static final IntVector ZIP_LOW = zip(0);
    static final IntVector ZIP_HIGH = zip(L / 2);

    private static IntVector zip(int from) {
        int[] idx = new int[L];
        for (int i = 0; i < L; i++) idx[i] = from + i / 2 + (i % 2 == 0 ? 0 : L);
        return IntVector.fromArray(I, idx, 0);
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
