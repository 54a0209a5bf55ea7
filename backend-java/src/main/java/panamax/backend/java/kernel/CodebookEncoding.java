package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector kernels that encode one row for a codebook matrix (see {@link CodebookVectors}): the
 * row's f32 norm, each coordinate's code against sorted decision boundaries, and packing the codes
 * LSB first into words. Scratch arrays are the caller's. Stateless; tables immutable.
 */
public final class CodebookEncoding {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final int L = F.length();
    /** Per width dividing 32: lane i shifted by its place in its word, and the lanes that start a word. */
    private static final IntVector[] PACK_SHIFT = new IntVector[33];
    @SuppressWarnings("unchecked")
    private static final VectorMask<Integer>[] PACK_HEADS = new VectorMask[33];
    /** Lane i ← lane (i + 2^k) mod L. */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Integer>[] ROTATE = new VectorShuffle[Integer.numberOfTrailingZeros(L) + 1];

    static {
        for (int bits : new int[] {1, 2, 4, 8, 16, 32}) {
            int per = 32 / bits;
            int[] shift = new int[L];
            boolean[] heads = new boolean[L];
            for (int i = 0; i < L; i++) {
                shift[i] = (i % per) * bits;
                heads[i] = i % per == 0;
            }
            PACK_SHIFT[bits] = IntVector.fromArray(I, shift, 0);
            PACK_HEADS[bits] = VectorMask.fromArray(I, heads, 0);
        }
        for (int k = 0; k < ROTATE.length; k++) {
            int[] idx = new int[L];
            for (int i = 0; i < L; i++) idx[i] = (i + (1 << k)) % L;
            ROTATE[k] = VectorShuffle.fromArray(I, idx, 0);
        }
    }

    private CodebookEncoding() {
    }

    /**
     * The codes of {@code row[0..n) / d} against ascending {@code boundaries}: the number of
     * boundaries strictly below each quotient, compared as {@code row[j] > b·d} (d &gt; 0). Counts compares for up to 15 boundaries, searches
     * binarily beyond.
     */
    public static void codes(float[] row, int n, float d, float[] boundaries, int[] dst) {
        codes(row, n, d, boundaries, null, dst);
    }

    /**
     * The boundaries as a register table for {@link #codes(float[], int, float, float[], int[], int[])}:
     * their float bits, or null where 2^b − 1 boundaries do not fit the lanes.
     */
    public static int[] searchTable(float[] boundaries) {
        if (boundaries.length >= L || Integer.bitCount(boundaries.length + 1) != 1 || I.length() != L) return null;
        // lane i holds the boundary below code i (lane 0 unused): a search step looks up its candidate code directly
        int[] table = new int[L];
        for (int i = 0; i < boundaries.length; i++) table[i + 1] = Float.floatToRawIntBits(boundaries[i]);
        return table;
    }

    /**
     * {@link #codes(float[], int, float, float[], int[])} with the boundaries' {@link #searchTable}
     * (or null): with a table each vector of quotients runs a b-step binary search whose boundaries
     * are register look-ups (4 steps at 4 bits, against 15 compares); the count it finds is the same.
     */
    public static void codes(float[] row, int n, float d, float[] boundaries, int[] table, int[] dst) {
        int j = 0;
        if (table != null) {
            j = search(row, n, d, boundaries.length + 1, table, dst);
        } else if (boundaries.length <= 15) {
            int bound = F.loopBound(n);
            for (; j < bound; j += L) {
                FloatVector u = FloatVector.fromArray(F, row, j);
                FloatVector count = FloatVector.zero(F);
                for (float b : boundaries) {
                    VectorMask<Float> above = u.compare(VectorOperators.GT, b * d);
                    count = count.add(1f, above);
                }
                ((IntVector) count.convert(VectorOperators.F2I, 0)).intoArray(dst, j);
            }
        }
        for (; j < n; j++) {
            float u = row[j];
            int lo = 0;
            int hi = boundaries.length;
            while (lo < hi) { // first boundary not below u
                int mid = (lo + hi) >>> 1;
                if (u > boundaries[mid] * d) lo = mid + 1;
                else hi = mid;
            }
            dst[j] = lo;
        }
    }

    /**
     * The vector part of the table search: codes of {@code row[0..j)} for the largest whole-vector j;
     * returns j. Eight vectors at a time, then one at a time.
     */
    private static int search(float[] row, int n, float d, int levels, int[] table, int[] dst) {
        // x/d > b as x > b·d: one multiply of the table per row instead of a division per vector
        // (codes may differ only for quotients within f32 rounding of a boundary, as the op allows)
        IntVector bounds = IntVector.fromArray(I, table, 0).reinterpretAsFloats().mul(d).reinterpretAsInts();
        int j = 0;
        for (int bound8 = n - n % (8 * L); j < bound8; j += 8 * L) {
            // eight vectors at a time: each search is a chain of dependent look-ups and compares, and
            // eight chains (a 128-wide row) keep the core busy where four left it waiting
            FloatVector u0 = FloatVector.fromArray(F, row, j);
            FloatVector u1 = FloatVector.fromArray(F, row, j + L);
            FloatVector u2 = FloatVector.fromArray(F, row, j + 2 * L);
            FloatVector u3 = FloatVector.fromArray(F, row, j + 3 * L);
            FloatVector u4 = FloatVector.fromArray(F, row, j + 4 * L);
            FloatVector u5 = FloatVector.fromArray(F, row, j + 5 * L);
            FloatVector u6 = FloatVector.fromArray(F, row, j + 6 * L);
            FloatVector u7 = FloatVector.fromArray(F, row, j + 7 * L);
            IntVector i0 = IntVector.zero(I);
            IntVector i1 = i0, i2 = i0, i3 = i0, i4 = i0, i5 = i0, i6 = i0, i7 = i0;
            for (int step = levels >>> 1; step > 0; step >>>= 1) { // idx = boundaries strictly below u, found by halving
                IntVector n0 = i0.add(step), n1 = i1.add(step), n2 = i2.add(step), n3 = i3.add(step);
                IntVector n4 = i4.add(step), n5 = i5.add(step), n6 = i6.add(step), n7 = i7.add(step);
                i0 = i0.blend(n0, u0.compare(VectorOperators.GT, n0.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i1 = i1.blend(n1, u1.compare(VectorOperators.GT, n1.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i2 = i2.blend(n2, u2.compare(VectorOperators.GT, n2.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i3 = i3.blend(n3, u3.compare(VectorOperators.GT, n3.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i4 = i4.blend(n4, u4.compare(VectorOperators.GT, n4.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i5 = i5.blend(n5, u5.compare(VectorOperators.GT, n5.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i6 = i6.blend(n6, u6.compare(VectorOperators.GT, n6.selectFrom(bounds).reinterpretAsFloats()).cast(I));
                i7 = i7.blend(n7, u7.compare(VectorOperators.GT, n7.selectFrom(bounds).reinterpretAsFloats()).cast(I));
            }
            i0.intoArray(dst, j);
            i1.intoArray(dst, j + L);
            i2.intoArray(dst, j + 2 * L);
            i3.intoArray(dst, j + 3 * L);
            i4.intoArray(dst, j + 4 * L);
            i5.intoArray(dst, j + 5 * L);
            i6.intoArray(dst, j + 6 * L);
            i7.intoArray(dst, j + 7 * L);
        }
        for (int bound = F.loopBound(n); j < bound; j += L) {
            FloatVector u = FloatVector.fromArray(F, row, j);
            IntVector idx = IntVector.zero(I);
            for (int step = levels >>> 1; step > 0; step >>>= 1) {
                IntVector next = idx.add(step);
                idx = idx.blend(next, u.compare(VectorOperators.GT, next.selectFrom(bounds).reinterpretAsFloats()).cast(I));
            }
            idx.intoArray(dst, j);
        }
        return j;
    }

    /**
     * Packs {@code n} codes (a multiple of 32) of {@code bits} LSB first into {@code n·bits/32} words of
     * {@code words}. For widths that divide 32 each vector of codes is shifted into place and the codes
     * of one word are OR-ed together in log₂(32/bits) lane rotations, then the word lanes compressed
     * out; other widths use the scalar bit stream.
     */
    public static void pack(int[] codes, int n, int bits, int[] words) {
        int per = 32 / bits;
        if (32 % bits != 0 || !CodebookVectors.supported() || per > L) {
            packScalar(codes, n, bits, words);
            return;
        }
        IntVector shift = PACK_SHIFT[bits];
        VectorMask<Integer> heads = PACK_HEADS[bits];
        int out = L / per;
        VectorMask<Integer> first = I.indexInRange(0, out);
        for (int j = 0, w = 0; j < n; j += L, w += out) {
            IntVector v = IntVector.fromArray(I, codes, j).lanewise(VectorOperators.LSHL, shift);
            for (int k = 0; (1 << k) < per; k++) v = v.or(v.rearrange(ROTATE[k]));
            v.compress(heads).intoArray(words, w, first);
        }
    }

    /** The scalar twin of {@link #pack}, for any width. */
    public static void packScalar(int[] codes, int n, int bits, int[] words) {
        long acc = 0;
        int fill = 0;
        int w = 0;
        for (int i = 0; i < n; i++) {
            acc |= (long) codes[i] << fill;
            fill += bits;
            if (fill >= 32) {
                words[w++] = (int) acc;
                acc >>>= 32;
                fill -= 32;
            }
        }
    }

    /** f32 Σ row[j]² over {@code n} values. */
    public static float sumOfSquares(float[] row, int n) {
        FloatVector acc = FloatVector.zero(F);
        int j = 0;
        for (int bound = F.loopBound(n); j < bound; j += L) {
            FloatVector v = FloatVector.fromArray(F, row, j);
            acc = v.fma(v, acc);
        }
        float s = Lanes.sum(acc);
        for (; j < n; j++) s += row[j] * row[j];
        return s;
    }

}
