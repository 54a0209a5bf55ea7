package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
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
    /** 1.5·2²³, and its bits: an integer q below 2²² in magnitude added to it has the bits BIASED_ZERO + q. */
    private static final float RINT = 12582912f;
    private static final int BIASED_ZERO = 0x4B400000;
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
     * their float bits, or null where 2^b − 1 boundaries do not fit the lanes. For 7 and 15
     * boundaries on 16 lanes the table also carries a grid of {@value #CELLS} cells (see {@link #cellGrid}),
     * which {@link #packedCodes} searches instead.
     */
    public static int[] searchTable(float[] boundaries) {
        if (boundaries.length >= L || Integer.bitCount(boundaries.length + 1) != 1 || I.length() != L) return null;
        // lane i holds the boundary below code i (lane 0 unused): a search step looks up its candidate code directly
        int[] table = new int[L];
        for (int i = 0; i < boundaries.length; i++) table[i + 1] = Float.floatToRawIntBits(boundaries[i]);
        if (L != 16 || boundaries.length < 7) return table;
        // keyed by value: a FloatBuffer's equals and hashCode are its elements'
        int[] cells = GRIDS.computeIfAbsent(FloatBuffer.wrap(boundaries.clone()), k -> cellGrid(boundaries));
        if (cells.length == 0) return table;
        int[] both = Arrays.copyOf(table, L + cells.length);
        System.arraycopy(cells, 0, both, L, cells.length);
        return both;
    }

    /** Cells of the grid: two 16-lane tables, one two-vector select each. */
    static final int CELLS = 32;
    /** A grid is kept only if every boundary lies at least this far (in cell widths) from every cell edge. */
    private static final double EDGE_MARGIN = 0.01;
    /** Grids by boundaries (a codec has a few per head dimension and width); an empty array where none fits. */
    private static final Map<FloatBuffer, int[]> GRIDS = new ConcurrentHashMap<>();

    /**
     * A grid of {@value #CELLS} equal cells over sorted finite boundaries: the cell of x is rint(x/w +
     * k0), clamped to 0 .. 31; each cell holds at most one boundary, at least {@link #EDGE_MARGIN} cell
     * widths from its edges. The code of x is then the count of boundaries in the cells below its
     * own, plus one if x is above its own cell's boundary: one fused multiply-add, a clamp and two
     * look-ups, where a binary search takes log₂(levels) dependent look-ups and compares. Rounding can
     * put x in a neighbouring cell only within ~10⁻⁵ cell widths of an edge, where no boundary is, so
     * the count is exactly the search's. Layout: the 32 cells' counts below, their boundaries' bits
     * (+∞ where none), the bits of 1/w, and k0. Empty when no grid fits.
     */
    static int[] cellGrid(float[] b) {
        int m = b.length;
        for (float v : b) if (!Float.isFinite(v)) return new int[0];
        for (int i = 1; i < m; i++) if (!(b[i] > b[i - 1])) return new int[0];
        double span = (double) b[m - 1] - b[0];
        if (!(span > 0)) return new int[0];
        for (int stretch = 0; stretch < 400; stretch++) {
            float invW = (float) ((CELLS - 2) / span / (1 + stretch * 0.0025));
            for (int k0 = 0; k0 < CELLS; k0++) {
                float[] bound = new float[CELLS];
                Arrays.fill(bound, Float.POSITIVE_INFINITY);
                boolean fits = true;
                for (int j = 0; j < m && fits; j++) {
                    double t = b[j] * (double) invW + k0;
                    long cell = Math.round(t);
                    double fromEdge = 0.5 - Math.abs(t - cell);
                    fits = cell >= 0 && cell < CELLS && fromEdge >= EDGE_MARGIN && bound[(int) cell] == Float.POSITIVE_INFINITY;
                    if (fits) bound[(int) cell] = b[j];
                }
                if (!fits) continue;
                int[] grid = new int[2 * CELLS + 2];
                for (int c = 1; c < CELLS; c++) grid[c] = grid[c - 1] + (bound[c - 1] != Float.POSITIVE_INFINITY ? 1 : 0);
                for (int c = 0; c < CELLS; c++) grid[CELLS + c] = Float.floatToRawIntBits(bound[c]);
                grid[2 * CELLS] = Float.floatToRawIntBits(invW);
                grid[2 * CELLS + 1] = k0;
                return grid;
            }
        }
        return new int[0];
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
     * True when {@link #packedCodes} takes {@code bits}-bit codes with this {@link #searchTable}: 1 or 2
     * bits on 16 lanes, or 3 and 4 bits with a cell grid.
     */
    public static boolean packsFromMasks(int bits, int[] table) {
        return table != null && L == 16 && (bits == 1 || bits == 2 || (bits == 3 || bits == 4) && table.length > L);
    }

    /**
     * {@link #codes(float[], int, float, float[], int[], int[])} and packing in one (see
     * {@link #packsFromMasks}), the codes of {@code row[0..n)} (n a multiple of 16) LSB first from byte
     * {@code at}. 1 and 2 bits: the search's compares are masks, and a mask of sixteen lanes is sixteen
     * packed 1-bit codes (its {@code toLong}); 2-bit codes interleave the two steps' masks (high bit: above
     * the middle boundary; low bit: above the boundary the first step picked) with two bit deposits.
     * 3 and 4 bits: {@link #packedCellCodes}.
     */
    public static void packedCodes(float[] row, int n, float d, int bits, int[] table, MemorySegment packed, long at) {
        if (bits >= 3) {
            packedCellCodes(row, n, d, bits, table, packed, at);
            return;
        }
        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[bits == 1 ? 1 : 2]) * d);
        if (bits == 1) {
            for (int j = 0; j < n; j += L, at += 2) {
                long above = FloatVector.fromArray(F, row, j).compare(VectorOperators.GT, middle).toLong();
                packed.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) above);
            }
            return;
        }
        FloatVector low = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);
        FloatVector high = FloatVector.broadcast(F, Float.intBitsToFloat(table[3]) * d);
        for (int j = 0; j < n; j += L, at += 4) {
            FloatVector u = FloatVector.fromArray(F, row, j);
            VectorMask<Float> upper = u.compare(VectorOperators.GT, middle);
            VectorMask<Float> next = u.compare(VectorOperators.GT, low.blend(high, upper));
            int word = (int) (Long.expand(next.toLong(), 0x55555555L) | Long.expand(upper.toLong(), 0xAAAAAAAAL));
            packed.set(ValueLayout.JAVA_INT_UNALIGNED, at, word);
        }
    }

    /** Eight bytes: sixteen 4-bit codes, narrowed from eight long lanes. */
    private static final VectorSpecies<Byte> EIGHT_BYTES = ByteVector.SPECIES_64;
    /** Bit k of sixteen 3-bit codes LSB first: positions k, k + 3, k + 6, ... of 48 bits. */
    private static final long THIRDS = 0x249249249249L;

    /**
     * {@link #packedCodes} of 3- and 4-bit codes: each vector's codes by the cell grid (one FMA whose
     * rounding lands in the float's low bits, a clamp, two two-vector selects and a compare; a NaN gets
     * code 0, as in the search), then packed from the register: 3 bits as three bit-plane masks deposited
     * into the 48 bits of sixteen codes, 4 bits as pairs in long lanes narrowed to bytes. Rows whose norm
     * or cell scale is not finite take the search and the packer.
     */
    private static void packedCellCodes(float[] row, int n, float d, int bits, int[] table, MemorySegment packed, long at) {
        float perCell = Float.intBitsToFloat(table[L + 2 * CELLS]) / d;
        if (!Float.isFinite(d) || !Float.isFinite(perCell)) {
            int[] codes = new int[n];
            float[] boundaries = new float[(1 << bits) - 1];
            for (int i = 0; i < boundaries.length; i++) boundaries[i] = Float.intBitsToFloat(table[i + 1]);
            codes(row, n, d, boundaries, table, codes);
            AffineEncoding.pack(codes, n, bits, packed, at);
            return;
        }
        IntVector countLo = IntVector.fromArray(I, table, L);
        IntVector countHi = IntVector.fromArray(I, table, 2 * L);
        // boundaries times d, rounded as the search's look-ups are: the same compares
        IntVector boundLo = IntVector.fromArray(I, table, 3 * L).reinterpretAsFloats().mul(d).reinterpretAsInts();
        IntVector boundHi = IntVector.fromArray(I, table, 4 * L).reinterpretAsFloats().mul(d).reinterpretAsInts();
        FloatVector scale = FloatVector.broadcast(F, perCell);
        // rint(x·perCell + k0) lands in the low mantissa bits of its sum with 1.5·2²³: one rounding, no conversion
        FloatVector offset = FloatVector.broadcast(F, RINT + table[5 * L + 1]);
        for (int j = 0; j < n; j += L, at += 2 * bits) {
            FloatVector u = FloatVector.fromArray(F, row, j);
            IntVector cell = u.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + CELLS - 1);
            IntVector code = cell.selectFrom(countLo, countHi)
                    .add(1, u.compare(VectorOperators.GT, cell.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I))
                    .blend(0, u.compare(VectorOperators.NE, u).cast(I));
            if (bits == 4) {
                LongVector pairs = code.reinterpretAsLongs();
                pairs.or(pairs.lanewise(VectorOperators.LSHR, 28)).convertShape(VectorOperators.L2B, EIGHT_BYTES, 0)
                        .intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            } else {
                long word = Long.expand(code.and(1).compare(VectorOperators.NE, 0).toLong(), THIRDS)
                        | Long.expand(code.and(2).compare(VectorOperators.NE, 0).toLong(), THIRDS << 1)
                        | Long.expand(code.and(4).compare(VectorOperators.NE, 0).toLong(), THIRDS << 2);
                packed.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) word);
                packed.set(ValueLayout.JAVA_SHORT_UNALIGNED, at + 4, (short) (word >>> 32));
            }
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
