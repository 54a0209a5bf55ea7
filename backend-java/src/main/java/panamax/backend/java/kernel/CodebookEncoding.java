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
     * boundaries strictly below each quotient. Counts compares for up to 15 boundaries, searches
     * binarily beyond.
     */
    public static void codes(float[] row, int n, float d, float[] boundaries, int[] dst) {
        int j = 0;
        if (boundaries.length <= 15) {
            int bound = F.loopBound(n);
            for (; j < bound; j += L) {
                FloatVector u = FloatVector.fromArray(F, row, j).div(d);
                FloatVector count = FloatVector.zero(F);
                for (float b : boundaries) {
                    VectorMask<Float> above = u.compare(VectorOperators.GT, b);
                    count = count.add(1f, above);
                }
                ((IntVector) count.convert(VectorOperators.F2I, 0)).intoArray(dst, j);
            }
        }
        for (; j < n; j++) {
            float u = row[j] / d;
            int lo = 0;
            int hi = boundaries.length;
            while (lo < hi) { // first boundary not below u
                int mid = (lo + hi) >>> 1;
                if (u > boundaries[mid]) lo = mid + 1;
                else hi = mid;
            }
            dst[j] = lo;
        }
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
