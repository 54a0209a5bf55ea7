package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Attention scores of up to four query rows against rows of codes of any width from 1 to 8 bits
 * (MLX's LSB-first bit stream: 3, 5 and 6-bit codes straddle words): every affine cache and every
 * codebook cache (TurboQuant's keys). Lanes are keys: the words of sixteen key rows become columns
 * ({@link KeyColumns}), then each
 * code position is extracted for sixteen keys at once from the one or two words it occupies (a shift,
 * or two shifts and an or, and a mask), made a float (affine: converted; codebook: looked up in a
 * register) and FMA'd into the four rows with the query element broadcast. The sixteen lanes are
 * sixteen scores: nothing is reduced across lanes. 1- and 2-bit codes (codebook, and affine 2-bit) go a
 * nibble at a time instead: per call a table of the 16 partial sums each nibble value gives, per query row
 * and nibble ({@link #nibbleTables}), then per nibble of sixteen keys one shift and, per row, one look-up
 * and one add: four 1-bit or two 2-bit positions for what one position cost. The tables serve every call
 * of those widths however few keys it scores (their sums round differently from per-position FMAs, and
 * a key's score must not depend on how many keys a call scores beside it).
 *
 * <p>A {@code CodeColumns} holds one thread's scratch for rows of one shape; not thread-safe.
 */
public final class CodeColumns {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Query rows per call. */
    public static final int ROWS = 4;
    /** Keys per tile: one per lane. */
    private static final int TILE = 16;

    private final int bits;
    private final int k;
    private final int words;
    private final int groupSize;
    private final int groups;
    private final int[] columns;
    private final float[] totals = new float[2 * ROWS * TILE];
    private final int[] columns2;
    private final float[] scales;
    private final float[] biases;
    private final float[] laneScales;
    private final float[] laneBiases;
    private final float[] xSums;
    /**
     * Per nibble of a row's 1- or 2-bit codes (four or two positions) and query row, the 16 sums
     * {@code Σ x[r, j]·book[code_j]} its values give, as float bits: {@code [(nibble·ROWS + r)·16 + value]}.
     */
    private final int[] nibbleTables;
    /** The codes 0..15 as float bits: affine codes are their own "book". */
    private static final int[] CODE_BITS = new int[TILE];

    static {
        for (int c = 0; c < TILE; c++) CODE_BITS[c] = Float.floatToRawIntBits(c);
    }

    /**
     * Scratch for rows of {@code k} codes of {@code bits}; {@code groupSize} for affine rows (0 for
     * codebook rows).
     */
    public CodeColumns(int bits, int k, int groupSize) {
        if (!supports(bits, k)) throw new IllegalArgumentException("CodeColumns: unsupported rows of " + k + " " + bits + "-bit codes");
        this.bits = bits;
        this.k = k;
        this.words = k * bits / 32;
        this.groupSize = groupSize == 0 ? k : groupSize;
        this.groups = k / this.groupSize;
        // whole blocks of sixteen (or eight) columns, as KeyColumns writes them; the high word of the last code is read, never used
        this.columns = new int[(words <= 8 ? 16 : (words + 16) / 16 * 16) * TILE];
        this.columns2 = new int[columns.length];
        this.scales = new float[2 * TILE * groups];
        this.biases = new float[2 * TILE * groups];
        this.laneScales = new float[2 * TILE * groups];
        this.laneBiases = new float[2 * TILE * groups];
        this.xSums = new float[ROWS * groups];
        this.nibbleTables = new int[bits <= 2 ? k * bits / 4 * ROWS * 16 : 0];
    }

    /** True for 1 to 8-bit codes in rows of whole words, on sixteen lanes. */
    public static boolean supports(int bits, int k) {
        return bits >= 1 && bits <= 8 && k > 0 && k * bits % 32 == 0 && S.length() == TILE && IS.length() == TILE;
    }

    /**
     * Affine rows ({@code code·s + b} per group): {@code c[r·ldc + t] = Σ_j x[r, j]·(s·code + b)} for
     * rows {@code r < m} of x (four rows of k, rows past m zero) and key rows {@code [n0, n1)}, row t's
     * words at byte {@code base + t·rowBytes}.
     */
    public void affineScores(MemorySegment packed, long base, long rowBytes, RowScales params, float[] x, int m, int n0, int n1,
                             float[] c, int ldc) {
        Arrays.fill(xSums, 0f);
        for (int r = 0; r < m; r++) {
            for (int j = 0; j < k; j++) xSums[r * groups + j / groupSize] += x[r * k + j];
        }
        // 2-bit codes: a nibble (two codes) is one look-up in a table of its 16 sums Σ x·code, built once per call;
        // whatever the number of keys, so a key's score does not depend on how many others a call scores
        boolean nibbles = bits == 2;
        if (nibbles) nibbleTables(x, CODE_BITS);
        long rangeEnd = Math.min(base + n1 * rowBytes, packed.byteSize());
        // two tiles per pass, each query element broadcast feeding both (the last pair may be partial)
        for (int t0 = n0; t0 < n1; t0 += 2 * TILE) {
            int first = Math.min(TILE, n1 - t0);
            int second = Math.min(TILE, n1 - t0 - first);
            transpose(packed, base + t0 * rowBytes, rowBytes, first, rangeEnd, columns);
            transpose(packed, base + (t0 + TILE) * rowBytes, rowBytes, second, rangeEnd, columns2);
            laneParameters(params, t0, first + second);
            if (nibbles) nibbleTiles();
            else if (m <= 2) affineTiles2(x);
            else affineTiles(x);
            store(c, 0, ldc, t0, first, m, null, 0);
            store(c, 0, ldc, t0 + TILE, second, m, null, ROWS * TILE);
        }
    }

    /** The group scales and biases of keys {@code [t0, t0 + count)} by group and lane ({@code [g·32 + key]}; zero past count). */
    private void laneParameters(RowScales params, int t0, int count) {
        params.loadRows(t0, count, groups, scales, biases, 0);
        if (groups == 1) { // already key-major: masked vector copies (zero past count)
            VectorMask<Float> first = S.indexInRange(0, count);
            VectorMask<Float> second = S.indexInRange(TILE, count);
            FloatVector.fromArray(S, scales, 0, first).intoArray(laneScales, 0);
            FloatVector.fromArray(S, scales, TILE, second).intoArray(laneScales, TILE);
            FloatVector.fromArray(S, biases, 0, first).intoArray(laneBiases, 0);
            FloatVector.fromArray(S, biases, TILE, second).intoArray(laneBiases, TILE);
            return;
        }
        for (int g = 0; g < groups; g++) {
            for (int l = 0; l < 2 * TILE; l++) {
                laneScales[g * 2 * TILE + l] = l < count ? scales[l * groups + g] : 0f;
                laneBiases[g * 2 * TILE + l] = l < count ? biases[l * groups + g] : 0f;
            }
        }
    }

    /**
     * Codebook rows ({@code book[code]}, times the row's scale): {@code c[r·ldc + t] =
     * rowScales[t]·Σ_j x[r, j]·book[code(t, j)]} (at {@code c[cOff + r·ldc + t]}; added to it with {@code add});
     * {@code bookBits} the codebook's float bits padded to sixteen (at most 4-bit codes).
     */
    public void codebookScores(MemorySegment packed, long base, long rowBytes, int[] bookBits, float[] rowScales, float[] x, int m,
                               int n0, int n1, float[] c, int cOff, int ldc, boolean add) {
        IntVector book = IntVector.fromArray(IS, bookBits, 0);
        // 1- and 2-bit codes: a nibble of codes is one look-up in a table of its 16 partial sums, built once per call
        // (whatever the number of keys, as in affineScores)
        boolean nibbles = bits <= 2;
        if (nibbles) {
            nibbleTables(x, bookBits);
            Arrays.fill(laneScales, 0, 2 * TILE, 1f); // one group, scale 1, bias 0: nibbleTiles' sums as they are
            Arrays.fill(laneBiases, 0, 2 * TILE, 0f);
            Arrays.fill(xSums, 0f);
        }
        long rangeEnd = Math.min(base + n1 * rowBytes, packed.byteSize());
        // two tiles per pass, each query element broadcast feeding both (the last pair may be partial)
        for (int t0 = n0; t0 < n1; t0 += 2 * TILE) {
            int first = Math.min(TILE, n1 - t0);
            int second = Math.min(TILE, n1 - t0 - first);
            transpose(packed, base + t0 * rowBytes, rowBytes, first, rangeEnd, columns);
            transpose(packed, base + (t0 + TILE) * rowBytes, rowBytes, second, rangeEnd, columns2);
            if (nibbles) nibbleTiles();
            else codebookTiles(x, book);
            if (add) { // separate loops: a vector merged from two branches is boxed
                storeAdded(c, cOff, ldc, t0, first, m, rowScales, 0);
                storeAdded(c, cOff, ldc, t0 + TILE, second, m, rowScales, ROWS * TILE);
            } else {
                store(c, cOff, ldc, t0, first, m, rowScales, 0);
                store(c, cOff, ldc, t0 + TILE, second, m, rowScales, ROWS * TILE);
            }
        }
    }

    /**
     * columns[w·16 + l] = word w of key row l: {@link KeyColumns}' register transposition where the
     * call's rows ({@code end}: the byte after its last key row) hold sixteen words (a multiple of sixteen for
     * longer rows) from the tile's last row on (rows of fewer words are over-read, and the extra columns never
     * used), else word by word (zero past the tile). Bounded by the call's rows rather than the segment, the
     * word-by-word path serves every call's last tile of such short rows, so the JIT always sees it taken.
     * Bounded by the segment, it ran only once a cache's last head had filled its plane, and that first run
     * threw the compiled {@code affineScores} away (an uncommon trap) mid-generation.
     */
    private void transpose(MemorySegment packed, long first, long rowBytes, int tile, long end, int[] columns) {
        if (tile == 0) { // the empty second tile of a last pair
            Arrays.fill(columns, 0);
            return;
        }
        int block = words <= 8 ? 8 : 16;
        long last = first + (tile - 1) * rowBytes;
        if (KeyColumns.supported() && last + 4L * ((words + 15) / 16 * 16) <= end) {
            if (block == 8) KeyColumns.transpose8(packed, first, rowBytes, tile, columns);
            else for (int w0 = 0; w0 < words; w0 += 16) KeyColumns.transpose16(packed, first, rowBytes, tile, w0, columns);
            return;
        }
        if (tile < TILE) Arrays.fill(columns, 0);
        for (int l = 0; l < tile; l++) {
            long row = first + l * rowBytes;
            for (int w = 0; w < words; w++) columns[w * TILE + l] = packed.get(U32, row + 4L * w);
        }
    }

    /** The {@code tile} scores of rows {@code r < m} from {@code totals[from ...]}, times {@code rowScales[t0 ...]} where given. */
    private void store(float[] c, int cOff, int ldc, int t0, int tile, int m, float[] rowScales, int from) {
        VectorMask<Float> in = S.indexInRange(0, tile);
        FloatVector rowScale = rowScales == null ? null : FloatVector.fromArray(S, rowScales, t0, in);
        for (int r = 0; r < m && tile > 0; r++) {
            FloatVector v = FloatVector.fromArray(S, totals, from + r * TILE);
            if (rowScale != null) v = v.mul(rowScale);
            v.intoArray(c, cOff + r * ldc + t0, in);
        }
    }

    /** {@link #store} of codebook scores (row scales given) added to what c holds. */
    private void storeAdded(float[] c, int cOff, int ldc, int t0, int tile, int m, float[] rowScales, int from) {
        VectorMask<Float> in = S.indexInRange(0, tile);
        FloatVector rowScale = FloatVector.fromArray(S, rowScales, t0, in);
        for (int r = 0; r < m && tile > 0; r++) {
            int at = cOff + r * ldc + t0;
            FloatVector.fromArray(S, totals, from + r * TILE).fma(rowScale, FloatVector.fromArray(S, c, at, in)).intoArray(c, at, in);
        }
    }

    /** {@link #codes} as floats (exact: a code has at most 8 bits); small enough for C2 to inline anywhere, so no vector is boxed. */
    private FloatVector codeFloats(int[] columns, int j, int mask) {
        return (FloatVector) codes(columns, j, mask).convert(VectorOperators.I2F, 0);
    }

    /** The codes at position j of the sixteen keys: from word j·bits/32, and the next one where the code straddles. */
    private IntVector codes(int[] columns, int j, int mask) {
        int bit = j * bits;
        int w = bit >>> 5;
        int shift = bit & 31;
        IntVector v = IntVector.fromArray(IS, columns, w * TILE).lanewise(VectorOperators.LSHR, shift);
        if (shift + bits > 32) v = v.or(IntVector.fromArray(IS, columns, (w + 1) * TILE).lanewise(VectorOperators.LSHL, 32 - shift));
        return v.and(mask);
    }

    /**
     * Affine sums of two tiles of sixteen keys (columns, then columns2), each query broadcast feeding both:
     * per group {@code Σ x·code} scaled by each key's scale, plus its bias times the group's {@code Σ x};
     * row r's totals at {@code [r·16 ...]}, the second tile's at {@code [64 + r·16 ...]}.
     */
    private void affineTiles(float[] x) {
        int mask = (1 << bits) - 1;
        FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
        FloatVector u0 = FloatVector.zero(S), u1 = FloatVector.zero(S), u2 = FloatVector.zero(S), u3 = FloatVector.zero(S);
        for (int g = 0; g < groups; g++) {
            FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
            FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
            for (int j = g * groupSize, end = j + groupSize; j < end; j++) {
                FloatVector v = codeFloats(columns, j, mask);
                FloatVector w = codeFloats(columns2, j, mask);
                FloatVector x0 = FloatVector.broadcast(S, x[j]);
                FloatVector x1 = FloatVector.broadcast(S, x[k + j]);
                FloatVector x2 = FloatVector.broadcast(S, x[2 * k + j]);
                FloatVector x3 = FloatVector.broadcast(S, x[3 * k + j]);
                a0 = v.fma(x0, a0);
                a1 = v.fma(x1, a1);
                a2 = v.fma(x2, a2);
                a3 = v.fma(x3, a3);
                b0 = w.fma(x0, b0);
                b1 = w.fma(x1, b1);
                b2 = w.fma(x2, b2);
                b3 = w.fma(x3, b3);
            }
            FloatVector s = FloatVector.fromArray(S, laneScales, g * 2 * TILE);
            FloatVector b = FloatVector.fromArray(S, laneBiases, g * 2 * TILE);
            FloatVector s2 = FloatVector.fromArray(S, laneScales, g * 2 * TILE + TILE);
            FloatVector b2s = FloatVector.fromArray(S, laneBiases, g * 2 * TILE + TILE);
            FloatVector y0 = FloatVector.broadcast(S, xSums[g]);
            FloatVector y1 = FloatVector.broadcast(S, xSums[groups + g]);
            FloatVector y2 = FloatVector.broadcast(S, xSums[2 * groups + g]);
            FloatVector y3 = FloatVector.broadcast(S, xSums[3 * groups + g]);
            t0 = b.fma(y0, a0.fma(s, t0));
            t1 = b.fma(y1, a1.fma(s, t1));
            t2 = b.fma(y2, a2.fma(s, t2));
            t3 = b.fma(y3, a3.fma(s, t3));
            u0 = b2s.fma(y0, b0.fma(s2, u0));
            u1 = b2s.fma(y1, b1.fma(s2, u1));
            u2 = b2s.fma(y2, b2.fma(s2, u2));
            u3 = b2s.fma(y3, b3.fma(s2, u3));
        }
        t0.intoArray(totals, 0);
        t1.intoArray(totals, TILE);
        t2.intoArray(totals, 2 * TILE);
        t3.intoArray(totals, 3 * TILE);
        u0.intoArray(totals, 4 * TILE);
        u1.intoArray(totals, 5 * TILE);
        u2.intoArray(totals, 6 * TILE);
        u3.intoArray(totals, 7 * TILE);
    }

    /** {@link #affineTiles} for the first two query rows only: the same FMAs for them, without the spare rows'. */
    private void affineTiles2(float[] x) {
        int mask = (1 << bits) - 1;
        FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S);
        FloatVector u0 = FloatVector.zero(S), u1 = FloatVector.zero(S);
        for (int g = 0; g < groups; g++) {
            FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S);
            FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S);
            for (int j = g * groupSize, end = j + groupSize; j < end; j++) {
                FloatVector v = codeFloats(columns, j, mask);
                FloatVector w = codeFloats(columns2, j, mask);
                FloatVector x0 = FloatVector.broadcast(S, x[j]);
                FloatVector x1 = FloatVector.broadcast(S, x[k + j]);
                a0 = v.fma(x0, a0);
                a1 = v.fma(x1, a1);
                b0 = w.fma(x0, b0);
                b1 = w.fma(x1, b1);
            }
            FloatVector s = FloatVector.fromArray(S, laneScales, g * 2 * TILE);
            FloatVector b = FloatVector.fromArray(S, laneBiases, g * 2 * TILE);
            FloatVector s2 = FloatVector.fromArray(S, laneScales, g * 2 * TILE + TILE);
            FloatVector b2s = FloatVector.fromArray(S, laneBiases, g * 2 * TILE + TILE);
            FloatVector y0 = FloatVector.broadcast(S, xSums[g]);
            FloatVector y1 = FloatVector.broadcast(S, xSums[groups + g]);
            t0 = b.fma(y0, a0.fma(s, t0));
            t1 = b.fma(y1, a1.fma(s, t1));
            u0 = b2s.fma(y0, b0.fma(s2, u0));
            u1 = b2s.fma(y1, b1.fma(s2, u1));
        }
        t0.intoArray(totals, 0);
        t1.intoArray(totals, TILE);
        u0.intoArray(totals, 4 * TILE);
        u1.intoArray(totals, 5 * TILE);
    }

    /**
     * The nibble tables of query rows x (four rows of k) for 1- or 2-bit codes: lane v of nibble n's vector is
     * {@code Σ x[r, j]·book[code]} over the nibble's positions j with the codes v holds (bit i for 1-bit position
     * 4n + i; bits 2i..2i + 1 for 2-bit position 2n + i), a multiply and FMAs in position order. One vector per
     * row and nibble: 4 broadcasts and 4 multiply-adds (1-bit), 2 and 2 (2-bit).
     */
    private void nibbleTables(float[] x, int[] bookBits) {
        int perNibble = 4 / bits;
        int mask = (1 << bits) - 1;
        IntVector book = IntVector.fromArray(IS, bookBits, 0);
        IntVector lane = IntVector.zero(IS).addIndex(1);
        // position i's book value for every nibble value v: book[(v >>> i·bits) & mask]
        FloatVector p0 = lane.and(mask).selectFrom(book).reinterpretAsFloats();
        FloatVector p1 = lane.lanewise(VectorOperators.LSHR, bits).and(mask).selectFrom(book).reinterpretAsFloats();
        FloatVector p2 = lane.lanewise(VectorOperators.LSHR, 2).and(1).selectFrom(book).reinterpretAsFloats();
        FloatVector p3 = lane.lanewise(VectorOperators.LSHR, 3).and(1).selectFrom(book).reinterpretAsFloats();
        for (int nb = 0, nibbles = k * bits / 4; nb < nibbles; nb++) {
            for (int r = 0; r < ROWS; r++) {
                int j = r * k + nb * perNibble;
                FloatVector sum = p0.mul(x[j]).add(p1.mul(x[j + 1]));
                if (perNibble == 4) sum = p3.fma(FloatVector.broadcast(S, x[j + 3]), p2.fma(FloatVector.broadcast(S, x[j + 2]), sum));
                sum.reinterpretAsInts().intoArray(nibbleTables, (nb * ROWS + r) * 16);
            }
        }
    }

    /**
     * Scores of two tiles of 1- or 2-bit codes by the nibble tables: per nibble of sixteen keys one shift,
     * then per query row one look-up (its index wraps to the nibble) and one add, where {@link #codebookTiles}
     * takes per position a shift, a mask, a look-up and an FMA per row: four 1-bit or two 2-bit positions
     * for what one cost. Per group the sum is then scaled and biased as {@link #affineTiles} does (affine
     * 2-bit codes, tabled as their own book); codebook rows pass one group of scale 1 and bias 0, which
     * leave it exact. Groups are whole nibbles (multiples of 32 codes).
     */
    private void nibbleTiles() {
        int[] tables = nibbleTables;
        int perGroup = groupSize * bits / 4;
        FloatVector t0 = FloatVector.zero(S), t1 = FloatVector.zero(S), t2 = FloatVector.zero(S), t3 = FloatVector.zero(S);
        FloatVector u0 = FloatVector.zero(S), u1 = FloatVector.zero(S), u2 = FloatVector.zero(S), u3 = FloatVector.zero(S);
        for (int g = 0; g < groups; g++) {
            FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
            FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
            for (int nb = g * perGroup, end = nb + perGroup; nb < end; nb++) {
                int word = (nb >>> 3) * TILE;
                int shift = 4 * (nb & 7);
                IntVector u = IntVector.fromArray(IS, columns, word).lanewise(VectorOperators.LSHR, shift);
                IntVector w = IntVector.fromArray(IS, columns2, word).lanewise(VectorOperators.LSHR, shift);
                int at = nb * ROWS * 16;
                IntVector q0 = IntVector.fromArray(IS, tables, at), q1 = IntVector.fromArray(IS, tables, at + 16);
                IntVector q2 = IntVector.fromArray(IS, tables, at + 32), q3 = IntVector.fromArray(IS, tables, at + 48);
                a0 = a0.add(u.selectFrom(q0).reinterpretAsFloats());
                a1 = a1.add(u.selectFrom(q1).reinterpretAsFloats());
                a2 = a2.add(u.selectFrom(q2).reinterpretAsFloats());
                a3 = a3.add(u.selectFrom(q3).reinterpretAsFloats());
                b0 = b0.add(w.selectFrom(q0).reinterpretAsFloats());
                b1 = b1.add(w.selectFrom(q1).reinterpretAsFloats());
                b2 = b2.add(w.selectFrom(q2).reinterpretAsFloats());
                b3 = b3.add(w.selectFrom(q3).reinterpretAsFloats());
            }
            FloatVector s = FloatVector.fromArray(S, laneScales, g * 2 * TILE);
            FloatVector b = FloatVector.fromArray(S, laneBiases, g * 2 * TILE);
            FloatVector s2 = FloatVector.fromArray(S, laneScales, g * 2 * TILE + TILE);
            FloatVector b2s = FloatVector.fromArray(S, laneBiases, g * 2 * TILE + TILE);
            FloatVector y0 = FloatVector.broadcast(S, xSums[g]);
            FloatVector y1 = FloatVector.broadcast(S, xSums[groups + g]);
            FloatVector y2 = FloatVector.broadcast(S, xSums[2 * groups + g]);
            FloatVector y3 = FloatVector.broadcast(S, xSums[3 * groups + g]);
            t0 = b.fma(y0, a0.fma(s, t0));
            t1 = b.fma(y1, a1.fma(s, t1));
            t2 = b.fma(y2, a2.fma(s, t2));
            t3 = b.fma(y3, a3.fma(s, t3));
            u0 = b2s.fma(y0, b0.fma(s2, u0));
            u1 = b2s.fma(y1, b1.fma(s2, u1));
            u2 = b2s.fma(y2, b2.fma(s2, u2));
            u3 = b2s.fma(y3, b3.fma(s2, u3));
        }
        t0.intoArray(totals, 0);
        t1.intoArray(totals, TILE);
        t2.intoArray(totals, 2 * TILE);
        t3.intoArray(totals, 3 * TILE);
        u0.intoArray(totals, 4 * TILE);
        u1.intoArray(totals, 5 * TILE);
        u2.intoArray(totals, 6 * TILE);
        u3.intoArray(totals, 7 * TILE);
    }

    /**
     * {@link #affineTiles} for codebook keys: {@code Σ x·book[code]}, one group, no bias. A twin rather
     * than a branch in one loop: a vector merged from two branches in the loop is boxed unless C2
     * unswitches it, and neither loop can hand its accumulators to a shared helper unboxed.
     */
    private void codebookTiles(float[] x, IntVector book) {
        int mask = (1 << bits) - 1;
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int j = 0; j < k; j++) {
            FloatVector v = codes(columns, j, mask).selectFrom(book).reinterpretAsFloats();
            FloatVector w = codes(columns2, j, mask).selectFrom(book).reinterpretAsFloats();
            FloatVector x0 = FloatVector.broadcast(S, x[j]);
            FloatVector x1 = FloatVector.broadcast(S, x[k + j]);
            FloatVector x2 = FloatVector.broadcast(S, x[2 * k + j]);
            FloatVector x3 = FloatVector.broadcast(S, x[3 * k + j]);
            a0 = v.fma(x0, a0);
            a1 = v.fma(x1, a1);
            a2 = v.fma(x2, a2);
            a3 = v.fma(x3, a3);
            b0 = w.fma(x0, b0);
            b1 = w.fma(x1, b1);
            b2 = w.fma(x2, b2);
            b3 = w.fma(x3, b3);
        }
        a0.intoArray(totals, 0);
        a1.intoArray(totals, TILE);
        a2.intoArray(totals, 2 * TILE);
        a3.intoArray(totals, 3 * TILE);
        b0.intoArray(totals, 4 * TILE);
        b1.intoArray(totals, 5 * TILE);
        b2.intoArray(totals, 6 * TILE);
        b3.intoArray(totals, 7 * TILE);
    }

}
