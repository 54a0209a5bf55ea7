package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Weighted sums of value rows of codes of any width from 1 to 8 bits, for up to four weight rows:
 * attention's p·V over every affine cache and the codebook caches {@link CodebookValues} does not serve
 * (TurboQuant values at head dim 64, and 1 to 3 bits). A row is read in pieces of 64 codes, which always
 * start on a word ({@code 64·bits} bits). 4-bit rows (affine in groups of 64 or more, and codebook) take
 * a piece in one pass: its bytes zero-extended to lanes, the nibbles looked up (in the codebook, or as
 * the codes themselves for affine rows) and FMA'd into sixteen accumulators. Other widths cut each chunk of sixteen
 * codes from its two-byte windows with one byte permute, place it (affine: rotated into the mantissa of
 * 1.0, giving {@code 1 + code·2^-bits}; codebook: shifted, masked and looked up in a register) and FMA
 * two chunks per pass. Affine group-constant parts are one scalar per row and group. The sums are in
 * each path's own order; {@link #finishAffine} and {@link #finishCodebook} give rows in natural order.
 *
 * <p>A {@code CodeRows} holds one thread's scratch for rows of one shape; not thread-safe.
 */
public final class CodeRows {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BS = ByteVector.SPECIES_PREFERRED;
    private static final int L = 16;
    /** Weight rows per call. */
    public static final int ROWS = 4;
    /** Codes per piece: 64·bits bits, a whole number of words, at most one vector of them. */
    private static final int PIECE = 64;
    private static final int CHUNKS = PIECE / L;
    /** Tokens whose weights are made together. */
    private static final int BLOCK = 128;

    // per width and chunk of a piece, at [(bits·CHUNKS + chunk)·64] and [(bits·CHUNKS + chunk)·16]: the bytes
    // of each lane's 16-bit window (the code's first byte and the next; every code of at most 8 bits lies in
    // it), gathered with one byte permute, and the window's right shift. Straddling widths (3, 5, 6 bits) took
    // two word permutes and three shifts per chunk before (affine 5-bit 8k step 2.17 -> 1.77 ms). Plain arrays
    // loaded with fromArray before the token loop: as ByteVector/VectorShuffle objects, their payloads were
    // reloaded (and wrapped) once per token.
    private static final byte[] WINDOW = new byte[9 * CHUNKS * 64];
    private static final int[] WINDOW_SHIFT = new int[9 * CHUNKS * L];
    /**
     * Affine codes skip the int-to-float conversion: each window is rotated left so that its code lands in the
     * top {@code bits} mantissa bits under the exponent of 1.0, and one ternary-logic op masks it and sets that
     * exponent, giving {@code 1 + code·2^-bits} (as {@link QuantMatVec} does for weights).
     */
    private static final int[] WINDOW_ROTATE = new int[9 * CHUNKS * L];
    private static final int ONE = Float.floatToRawIntBits(1f);
    /** Byte vectors of sixteen lanes: one widened load of 16 bytes. */
    private static final VectorSpecies<Byte> BYTES16 = ByteVector.SPECIES_128;
    /**
     * The dimension of lane i of vector v of a piece in {@link #nibblesBlock}'s sums, NIBBLE_ORDER[16v + i]:
     * low then high nibbles of bytes 0–15 (dimensions 2i, 2i + 1), then of bytes 16–31.
     */
    private static final int[] NIBBLE_ORDER = new int[PIECE];
    /** The codes 0..15 as floats: affine nibbles "looked up" as the codebook's are. */
    private static final int[] CODE_VALUES = new int[L];

    static {
        for (int v = 0; v < 4; v++) {
            for (int i = 0; i < L; i++) NIBBLE_ORDER[L * v + i] = 32 * (v / 2) + 2 * i + v % 2;
        }
        for (int c = 0; c < L; c++) CODE_VALUES[c] = Float.floatToRawIntBits(c);
        for (int bits = 1; bits <= 8; bits++) {
            for (int ch = 0; ch < CHUNKS; ch++) {
                for (int i = 0; i < L; i++) {
                    int bit = (ch * L + i) * bits;
                    int w = (bits * CHUNKS + ch) * 64 + 4 * i;
                    WINDOW[w] = (byte) (bit >>> 3);
                    // the next byte; past the piece only for an 8-bit code, which lies in its first byte
                    WINDOW[w + 1] = (byte) Math.min(63, (bit >>> 3) + 1);
                    WINDOW[w + 2] = WINDOW[w + 1];                        // above the window: masked off
                    WINDOW[w + 3] = WINDOW[w + 1];
                    WINDOW_SHIFT[(bits * CHUNKS + ch) * L + i] = bit & 7;
                    WINDOW_ROTATE[(bits * CHUNKS + ch) * L + i] = (23 - bits - (bit & 7)) & 31;
                }
            }
        }
    }

    private final int bits;
    private final int n;
    private final int groupSize;
    private final int groups;
    private final int pieceWords;
    private final float[] weights;
    private final float[] scales;
    private final float[] biases;
    /** The bias sums per row and lane ({@code [r·16 + lane]}, lane i of group i % groups). */
    private final float[] biasLanes;
    /** Lane i ← lane i/groups: each token's x spread over its groups' parameters. */
    private final VectorShuffle<Float> spread;
    /**
     * 4-bit rows, affine in groups of 64 or more or codebook: nibbles widened from bytes, one pass per piece
     * ({@link #nibblesBlock}); sums in {@link #NIBBLE_ORDER}.
     */
    private final boolean widened;

    /** Scratch for rows of {@code n} codes of {@code bits}; {@code groupSize} for affine rows (0 for codebook rows). */
    public CodeRows(int bits, int n, int groupSize) {
        if (!supports(bits, n, groupSize)) {
            throw new IllegalArgumentException("CodeRows: unsupported rows of " + n + " " + bits + "-bit codes, group " + groupSize);
        }
        this.bits = bits;
        this.n = n;
        this.groupSize = groupSize == 0 ? n : groupSize;
        this.groups = n / this.groupSize;
        this.pieceWords = Math.min(PIECE, n) * bits / 32; // a row of 32 codes is half a piece
        this.weights = new float[ROWS * BLOCK * groups];
        this.scales = new float[BLOCK * groups];
        this.biases = new float[BLOCK * groups];
        this.biasLanes = new float[ROWS * L];
        this.spread = VectorShuffle.fromOp(S, i -> i / groups);
        this.widened = bits == 4 && n % PIECE == 0 && (groupSize >= PIECE || groupSize == 0);
    }

    /** True for 1 to 8-bit rows of whole pieces of 64 codes (or one half piece, 32 codes), groups of whole pairs of chunks of sixteen (MLX's 32, 64, 128), on sixteen lanes. */
    public static boolean supports(int bits, int n, int groupSize) {
        return bits >= 1 && bits <= 8 && n > 0 && (n % PIECE == 0 || n == PIECE / 2) && (groupSize == 0 || groupSize % (2 * L) == 0 && n % groupSize == 0)
                && IS.length() == L && S.length() == L;
    }

    /**
     * Affine rows: adds {@code Σ_{t ∈ [k0, k1)} x[r, t]·(s_t·code_t + b_t)} for rows {@code r < m} (x: rows
     * of stride k) as two parts, {@code Σ x·s·2^bits·(1 + code·2^-bits)} in {@code acc[r·n ...]} and the
     * group-constant {@code Σ x·(b − s·2^bits)} in {@code biasAcc[r·groups + g]}; {@link #finishAffine}
     * adds them. Row t's words start at byte {@code base + t·rowBytes}.
     */
    public void affine(MemorySegment packed, long base, long rowBytes, RowScales params, float[] x, int m, int k, int k0, int k1,
                       float[] acc, float[] biasAcc) {
        // nibble rows FMA the codes themselves (s·code + b: weights x·s, bias sums x·b); the others 1 + code·2^-bits
        float unit = widened ? 1 : 1 << bits;
        float offsetByUnit = widened ? 0 : 1;
        IntVector codeValues = IntVector.fromArray(IS, CODE_VALUES, 0);
        boolean fourChunks = !widened && n % PIECE == 0 && groupSize >= PIECE; // a piece is one group: one weight per row
        for (int t0 = k0; t0 < k1; t0 += BLOCK) {
            int count = Math.min(BLOCK, k1 - t0);
            // the block decodes f = 1 + code·2^-bits, so s·code + b = u·f + (b − u) with u = s·2^bits: weights x·u,
            // bias sums x·(b − u). Parameters stay token-major as loaded ([t·groups + g]), so lane i of a vector
            // of them is token i/groups of group i%groups, and x is spread to match: transposing them group-major
            // (scalar) cost 11 % of an affine 5-bit step at head dim 128, more than the weights themselves
            params.loadRows(t0, count, groups, scales, biases, 0);
            int span = count * groups;
            for (int i = 0; i < span; i += L) {
                VectorMask<Float> in = S.indexInRange(i, span); // parameters past the block's count are masked off
                FloatVector u = FloatVector.fromArray(S, scales, i, in).mul(unit);
                FloatVector c = FloatVector.fromArray(S, biases, i, in).sub(u.mul(offsetByUnit));
                int token = i / groups;
                VectorMask<Float> tokens = S.indexInRange(token, count);
                for (int r = 0; r < ROWS; r++) {
                    // spread even for one group (an identity): a vector merged from two branches is boxed
                    FloatVector xv = (r < m ? FloatVector.fromArray(S, x, r * k + t0 + token, tokens) : FloatVector.zero(S)).rearrange(spread);
                    xv.mul(u).intoArray(weights, r * BLOCK * groups + i);
                    c.fma(xv, FloatVector.fromArray(S, biasLanes, r * L)).intoArray(biasLanes, r * L);
                }
            }
            long first = base + t0 * rowBytes;
            if (widened) {
                if (m <= 2) nibblesBlock2(packed, count, acc, codeValues, n, groupSize, groups, first, rowBytes, weights);
                else nibblesBlock(packed, count, acc, codeValues, n, groupSize, groups, first, rowBytes, weights);
                continue;
            }
            int done = fourChunks ? affinePieces(packed, count, acc, bits, n, groupSize, groups, pieceWords, first, rowBytes, weights) : 0;
            affineBlock(packed, done, count, acc, bits, n, groupSize, groups, pieceWords, first, rowBytes, weights);
        }
        for (int r = 0; r < ROWS; r++) { // lane i holds group i % groups
            for (int lane = 0; lane < L; lane++) biasAcc[r * groups + lane % groups] += biasLanes[r * L + lane];
        }
        Arrays.fill(biasLanes, 0f);
    }

    /** Row r of the codebook sums into {@code dst}, in natural order. */
    public void finishCodebook(float[] acc, int r, float[] dst) {
        if (!widened) {
            System.arraycopy(acc, r * n, dst, 0, n);
            return;
        }
        for (int p = 0; p < n; p += PIECE) {
            for (int i = 0; i < PIECE; i++) dst[p + NIBBLE_ORDER[i]] = acc[r * n + p + i];
        }
    }

    /** Row r of the affine sums, {@code acc + biasAcc} per group, into {@code dst}. */
    public void finishAffine(float[] acc, float[] biasAcc, int r, float[] dst) {
        if (widened) { // acc in nibblesBlock's order: lane i of vector v of each piece is dimension NIBBLE_ORDER[16v + i]
            for (int p = 0; p < n; p += PIECE) {
                for (int i = 0; i < PIECE; i++) {
                    int j = p + NIBBLE_ORDER[i];
                    dst[j] = acc[r * n + p + i] + biasAcc[r * groups + j / groupSize];
                }
            }
            return;
        }
        for (int j = 0; j < n; j++) dst[j] = acc[r * n + j] + biasAcc[r * groups + j / groupSize];
    }

    /**
     * Codebook rows: adds {@code Σ_{t ∈ [k0, k1)} x[r, t]·rowScales[t]·book[code_t]} to
     * {@code acc[r·n ...]}; {@code bookBits} the codebook's float bits padded to sixteen (at most 4-bit codes).
     */
    public void codebook(MemorySegment packed, long base, long rowBytes, int[] bookBits, float[] rowScales, float[] x, int m, int k,
                         int k0, int k1, float[] acc) {
        IntVector book = IntVector.fromArray(IS, bookBits, 0);
        boolean fourChunks = !widened && n % PIECE == 0 && bits <= 4;
        for (int t0 = k0; t0 < k1; t0 += BLOCK) {
            int count = Math.min(BLOCK, k1 - t0);
            for (int t = 0; t < count; t += L) {
                VectorMask<Float> in = S.indexInRange(t, count);
                FloatVector scale = FloatVector.fromArray(S, rowScales, t0 + t, in);
                for (int r = 0; r < ROWS; r++) {
                    (r < m ? FloatVector.fromArray(S, x, r * k + t0 + t, in).mul(scale) : FloatVector.zero(S)).intoArray(weights, r * BLOCK + t);
                }
            }
            long first = base + t0 * rowBytes;
            if (widened) {
                if (m <= 2) nibblesBlock2(packed, count, acc, book, n, n, 1, first, rowBytes, weights);
                else nibblesBlock(packed, count, acc, book, n, n, 1, first, rowBytes, weights);
                continue;
            }
            int done = fourChunks ? codebookPieces(packed, count, acc, book, bits, n, pieceWords, first, rowBytes, weights) : 0;
            codebookBlock(packed, done, count, acc, book, bits, n, pieceWords, first, rowBytes, weights);
        }
    }

    /**
     * Tokens of a block whose pieces' last chunk can be read with a whole-vector load without passing the plane's
     * end: the first {@code count} tokens at most (a prefix, since tokens lie in order).
     */
    private int wholeVectorTokens(MemorySegment packed, int count, long first, long rowBytes) {
        // the last load of a token: its last piece's fourth chunk, 6·bits bytes into the piece, 64 bytes long
        long reach = 4L * (n / PIECE - 1) * pieceWords + 6L * bits + 4L * L;
        long room = packed.byteSize() - first - reach;
        return room < 0 ? 0 : (int) Math.min(count, room / rowBytes + 1);
    }

    /**
     * {@link #affineBlock} for as many leading tokens as whole-vector loads allow (returned), all four chunks of a piece
     * per pass where a piece is one group (groups of 64 or more), as {@link #codebookPieces} does for codebook rows:
     * one set of weight broadcasts per token and piece, one window and one rotation for the four chunks. The same
     * sums, FMA for FMA.
     */
    private int affinePieces(MemorySegment packed, int count, float[] acc, int bits, int n, int groupSize, int groups, int pieceWords,
                             long first, long rowBytes, float[] weights) {
        int tokens = wholeVectorTokens(packed, count, first, rowBytes);
        long chunkBytes = 2L * bits;
        IntVector mantissa = IntVector.broadcast(IS, ((1 << bits) - 1) << (23 - bits));
        IntVector one = IntVector.broadcast(IS, ONE);
        ByteVector window = ByteVector.fromArray(BS, WINDOW, bits * CHUNKS * L * 4);
        IntVector rotate = IntVector.fromArray(IS, WINDOW_ROTATE, bits * CHUNKS * L);
        for (int j = 0; j < n; j += PIECE) {
            long pieceAt = first + 4L * (j / PIECE) * pieceWords;
            int g = j / groupSize;
            int w0 = g, w1 = BLOCK * groups + g, w2 = 2 * BLOCK * groups + g, w3 = 3 * BLOCK * groups + g;
            FloatVector a0 = FloatVector.fromArray(S, acc, j), b0 = FloatVector.fromArray(S, acc, j + L);
            FloatVector c0 = FloatVector.fromArray(S, acc, j + 2 * L), d0 = FloatVector.fromArray(S, acc, j + 3 * L);
            FloatVector a1 = FloatVector.fromArray(S, acc, n + j), b1 = FloatVector.fromArray(S, acc, n + j + L);
            FloatVector c1 = FloatVector.fromArray(S, acc, n + j + 2 * L), d1 = FloatVector.fromArray(S, acc, n + j + 3 * L);
            FloatVector a2 = FloatVector.fromArray(S, acc, 2 * n + j), b2 = FloatVector.fromArray(S, acc, 2 * n + j + L);
            FloatVector c2 = FloatVector.fromArray(S, acc, 2 * n + j + 2 * L), d2 = FloatVector.fromArray(S, acc, 2 * n + j + 3 * L);
            FloatVector a3 = FloatVector.fromArray(S, acc, 3 * n + j), b3 = FloatVector.fromArray(S, acc, 3 * n + j + L);
            FloatVector c3 = FloatVector.fromArray(S, acc, 3 * n + j + 2 * L), d3 = FloatVector.fromArray(S, acc, 3 * n + j + 3 * L);
            for (int t = 0, wt = 0; t < tokens; t++, wt += groups) {
                long at = pieceAt + t * rowBytes;
                FloatVector u0 = FloatVector.broadcast(S, weights[w0 + wt]);
                FloatVector u1 = FloatVector.broadcast(S, weights[w1 + wt]);
                FloatVector u2 = FloatVector.broadcast(S, weights[w2 + wt]);
                FloatVector u3 = FloatVector.broadcast(S, weights[w3 + wt]);
                FloatVector v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.ROL, rotate).and(mantissa).or(one).reinterpretAsFloats();
                a0 = v.fma(u0, a0);
                a1 = v.fma(u1, a1);
                a2 = v.fma(u2, a2);
                a3 = v.fma(u3, a3);
                v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at + chunkBytes, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.ROL, rotate).and(mantissa).or(one).reinterpretAsFloats();
                b0 = v.fma(u0, b0);
                b1 = v.fma(u1, b1);
                b2 = v.fma(u2, b2);
                b3 = v.fma(u3, b3);
                v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 2 * chunkBytes, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.ROL, rotate).and(mantissa).or(one).reinterpretAsFloats();
                c0 = v.fma(u0, c0);
                c1 = v.fma(u1, c1);
                c2 = v.fma(u2, c2);
                c3 = v.fma(u3, c3);
                v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 3 * chunkBytes, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.ROL, rotate).and(mantissa).or(one).reinterpretAsFloats();
                d0 = v.fma(u0, d0);
                d1 = v.fma(u1, d1);
                d2 = v.fma(u2, d2);
                d3 = v.fma(u3, d3);
            }
            a0.intoArray(acc, j); b0.intoArray(acc, j + L); c0.intoArray(acc, j + 2 * L); d0.intoArray(acc, j + 3 * L);
            a1.intoArray(acc, n + j); b1.intoArray(acc, n + j + L); c1.intoArray(acc, n + j + 2 * L); d1.intoArray(acc, n + j + 3 * L);
            a2.intoArray(acc, 2 * n + j); b2.intoArray(acc, 2 * n + j + L); c2.intoArray(acc, 2 * n + j + 2 * L); d2.intoArray(acc, 2 * n + j + 3 * L);
            a3.intoArray(acc, 3 * n + j); b3.intoArray(acc, 3 * n + j + L); c3.intoArray(acc, 3 * n + j + 2 * L); d3.intoArray(acc, 3 * n + j + 3 * L);
        }
        return tokens;
    }

    /**
     * {@link #codebookBlock} for as many leading tokens as whole-vector loads allow (returned), all four chunks of a
     * piece per pass: each token's weights are broadcast once per piece, not once per pair of chunks (a second set of
     * broadcasts was a quarter of a head dim 64 step's value sums). Chunk c of a piece starts on byte 2·bits·c, so
     * one window and one shift serve the four chunks, loaded from their own bytes: with a window and a shift per
     * chunk the loop ran out of registers. The table repeats the codebook over its lanes
     * ({@link CodebookVectors.Table}), so the look-up's wrapped index needs no mask. The same sums, FMA for FMA, as {@link #codebookBlock}.
     */
    private int codebookPieces(MemorySegment packed, int count, float[] acc, IntVector book, int bits, int n, int pieceWords,
                               long first, long rowBytes, float[] weights) {
        int tokens = wholeVectorTokens(packed, count, first, rowBytes);
        long chunkBytes = 2L * bits;
        ByteVector window = ByteVector.fromArray(BS, WINDOW, bits * CHUNKS * L * 4);
        IntVector right = IntVector.fromArray(IS, WINDOW_SHIFT, bits * CHUNKS * L);
        for (int j = 0; j < n; j += PIECE) {
            long pieceAt = first + 4L * (j / PIECE) * pieceWords;
            FloatVector a0 = FloatVector.fromArray(S, acc, j), b0 = FloatVector.fromArray(S, acc, j + L);
            FloatVector c0 = FloatVector.fromArray(S, acc, j + 2 * L), d0 = FloatVector.fromArray(S, acc, j + 3 * L);
            FloatVector a1 = FloatVector.fromArray(S, acc, n + j), b1 = FloatVector.fromArray(S, acc, n + j + L);
            FloatVector c1 = FloatVector.fromArray(S, acc, n + j + 2 * L), d1 = FloatVector.fromArray(S, acc, n + j + 3 * L);
            FloatVector a2 = FloatVector.fromArray(S, acc, 2 * n + j), b2 = FloatVector.fromArray(S, acc, 2 * n + j + L);
            FloatVector c2 = FloatVector.fromArray(S, acc, 2 * n + j + 2 * L), d2 = FloatVector.fromArray(S, acc, 2 * n + j + 3 * L);
            FloatVector a3 = FloatVector.fromArray(S, acc, 3 * n + j), b3 = FloatVector.fromArray(S, acc, 3 * n + j + L);
            FloatVector c3 = FloatVector.fromArray(S, acc, 3 * n + j + 2 * L), d3 = FloatVector.fromArray(S, acc, 3 * n + j + 3 * L);
            for (int t = 0; t < tokens; t++) {
                long at = pieceAt + t * rowBytes;
                FloatVector u0 = FloatVector.broadcast(S, weights[t]);
                FloatVector u1 = FloatVector.broadcast(S, weights[BLOCK + t]);
                FloatVector u2 = FloatVector.broadcast(S, weights[2 * BLOCK + t]);
                FloatVector u3 = FloatVector.broadcast(S, weights[3 * BLOCK + t]);
                FloatVector v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.LSHR, right).selectFrom(book).reinterpretAsFloats();
                a0 = v.fma(u0, a0);
                a1 = v.fma(u1, a1);
                a2 = v.fma(u2, a2);
                a3 = v.fma(u3, a3);
                v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at + chunkBytes, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.LSHR, right).selectFrom(book).reinterpretAsFloats();
                b0 = v.fma(u0, b0);
                b1 = v.fma(u1, b1);
                b2 = v.fma(u2, b2);
                b3 = v.fma(u3, b3);
                v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 2 * chunkBytes, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.LSHR, right).selectFrom(book).reinterpretAsFloats();
                c0 = v.fma(u0, c0);
                c1 = v.fma(u1, c1);
                c2 = v.fma(u2, c2);
                c3 = v.fma(u3, c3);
                v = window.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 3 * chunkBytes, ByteOrder.LITTLE_ENDIAN).reinterpretAsBytes())
                        .reinterpretAsInts().lanewise(VectorOperators.LSHR, right).selectFrom(book).reinterpretAsFloats();
                d0 = v.fma(u0, d0);
                d1 = v.fma(u1, d1);
                d2 = v.fma(u2, d2);
                d3 = v.fma(u3, d3);
            }
            a0.intoArray(acc, j); b0.intoArray(acc, j + L); c0.intoArray(acc, j + 2 * L); d0.intoArray(acc, j + 3 * L);
            a1.intoArray(acc, n + j); b1.intoArray(acc, n + j + L); c1.intoArray(acc, n + j + 2 * L); d1.intoArray(acc, n + j + 3 * L);
            a2.intoArray(acc, 2 * n + j); b2.intoArray(acc, 2 * n + j + L); c2.intoArray(acc, 2 * n + j + 2 * L); d2.intoArray(acc, 2 * n + j + 3 * L);
            a3.intoArray(acc, 3 * n + j); b3.intoArray(acc, 3 * n + j + L); c3.intoArray(acc, 3 * n + j + 2 * L); d3.intoArray(acc, 3 * n + j + 3 * L);
        }
        return tokens;
    }

    /**
     * The block's tokens into acc for 4-bit rows, a piece of 64 codes at a time in one pass over the tokens:
     * each 16-byte half zero-extended to int lanes once, its low and high nibbles (even and odd dimensions)
     * looked up in {@code book} — the codebook, or the codes themselves as floats for affine rows, whose
     * weights are then x·s and bias sums x·b — and FMA'd into sixteen accumulators (four rows × four vectors)
     * in {@link #NIBBLE_ORDER}. A piece is one group ({@code groupSize} ≥ 64; codebook rows pass n and one
     * group), so all four vectors share each row's weight broadcast: the window cut of {@link #affineBlock}
     * and a second set of broadcasts cost 25 % of a head dim 64 step's value sums.
     */
    private static void nibblesBlock(MemorySegment packed, int count, float[] acc, IntVector book, int n, int groupSize, int groups,
                                     long first, long rowBytes, float[] weights) {
        int stride = BLOCK * groups;
        for (int p = 0; p < n; p += PIECE) {
            long pieceAt = first + (long) p / 2;
            int j = p;
            FloatVector a0 = FloatVector.fromArray(S, acc, j), b0 = FloatVector.fromArray(S, acc, j + L);
            FloatVector c0 = FloatVector.fromArray(S, acc, j + 2 * L), d0 = FloatVector.fromArray(S, acc, j + 3 * L);
            FloatVector a1 = FloatVector.fromArray(S, acc, n + j), b1 = FloatVector.fromArray(S, acc, n + j + L);
            FloatVector c1 = FloatVector.fromArray(S, acc, n + j + 2 * L), d1 = FloatVector.fromArray(S, acc, n + j + 3 * L);
            FloatVector a2 = FloatVector.fromArray(S, acc, 2 * n + j), b2 = FloatVector.fromArray(S, acc, 2 * n + j + L);
            FloatVector c2 = FloatVector.fromArray(S, acc, 2 * n + j + 2 * L), d2 = FloatVector.fromArray(S, acc, 2 * n + j + 3 * L);
            FloatVector a3 = FloatVector.fromArray(S, acc, 3 * n + j), b3 = FloatVector.fromArray(S, acc, 3 * n + j + L);
            FloatVector c3 = FloatVector.fromArray(S, acc, 3 * n + j + 2 * L), d3 = FloatVector.fromArray(S, acc, 3 * n + j + 3 * L);
            for (int t = 0, wt = p / groupSize; t < count; t++, wt += groups) {
                long at = pieceAt + t * rowBytes;
                FloatVector u0 = FloatVector.broadcast(S, weights[wt]);
                FloatVector u1 = FloatVector.broadcast(S, weights[stride + wt]);
                FloatVector u2 = FloatVector.broadcast(S, weights[2 * stride + wt]);
                FloatVector u3 = FloatVector.broadcast(S, weights[3 * stride + wt]);
                IntVector x = bytesWidened(packed, at);
                FloatVector v = lowNibbles(x, book);
                a0 = v.fma(u0, a0);
                a1 = v.fma(u1, a1);
                a2 = v.fma(u2, a2);
                a3 = v.fma(u3, a3);
                v = highNibbles(x, book);
                b0 = v.fma(u0, b0);
                b1 = v.fma(u1, b1);
                b2 = v.fma(u2, b2);
                b3 = v.fma(u3, b3);
                x = bytesWidened(packed, at + 16);
                v = lowNibbles(x, book);
                c0 = v.fma(u0, c0);
                c1 = v.fma(u1, c1);
                c2 = v.fma(u2, c2);
                c3 = v.fma(u3, c3);
                v = highNibbles(x, book);
                d0 = v.fma(u0, d0);
                d1 = v.fma(u1, d1);
                d2 = v.fma(u2, d2);
                d3 = v.fma(u3, d3);
            }
            a0.intoArray(acc, j); b0.intoArray(acc, j + L); c0.intoArray(acc, j + 2 * L); d0.intoArray(acc, j + 3 * L);
            a1.intoArray(acc, n + j); b1.intoArray(acc, n + j + L); c1.intoArray(acc, n + j + 2 * L); d1.intoArray(acc, n + j + 3 * L);
            a2.intoArray(acc, 2 * n + j); b2.intoArray(acc, 2 * n + j + L);
            c2.intoArray(acc, 2 * n + j + 2 * L); d2.intoArray(acc, 2 * n + j + 3 * L);
            a3.intoArray(acc, 3 * n + j); b3.intoArray(acc, 3 * n + j + L);
            c3.intoArray(acc, 3 * n + j + 2 * L); d3.intoArray(acc, 3 * n + j + 3 * L);
        }
    }

    // The nibble kernels' shared decoding, each under C2's MaxInlineSize (35 bytecodes) so that it is inlined even
    // where the profile calls the site cold: a vector returned from a call that is not inlined is boxed.

    /** Sixteen bytes at {@code at}, zero-extended to ints. */
    private static IntVector bytesWidened(MemorySegment packed, long at) {
        return (IntVector) ByteVector.fromMemorySegment(BYTES16, packed, at, ByteOrder.LITTLE_ENDIAN).convertShape(VectorOperators.ZERO_EXTEND_B2I, IS, 0);
    }

    /** The low nibbles of {@code x}'s lanes, looked up in {@code book} (float bits). */
    private static FloatVector lowNibbles(IntVector x, IntVector book) {
        return x.and(15).selectFrom(book).reinterpretAsFloats();
    }

    /** The high nibbles of {@code x}'s lanes (bytes widened: bits 4-7), looked up in {@code book}. */
    private static FloatVector highNibbles(IntVector x, IntVector book) {
        return x.lanewise(VectorOperators.LSHR, 4).selectFrom(book).reinterpretAsFloats();
    }

    /**
     * {@link #nibblesBlock} for the first two rows only (GQA groups of one or two query heads): the same FMAs for
     * them, in the same order, without the spare rows' products (half the FMAs, the same decoding).
     */
    private static void nibblesBlock2(MemorySegment packed, int count, float[] acc, IntVector book, int n, int groupSize, int groups,
                                     long first, long rowBytes, float[] weights) {
        int stride = BLOCK * groups;
        for (int p = 0; p < n; p += PIECE) {
            long pieceAt = first + (long) p / 2;
            int j = p;
            FloatVector a0 = FloatVector.fromArray(S, acc, j), b0 = FloatVector.fromArray(S, acc, j + L);
            FloatVector c0 = FloatVector.fromArray(S, acc, j + 2 * L), d0 = FloatVector.fromArray(S, acc, j + 3 * L);
            FloatVector a1 = FloatVector.fromArray(S, acc, n + j), b1 = FloatVector.fromArray(S, acc, n + j + L);
            FloatVector c1 = FloatVector.fromArray(S, acc, n + j + 2 * L), d1 = FloatVector.fromArray(S, acc, n + j + 3 * L);
            for (int t = 0, wt = p / groupSize; t < count; t++, wt += groups) {
                long at = pieceAt + t * rowBytes;
                FloatVector u0 = FloatVector.broadcast(S, weights[wt]);
                FloatVector u1 = FloatVector.broadcast(S, weights[stride + wt]);
                IntVector x = bytesWidened(packed, at);
                FloatVector v = lowNibbles(x, book);
                a0 = v.fma(u0, a0);
                a1 = v.fma(u1, a1);
                v = highNibbles(x, book);
                b0 = v.fma(u0, b0);
                b1 = v.fma(u1, b1);
                x = bytesWidened(packed, at + 16);
                v = lowNibbles(x, book);
                c0 = v.fma(u0, c0);
                c1 = v.fma(u1, c1);
                v = highNibbles(x, book);
                d0 = v.fma(u0, d0);
                d1 = v.fma(u1, d1);
            }
            a0.intoArray(acc, j); b0.intoArray(acc, j + L); c0.intoArray(acc, j + 2 * L); d0.intoArray(acc, j + 3 * L);
            a1.intoArray(acc, n + j); b1.intoArray(acc, n + j + L); c1.intoArray(acc, n + j + 2 * L); d1.intoArray(acc, n + j + 3 * L);
        }
    }

    /**
     * The block's tokens [from, count) into acc, chunk by chunk, with weights[(r·BLOCK + t)·groups + g]: codes made
     * the floats {@code 1 + code·2^-bits} by bit placement. (Its codebook twin below looks them up; one method with a branch in the
     * token loop would merge two vectors there, which C2 boxes unless it unswitches the loop.)
     */
    private static void affineBlock(MemorySegment packed, int from, int count, float[] acc, int bits, int n, int groupSize, int groups,
                                    int pieceWords, long first, long rowBytes, float[] weights) {
        if (from == count) return;
        IntVector mantissa = IntVector.broadcast(IS, ((1 << bits) - 1) << (23 - bits));
        IntVector one = IntVector.broadcast(IS, ONE);
        for (int p = 0; p * PIECE < n; p++) {
            long pieceAt = first + 4L * p * pieceWords;
            // two chunks of the piece per pass (one group: groups are whole pairs of chunks), each token's words loaded once
            for (int ch = 0; ch < CHUNKS && p * PIECE + ch * L < n; ch += 2) {
                int j = p * PIECE + ch * L;
                int g = j / groupSize;
                int w0 = g, w1 = BLOCK * groups + g, w2 = 2 * BLOCK * groups + g, w3 = 3 * BLOCK * groups + g;
                int at = (bits * CHUNKS + ch) * L;
                ByteVector window = ByteVector.fromArray(BS, WINDOW, at * 4);
                IntVector rotate = IntVector.fromArray(IS, WINDOW_ROTATE, at);
                ByteVector window2 = ByteVector.fromArray(BS, WINDOW, (at + L) * 4);
                IntVector rotate2 = IntVector.fromArray(IS, WINDOW_ROTATE, at + L);
                FloatVector a0 = FloatVector.fromArray(S, acc, j);
                FloatVector a1 = FloatVector.fromArray(S, acc, n + j);
                FloatVector a2 = FloatVector.fromArray(S, acc, 2 * n + j);
                FloatVector a3 = FloatVector.fromArray(S, acc, 3 * n + j);
                FloatVector b0 = FloatVector.fromArray(S, acc, j + L);
                FloatVector b1 = FloatVector.fromArray(S, acc, n + j + L);
                FloatVector b2 = FloatVector.fromArray(S, acc, 2 * n + j + L);
                FloatVector b3 = FloatVector.fromArray(S, acc, 3 * n + j + L);
                for (int t = from, wt = from * groups; t < count; t++, wt += groups) {
                    ByteVector raw = CodebookVectors.rowWords(packed, pieceAt + t * rowBytes, pieceWords).reinterpretAsBytes();
                    FloatVector u0 = FloatVector.broadcast(S, weights[w0 + wt]);
                    FloatVector u1 = FloatVector.broadcast(S, weights[w1 + wt]);
                    FloatVector u2 = FloatVector.broadcast(S, weights[w2 + wt]);
                    FloatVector u3 = FloatVector.broadcast(S, weights[w3 + wt]);
                    FloatVector v = window.selectFrom(raw).reinterpretAsInts().lanewise(VectorOperators.ROL, rotate).and(mantissa).or(one)
                            .reinterpretAsFloats();
                    a0 = v.fma(u0, a0);
                    a1 = v.fma(u1, a1);
                    a2 = v.fma(u2, a2);
                    a3 = v.fma(u3, a3);
                    v = window2.selectFrom(raw).reinterpretAsInts().lanewise(VectorOperators.ROL, rotate2).and(mantissa).or(one)
                            .reinterpretAsFloats();
                    b0 = v.fma(u0, b0);
                    b1 = v.fma(u1, b1);
                    b2 = v.fma(u2, b2);
                    b3 = v.fma(u3, b3);
                }
                a0.intoArray(acc, j);
                a1.intoArray(acc, n + j);
                a2.intoArray(acc, 2 * n + j);
                a3.intoArray(acc, 3 * n + j);
                b0.intoArray(acc, j + L);
                b1.intoArray(acc, n + j + L);
                b2.intoArray(acc, 2 * n + j + L);
                b3.intoArray(acc, 3 * n + j + L);
            }
        }
    }

    /** {@link #affineBlock} with codes looked up in {@code book} (one group: weights[r·BLOCK + t]), tokens [from, count). */
    private static void codebookBlock(MemorySegment packed, int from, int count, float[] acc, IntVector book, int bits, int n, int pieceWords,
                                      long first, long rowBytes, float[] weights) {
        if (from == count) return;
        IntVector mask = IntVector.broadcast(IS, (1 << bits) - 1);
        for (int p = 0; p * PIECE < n; p++) {
            long pieceAt = first + 4L * p * pieceWords;
            for (int ch = 0; ch < CHUNKS && p * PIECE + ch * L < n; ch += 2) {
                int j = p * PIECE + ch * L;
                int at = (bits * CHUNKS + ch) * L;
                ByteVector window = ByteVector.fromArray(BS, WINDOW, at * 4);
                IntVector right = IntVector.fromArray(IS, WINDOW_SHIFT, at);
                ByteVector window2 = ByteVector.fromArray(BS, WINDOW, (at + L) * 4);
                IntVector right2 = IntVector.fromArray(IS, WINDOW_SHIFT, at + L);
                FloatVector a0 = FloatVector.fromArray(S, acc, j);
                FloatVector a1 = FloatVector.fromArray(S, acc, n + j);
                FloatVector a2 = FloatVector.fromArray(S, acc, 2 * n + j);
                FloatVector a3 = FloatVector.fromArray(S, acc, 3 * n + j);
                FloatVector b0 = FloatVector.fromArray(S, acc, j + L);
                FloatVector b1 = FloatVector.fromArray(S, acc, n + j + L);
                FloatVector b2 = FloatVector.fromArray(S, acc, 2 * n + j + L);
                FloatVector b3 = FloatVector.fromArray(S, acc, 3 * n + j + L);
                for (int t = from; t < count; t++) {
                    ByteVector raw = CodebookVectors.rowWords(packed, pieceAt + t * rowBytes, pieceWords).reinterpretAsBytes();
                    FloatVector u0 = FloatVector.broadcast(S, weights[t]);
                    FloatVector u1 = FloatVector.broadcast(S, weights[BLOCK + t]);
                    FloatVector u2 = FloatVector.broadcast(S, weights[2 * BLOCK + t]);
                    FloatVector u3 = FloatVector.broadcast(S, weights[3 * BLOCK + t]);
                    FloatVector v = window.selectFrom(raw).reinterpretAsInts().lanewise(VectorOperators.LSHR, right).and(mask)
                            .selectFrom(book).reinterpretAsFloats();
                    a0 = v.fma(u0, a0);
                    a1 = v.fma(u1, a1);
                    a2 = v.fma(u2, a2);
                    a3 = v.fma(u3, a3);
                    v = window2.selectFrom(raw).reinterpretAsInts().lanewise(VectorOperators.LSHR, right2).and(mask)
                            .selectFrom(book).reinterpretAsFloats();
                    b0 = v.fma(u0, b0);
                    b1 = v.fma(u1, b1);
                    b2 = v.fma(u2, b2);
                    b3 = v.fma(u3, b3);
                }
                a0.intoArray(acc, j);
                a1.intoArray(acc, n + j);
                a2.intoArray(acc, 2 * n + j);
                a3.intoArray(acc, 3 * n + j);
                b0.intoArray(acc, j + L);
                b1.intoArray(acc, n + j + L);
                b2.intoArray(acc, 2 * n + j + L);
                b3.intoArray(acc, 3 * n + j + L);
            }
        }
    }

}
