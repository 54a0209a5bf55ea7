package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector kernels for codebook matrices (entry = {@code book[code]·rowScale}, codes packed LSB first
 * as MLX does, see {@link AffineCodes}): unpacking a row's codes, looking codes up while multiplying
 * ({@code x·Wᵀ} scores and {@code x·W} accumulation, never a dense W), and dequantizing rows. A
 * codebook of at most one vector's lanes is a register and each lookup one permute of its float
 * bits; larger codebooks use gathers from the on-heap table. Scratch arrays are the caller's.
 * Stateless.
 */
public final class CodebookVectors {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final int L = F.length();
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Rows of x handled together: four accumulators per pass over a row of codes. */
    public static final int ROW_BLOCK = 4;
    /** Codes rows decoded per block in {@link #accumulate}. */
    public static final int TOKEN_BLOCK = 32;

    /** Word lane k ← the upper word of int lane k of two int vectors (a then b): indices 2k + 1 over their 4·L words. */
    private static final ShortVector UPPER_WORDS = ShortVector.SPECIES_PREFERRED.length() == 2 * IntVector.SPECIES_PREFERRED.length()
            ? ShortVector.fromArray(ShortVector.SPECIES_PREFERRED, upperWords(ShortVector.SPECIES_PREFERRED.length()), 0) : null;
    private static final VectorSpecies<Short> HALF = VectorSpecies.of(short.class, VectorShape.forBitSize(L * 16));
    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BYTE16 = VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, L * 8)));
    /**
     * Direct decoding of rows whose words fit one vector and whose codebook is a register (1 to 4
     * bits, rows of up to 16·32/bits codes on 16 lanes): per width and chunk of L codes, each lane's
     * low word, its right shift, its high word (the next one, for 3-bit codes that straddle) and the
     * left shift that funnels the high word in, as {@link AffineVectors} decodes.
     */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Integer>[][] WORD_OF = new VectorShuffle[9][];
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Integer>[][] NEXT_WORD_OF = new VectorShuffle[9][];
    private static final IntVector[][] SHIFT_OF = new IntVector[9][];
    private static final IntVector[][] LEFT_OF = new IntVector[9][];

    static {
        for (int bits = 1; bits <= 4; bits++) {
            if ((1 << bits) > L) continue;
            int chunks = 32 / bits; // at most L words per row: up to L·32/bits codes, chunks of L
            WORD_OF[bits] = new VectorShuffle[chunks];
            NEXT_WORD_OF[bits] = new VectorShuffle[chunks];
            SHIFT_OF[bits] = new IntVector[chunks];
            LEFT_OF[bits] = new IntVector[chunks];
            for (int ch = 0; ch < chunks; ch++) {
                int[] word = new int[L];
                int[] next = new int[L];
                int[] shift = new int[L];
                int[] left = new int[L];
                for (int i = 0; i < L; i++) {
                    int bit = (ch * L + i) * bits;
                    word[i] = Math.min(bit >>> 5, L - 1);
                    next[i] = Math.min((bit >>> 5) + 1, L - 1);
                    shift[i] = bit & 31;
                    left[i] = 31 - (bit & 31); // applied after a shift by 1: 32 − shift without Java's shift-count wrap
                }
                WORD_OF[bits][ch] = VectorShuffle.fromArray(I, word, 0);
                NEXT_WORD_OF[bits][ch] = VectorShuffle.fromArray(I, next, 0);
                SHIFT_OF[bits][ch] = IntVector.fromArray(I, shift, 0);
                LEFT_OF[bits][ch] = IntVector.fromArray(I, left, 0);
            }
        }
    }

    private CodebookVectors() {
    }

    /** True when {@link #scoreRowsPacked} and {@link #accumulatePacked} read rows of {@code cols} such codes straight from their words. */
    public static boolean decodesDirectly(Table t, int bits, int cols) {
        return t.bits != null && bits < WORD_OF.length && WORD_OF[bits] != null && supported() && cols * bits <= 32 * L;
    }

    /**
     * The in-register decoding tables of one width (see {@link #decodesDirectly}), per chunk of L
     * codes: low-word shuffle, right shift, high-word shuffle, left shift after a shift by 1.
     */
    record WordDecoding(VectorShuffle<Integer>[] low, IntVector[] right, VectorShuffle<Integer>[] high, IntVector[] left) {
        static WordDecoding of(int bits) {
            return new WordDecoding(WORD_OF[bits], SHIFT_OF[bits], NEXT_WORD_OF[bits], LEFT_OF[bits]);
        }

        /** True when rows of {@code cols} codes of {@code bits} fit one vector of words. */
        static boolean fits(int bits, int cols) {
            return bits < WORD_OF.length && WORD_OF[bits] != null && supported() && cols * bits <= 32 * L;
        }
    }

    /** The words of the row at byte {@code rowByte} in one vector: a plain load where a whole vector fits the segment, else masked. */
    static IntVector rowWords(MemorySegment packed, long rowByte, int words) {
        if (rowByte + 4L * L <= packed.byteSize()) return IntVector.fromMemorySegment(I, packed, rowByte, ByteOrder.LITTLE_ENDIAN);
        return IntVector.fromMemorySegment(I, packed, rowByte, ByteOrder.LITTLE_ENDIAN, I.indexInRange(0, words));
    }

    /** True when rows of a multiple of 32 codes decode with vectors here (4 to 32 lanes, as {@link AffineVectors}). */
    public static boolean supported() {
        return AffineVectors.supported() && I.length() == L;
    }

    /**
     * A lookup table of one codebook: its float bits filling the lanes, as a register and as an array
     * (for kernels that load the register themselves), when it fits; else both null and the array itself;
     * and the largest magnitude in the book (NaN if it holds a NaN). The lanes repeat the book with the period
     * of the next power of two of its size (zeros between), so a look-up whose index still carries higher bits
     * (a code shifted down out of a wider word, wrapped to the lanes) finds the code's own entry: kernels need
     * no mask for it.
     */
    public record Table(float[] book, IntVector bits, int[] laneBits, float maxAbs) {
        public static Table of(float[] book) {
            float maxAbs = 0;
            for (float v : book) maxAbs = Float.isNaN(v) ? Float.NaN : Math.max(maxAbs, Math.abs(v));
            if (book.length > L) return new Table(book, null, null, maxAbs);
            int period = Integer.highestOneBit(Math.max(1, book.length * 2 - 1));
            int[] raw = new int[L];
            for (int i = 0; i < L; i++) raw[i] = i % period < book.length ? Float.floatToRawIntBits(book[i % period]) : 0;
            return new Table(book, IntVector.fromArray(I, raw, 0), raw, maxAbs);
        }
    }

    /** w rows (tokens) {@link #scoreRowsPacked} scores together: one vector's worth of lane sums. */
    public static final int SCORE_BLOCK = 16;

    /** Scratch for {@link #scoreRowsPacked}'s product vectors. */
    public static float[] scoreVectors() {
        return new float[ROW_BLOCK * SCORE_BLOCK * F.length()];
    }

    /**
     * {@link #scoreRow} for up to {@link #SCORE_BLOCK} w rows, read straight from their words (only
     * where {@link #decodesDirectly}): per chunk one masked load of the words, a lane shuffle, a shift
     * and a mask, then the register look-up.
     * <p>{@code c[cOff + r·ldc + i] = scales[s0 + i]·Σ_j x[(r0 + r)·k + j]·w_i[j]} for the {@code count ≤}
     * {@link #SCORE_BLOCK} w rows at bytes {@code rowBytes[i]} and x rows {@code r < rows ≤ 4}: each
     * row's codes are decoded once for four x rows, the four product vectors stored, and each x row's
     * sums of the block reduced together ({@link Lanes#sums}: the bits of one {@link Lanes#sum} per
     * vector at about half the operations). Scratch: {@code vectors} of
     * {@code ROW_BLOCK·SCORE_BLOCK·lanes} floats, {@code sums} of {@code ROW_BLOCK·SCORE_BLOCK}.
     */
    public static void scoreRowsPacked(Table t, MemorySegment packed, long[] rowBytes, int count, int bits, int k, float[] x, int r0,
                                       int rows, float[] scales, int s0, float[] c, int cOff, int ldc, float[] vectors, float[] sums) {
        IntVector table = t.bits;
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        VectorShuffle<Integer>[] wordOf = WORD_OF[bits];
        VectorShuffle<Integer>[] nextOf = NEXT_WORD_OF[bits];
        IntVector[] shiftOf = SHIFT_OF[bits];
        IntVector[] leftOf = LEFT_OF[bits];
        int x0 = r0 * k;
        int f = F.length();
        for (int i = 0; i < count; i++) {
            IntVector words = rowWords(packed, rowBytes[i], k * bits / 32);
            FloatVector a0 = FloatVector.zero(F);
            FloatVector a1 = FloatVector.zero(F);
            FloatVector a2 = FloatVector.zero(F);
            FloatVector a3 = FloatVector.zero(F);
            for (int j = 0, chunk = 0; j < k; j += L, chunk++) {
                IntVector lo = words.rearrange(wordOf[chunk]).lanewise(VectorOperators.LSHR, shiftOf[chunk]);
                IntVector hi = words.rearrange(nextOf[chunk]).lanewise(VectorOperators.LSHL, 1).lanewise(VectorOperators.LSHL, leftOf[chunk]);
                FloatVector v = lo.or(hi).and(mask).selectFrom(table).reinterpretAsFloats();
                a0 = v.fma(FloatVector.fromArray(F, x, x0 + j), a0);
                a1 = v.fma(FloatVector.fromArray(F, x, x0 + k + j), a1);
                a2 = v.fma(FloatVector.fromArray(F, x, x0 + 2 * k + j), a2);
                a3 = v.fma(FloatVector.fromArray(F, x, x0 + 3 * k + j), a3);
            }
            a0.intoArray(vectors, i * f);
            a1.intoArray(vectors, (SCORE_BLOCK + i) * f);
            a2.intoArray(vectors, (2 * SCORE_BLOCK + i) * f);
            a3.intoArray(vectors, (3 * SCORE_BLOCK + i) * f);
        }
        for (int r = 0; r < rows; r++) {
            Lanes.sums(vectors, r * SCORE_BLOCK * f, SCORE_BLOCK, sums, r * SCORE_BLOCK);
            for (int i = 0; i < count; i++) c[cOff + r * ldc + i] = sums[r * SCORE_BLOCK + i] * scales[s0 + i];
        }
    }

    /**
     * {@link #accumulate} reading the codes of the {@code count} rows at bytes {@code rowBytes[i]}
     * straight from their words (only where {@link #decodesDirectly}).
     */
    public static void accumulatePacked(Table t, MemorySegment packed, long[] rowBytes, int count, int bits, int n, float[] w,
                                        float[] acc, int accOff) {
        IntVector table = t.bits;
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        int words = n * bits / 32;
        for (int j = 0, chunk = 0; j < n; j += L, chunk++) {
            VectorShuffle<Integer> wordShuffle = WORD_OF[bits][chunk];
            VectorShuffle<Integer> nextShuffle = NEXT_WORD_OF[bits][chunk];
            IntVector shift = SHIFT_OF[bits][chunk];
            IntVector left = LEFT_OF[bits][chunk];
            FloatVector a0 = FloatVector.fromArray(F, acc, accOff + j);
            FloatVector a1 = FloatVector.fromArray(F, acc, accOff + n + j);
            FloatVector a2 = FloatVector.fromArray(F, acc, accOff + 2 * n + j);
            FloatVector a3 = FloatVector.fromArray(F, acc, accOff + 3 * n + j);
            for (int i = 0; i < count; i++) {
                IntVector raw = rowWords(packed, rowBytes[i], words);
                IntVector lo = raw.rearrange(wordShuffle).lanewise(VectorOperators.LSHR, shift);
                IntVector hi = raw.rearrange(nextShuffle).lanewise(VectorOperators.LSHL, 1).lanewise(VectorOperators.LSHL, left);
                FloatVector v = lo.or(hi).and(mask).selectFrom(table).reinterpretAsFloats();
                a0 = v.fma(FloatVector.broadcast(F, w[i]), a0);
                a1 = v.fma(FloatVector.broadcast(F, w[TOKEN_BLOCK + i]), a1);
                a2 = v.fma(FloatVector.broadcast(F, w[2 * TOKEN_BLOCK + i]), a2);
                a3 = v.fma(FloatVector.broadcast(F, w[3 * TOKEN_BLOCK + i]), a3);
            }
            a0.intoArray(acc, accOff + j);
            a1.intoArray(acc, accOff + n + j);
            a2.intoArray(acc, accOff + 2 * n + j);
            a3.intoArray(acc, accOff + 3 * n + j);
        }
    }

    /** The {@code cols} codes (a multiple of 32) of the row whose first word is at byte {@code rowByte}, into {@code dst[off...]}. */
    public static void unpack(MemorySegment packed, long rowByte, int bits, int cols, int[] dst, int off) {
        int blocks = cols / 32;
        int fast = 0;
        if (bits == 1 && L <= 32) {
            long words = Math.min(blocks, (packed.byteSize() - rowByte) / 4);
            IntVector one = IntVector.broadcast(I, 1);
            IntVector iota = IntVector.zero(I).addIndex(1);
            for (int w = 0; w < words; w++) {
                IntVector word = IntVector.broadcast(I, packed.get(U32, rowByte + 4L * w));
                for (int p = 0; p < 32; p += L) word.lanewise(VectorOperators.LSHR, iota.add(p)).and(one).intoArray(dst, off + 32 * w + p);
            }
            fast = (int) words;
        } else if (bits != 1 && supported()) {
            fast = (int) AffineVectors.safeBlocks(packed, rowByte, bits, blocks);
            AffineVectors.unpackBlocks(packed, rowByte, bits, fast, dst, off);
        }
        if (fast < blocks) AffineCodes.unpackScalar(packed, rowByte, bits, 32 * fast, cols, dst, off + 32 * fast);
    }

    /**
     * Scores of rows {@code [r0, r0 + ROW_BLOCK)} of {@code x} ({@code k} per row, rows past the real
     * ones zero) against the codes row in {@code codes[0..k)}: writes {@code scale·Σ x·book[code]}
     * to {@code c[(r − r0)·ldc + col]} for the {@code rows} real rows.
     */
    public static void scoreRow(Table t, int[] codes, int k, float[] x, int r0, int rows, float scale, float[] c, int cOff, int ldc) {
        FloatVector a0 = FloatVector.zero(F);
        FloatVector a1 = FloatVector.zero(F);
        FloatVector a2 = FloatVector.zero(F);
        FloatVector a3 = FloatVector.zero(F);
        int x0 = r0 * k;
        IntVector table = t.bits;
        for (int j = 0; j < k; j += L) {
            // the look-up written out: a vector returned from a call that C2 does not inline is boxed
            FloatVector v = table != null ? IntVector.fromArray(I, codes, j).selectFrom(table).reinterpretAsFloats()
                    : FloatVector.fromArray(F, t.book, 0, codes, j);
            a0 = v.fma(FloatVector.fromArray(F, x, x0 + j), a0);
            a1 = v.fma(FloatVector.fromArray(F, x, x0 + k + j), a1);
            a2 = v.fma(FloatVector.fromArray(F, x, x0 + 2 * k + j), a2);
            a3 = v.fma(FloatVector.fromArray(F, x, x0 + 3 * k + j), a3);
        }
        c[cOff] = Lanes.sum(a0) * scale;
        if (rows > 1) c[cOff + ldc] = Lanes.sum(a1) * scale;
        if (rows > 2) c[cOff + 2 * ldc] = Lanes.sum(a2) * scale;
        if (rows > 3) c[cOff + 3 * ldc] = Lanes.sum(a3) * scale;
    }

    /**
     * {@code acc[q·n + j] += Σ_i w[q·TOKEN_BLOCK + i]·book[codes[i·n + j]]} for the four rows q of a
     * row block and {@code count} decoded code rows of {@code n} codes each.
     */
    public static void accumulate(Table t, int[] codes, int count, int n, float[] w, float[] acc, int accOff) {
        IntVector table = t.bits;
        for (int j = 0; j < n; j += L) {
            FloatVector a0 = FloatVector.fromArray(F, acc, accOff + j);
            FloatVector a1 = FloatVector.fromArray(F, acc, accOff + n + j);
            FloatVector a2 = FloatVector.fromArray(F, acc, accOff + 2 * n + j);
            FloatVector a3 = FloatVector.fromArray(F, acc, accOff + 3 * n + j);
            // the table branch is hoisted and the look-up written out: a vector returned from a call C2 does not inline is boxed
            if (table != null) {
                for (int i = 0; i < count; i++) {
                    FloatVector v = IntVector.fromArray(I, codes, i * n + j).selectFrom(table).reinterpretAsFloats();
                    a0 = v.fma(FloatVector.broadcast(F, w[i]), a0);
                    a1 = v.fma(FloatVector.broadcast(F, w[TOKEN_BLOCK + i]), a1);
                    a2 = v.fma(FloatVector.broadcast(F, w[2 * TOKEN_BLOCK + i]), a2);
                    a3 = v.fma(FloatVector.broadcast(F, w[3 * TOKEN_BLOCK + i]), a3);
                }
            } else {
                for (int i = 0; i < count; i++) {
                    FloatVector v = FloatVector.fromArray(F, t.book, 0, codes, i * n + j);
                    a0 = v.fma(FloatVector.broadcast(F, w[i]), a0);
                    a1 = v.fma(FloatVector.broadcast(F, w[TOKEN_BLOCK + i]), a1);
                    a2 = v.fma(FloatVector.broadcast(F, w[2 * TOKEN_BLOCK + i]), a2);
                    a3 = v.fma(FloatVector.broadcast(F, w[3 * TOKEN_BLOCK + i]), a3);
                }
            }
            a0.intoArray(acc, accOff + j);
            a1.intoArray(acc, accOff + n + j);
            a2.intoArray(acc, accOff + 2 * n + j);
            a3.intoArray(acc, accOff + 3 * n + j);
        }
    }

    /** {@code book[codes[j]]·scale} for {@code n} codes, stored as little-endian f32 at byte {@code byteOff} of {@code dst}. */
    public static void dequantizeRow(Table t, int[] codes, int n, float scale, MemorySegment dst, long byteOff) {
        IntVector table = t.bits;
        for (int j = 0; j < n; j += L) {
            FloatVector v = table != null ? IntVector.fromArray(I, codes, j).selectFrom(table).reinterpretAsFloats()
                    : FloatVector.fromArray(F, t.book, 0, codes, j);
            v.mul(scale).intoMemorySegment(dst, byteOff + 4L * j, ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** {@code book[codes[j]]·scale} for {@code n} codes into {@code dst[0..n)}. */
    public static void lookupRow(Table t, int[] codes, int n, float scale, float[] dst) {
        IntVector table = t.bits;
        for (int j = 0; j < n; j += L) {
            FloatVector v = table != null ? IntVector.fromArray(I, codes, j).selectFrom(table).reinterpretAsFloats()
                    : FloatVector.fromArray(F, t.book, 0, codes, j);
            v.mul(scale).intoArray(dst, j);
        }
    }

    /**
     * Per width 1 to 3 and chunk of 16 codes (rows of at most 128), at [(bits·8 + chunk)·64] and
     * [(bits·8 + chunk)·16]: lane i's 16-bit byte window and shift (see {@link #lookupWindows}). Plain
     * arrays loaded with fromArray: as VectorShuffle and IntVector array elements their payloads were
     * reloaded, and the shuffles wrapped, at every use.
     */
    private static final byte[] WINDOW = new byte[4 * 8 * 64];
    private static final int[] WINDOW_SHIFT = new int[4 * 8 * 16];
    static final boolean WINDOWS = L == 16 && BYTES.length() == 64;

    static {
        if (WINDOWS) {
            for (int bits = 1; bits <= 3; bits++) {
                for (int ch = 0; ch < 8; ch++) {
                    for (int i = 0; i < L; i++) {
                        int bit = bits * (L * ch + i);
                        for (int j = 0; j < 4; j++) WINDOW[(bits * 8 + ch) * 64 + 4 * i + j] = (byte) Math.min(63, (bit >>> 3) + Math.min(j, 1));
                        WINDOW_SHIFT[(bits * 8 + ch) * 16 + i] = bit & 7;
                    }
                }
            }
        }
    }

    /** True when {@link #lookupWindows} reads rows of {@code n} such codes: 1 to 3 bits, a register table, 16 lanes, rows of 32 to 128. */
    public static boolean looksUpWindows(Table t, int bits, int n) {
        return bits >= 1 && bits <= 3 && WINDOWS && t.bits != null && n % 16 == 0 && n <= 128;
    }

    /**
     * {@link #lookupRow} of the 1- to 3-bit codes of the row at byte {@code rowByte} without unpacking
     * them first: the row (at most 48 bytes) is one byte vector, and each code is cut from the 16-bit
     * window at its first byte (one byte shuffle, a shift, a mask), then looked up. The same products.
     */
    public static void lookupWindows(Table t, MemorySegment packed, long rowByte, int bits, int n, float scale, float[] dst) {
        IntVector table = t.bits;
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        int bytes = n * bits / 8;
        ByteVector row = rowByte + 64 <= packed.byteSize()
                ? ByteVector.fromMemorySegment(BYTES, packed, rowByte, ByteOrder.LITTLE_ENDIAN)
                : ByteVector.fromMemorySegment(BYTES, packed, rowByte, ByteOrder.LITTLE_ENDIAN, BYTES.indexInRange(0, bytes));
        for (int ch = 0; ch < n / L; ch++) {
            ByteVector window = ByteVector.fromArray(BYTES, WINDOW, (bits * 8 + ch) * 64);
            IntVector shift = IntVector.fromArray(I, WINDOW_SHIFT, (bits * 8 + ch) * 16);
            IntVector c = window.selectFrom(row).reinterpretAsInts().lanewise(VectorOperators.LSHR, shift).and(mask);
            c.selectFrom(table).reinterpretAsFloats().mul(scale).intoArray(dst, L * ch);
        }
    }

    private static short[] upperWords(int lanes) {
        short[] idx = new short[lanes];
        for (int k = 0; k < lanes; k++) idx[k] = (short) (2 * k + 1);
        return idx;
    }

    /** True when {@link #lookupPacked4} reads rows of {@code n} such codes: 4 bits, a register table, 16 lanes, whole 32-code blocks. */
    public static boolean looksUpPacked4(Table t, int bits, int n) {
        return bits == 4 && t.bits != null && L == 16 && I.length() == L && n % 32 == 0;
    }

    /**
     * {@link #lookupRow} of the 4-bit codes at byte {@code rowByte} without unpacking them first:
     * each block's 16 bytes widened to ints, the low and high nibbles looked up (even and odd codes),
     * and the two zipped back into row order by two-vector selects. The same products, bit for bit.
     */
    public static void lookupPacked4(Table t, MemorySegment packed, long rowByte, int n, float scale, float[] dst) {
        // the book times the scale once per row: the same products as scaling each looked-up value
        IntVector table = IntVector.fromArray(I, t.laneBits, 0).reinterpretAsFloats().mul(scale).reinterpretAsInts();
        for (int j = 0; j < n; j += 32) {
            IntVector x = (IntVector) ByteVector.fromMemorySegment(BYTE16, packed, rowByte + j / 2, ByteOrder.LITTLE_ENDIAN)
                    .convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0);
            IntVector even = x.and(15).selectFrom(table);
            IntVector odd = x.lanewise(VectorOperators.LSHR, 4).selectFrom(table); // a zero-extended byte's high nibble
            // zipped back into row order by two two-vector selects (they were ten conversions, shifts and ORs)
            HadamardVectors.ZIP_LOW.selectFrom(even, odd).reinterpretAsFloats().intoArray(dst, j);
            HadamardVectors.ZIP_HIGH.selectFrom(even, odd).reinterpretAsFloats().intoArray(dst, j + 16);
        }
    }

    /**
     * Stores {@code src[0..n)} (n a multiple of the lanes) as bf16, rounded to nearest even, at byte
     * {@code byteOff} of {@code dst}. Two vectors at a time keep each rounded value in its upper word and
     * gather both vectors' upper words with one two-vector word select (a shift and a narrowing per vector
     * before: TurboQuant decode 3 % faster).
     */
    public static void storeBf16(float[] src, int n, MemorySegment dst, long byteOff) {
        IntVector half = IntVector.broadcast(I, 0x7FFF);
        int j = 0;
        if (UPPER_WORDS != null) {
            for (; j + 2 * L <= n; j += 2 * L) {
                IntVector a = roundedToUpperWord(FloatVector.fromArray(F, src, j), half);
                IntVector b = roundedToUpperWord(FloatVector.fromArray(F, src, j + L), half);
                UPPER_WORDS.selectFrom(a.reinterpretAsShorts(), b.reinterpretAsShorts())
                        .intoMemorySegment(dst, byteOff + 2L * j, ByteOrder.LITTLE_ENDIAN);
            }
        }
        for (; j < n; j += L) {
            IntVector rounded = roundedToUpperWord(FloatVector.fromArray(F, src, j), half).lanewise(VectorOperators.LSHR, 16);
            ((ShortVector) rounded.convertShape(VectorOperators.I2S, HALF, 0)).intoMemorySegment(dst, byteOff + 2L * j, ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** f's bf16 rounding (nearest even) in the upper word of each lane; a NaN stays a quiet NaN (rounding could carry it into infinity). */
    private static IntVector roundedToUpperWord(FloatVector f, IntVector half) {
        IntVector bits = f.reinterpretAsInts();
        return bits.add(half).add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).blend(bits.or(0x400000), f.test(VectorOperators.IS_NAN).cast(I));
    }

    /**
     * Runs every kernel here, in {@link CodebookEncoding} and in {@link HadamardVectors} at every code width (in-register
     * and gathered tables) on rows of 64 and 128, so that C2 compiles them with the profile they
     * meet in use; {@code packed} holds at least 2 KiB of a shared arena. Called by {@link Warmup}.
     */
    static void warmUp(MemorySegment packed, int rounds) {
        int n = 128;
        float[] row = new float[n];
        float[] sign = new float[n];
        for (int j = 0; j < n; j++) {
            row[j] = (j * 37 % 101) / 50f - 1;
            sign[j] = j % 3 == 0 ? -1 : 1;
        }
        int[] codes = new int[TOKEN_BLOCK * n];
        int[] words = new int[n];
        float[] x = new float[ROW_BLOCK * n];
        float[] c = new float[ROW_BLOCK * 16];
        float[] w = new float[ROW_BLOCK * TOKEN_BLOCK];
        float[] acc = new float[ROW_BLOCK * n];
        int[] widths = {1, 2, 3, 4, 8};
        float[] factors = new float[n];
        int[] signWords = new int[n / 2];
        Table[] tables = new Table[9];
        float[][] bounds = new float[9][];
        int[][] searchTables = new int[9][];
        for (int bits : widths) {
            tables[bits] = Table.of(new float[1 << bits]);
            bounds[bits] = new float[(1 << bits) - 1];
            for (int i = 0; i < bounds[bits].length; i++) bounds[bits][i] = (i + 1f) / (1 << bits) - 0.5f;
            searchTables[bits] = CodebookEncoding.searchTable(bounds[bits]);
        }
        for (int i = 0; i < rounds; i++) {
            int bits = widths[i % widths.length];
            int len = i % 2 == 0 ? n : 64;
            HadamardVectors.transform(row, len, i % 4 < 2 ? sign : null, i % 4 < 2 ? null : sign);
            float norm = (float) Math.sqrt(CodebookEncoding.sumOfSquares(row, len));
            CodebookEncoding.codes(row, len, Math.max(norm, Float.MIN_NORMAL), bounds[bits], searchTables[bits], codes);
            CodebookEncoding.pack(codes, len, bits, words);
            if (CodebookEncoding.packsFromMasks(bits, searchTables[bits])) { // the encoder's packing of 1-4-bit codes
                CodebookEncoding.packedCodes(row, len, Math.max(norm, Float.MIN_NORMAL), bits, searchTables[bits], packed, 1536);
            }
            unpack(packed, 0, bits, len, codes, 0);
            lookupRow(tables[bits], codes, len, 0.5f, row);
            if (looksUpPacked4(tables[bits], bits, len)) lookupPacked4(tables[bits], packed, 0, len, 0.5f, row);
            if (looksUpWindows(tables[bits], bits, len)) lookupWindows(tables[bits], packed, 0, bits, len, 0.5f, row);
            storeBf16(row, len, packed, 1024);
            if (HadamardVectors.rotatesBf16(len)) { // the bf16 encoder's and decoder's one-pass rows
                HadamardVectors.bf16Factors(sign, len, factors);
                HadamardVectors.rotateBf16(packed, 1024, len, factors, row);
                if (Bf16RowEncoder.encodes(len, bits, searchTables[bits])) {
                    Bf16RowEncoder.encode(packed, 1024, len, factors, bits, searchTables[bits], packed, 1536);
                    if (len == 64) Bf16RowEncoder.encodePairOf64(packed, 1024, factors, 1152, factors, bits, searchTables[bits], packed, 1536, 1568, row);
                }
                if (Bf16RowDecoder.decodes(tables[bits], bits, len)) {
                    Bf16RowDecoder.signWords(sign, len, signWords);
                    Bf16RowDecoder.decode(tables[bits], packed, 0, bits, len, 0.5f, signWords, packed, 1024);
                    if (len == 64) Bf16RowDecoder.decodeOf64Pair(tables[bits], packed, bits, 0, 0.5f, signWords, 1024, 32, 0.5f, signWords, 1152, packed);
                }
            }
            scoreRow(tables[bits], codes, len, x, 0, 1 + i % ROW_BLOCK, 1f, c, i % 8, 8);
            if (i % 8 == 0) accumulate(tables[bits], codes, 4, 32, w, acc, 0);
            if (decodesDirectly(tables[bits], bits, len)) {
                scoreRowsPacked(tables[bits], packed, new long[] {0, 64}, 2, bits, len, x, 0, 1 + i % ROW_BLOCK, new float[] {1f, 1f}, 0,
                        c, i % 4, 8, scoreVectors(), new float[ROW_BLOCK * SCORE_BLOCK]);
                if (i % 8 == 0) accumulatePacked(tables[bits], packed, new long[] {0, 64, 128, 192}, 4, bits, 32, w, acc, 0);
            }
        }
    }
}
