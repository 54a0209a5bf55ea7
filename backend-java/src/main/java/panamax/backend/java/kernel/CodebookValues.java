package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code acc[r, ·] += Σ_t x[r, t]·rowScale[t]·codebook[code(t, ·)]} for up to four rows of x against
 * codebook rows of 2 or 4-bit codes in whole chunks of sixteen words: attention's p·V over a
 * TurboQuant cache (a row is one token's rotated value, its scale the value's norm). Shaped like
 * {@link AffineValues}: a token's chunk is loaded once, each code position is extracted for its
 * sixteen words (a shift and a mask), looked up in the codebook held in a register (one permute) and
 * FMA'd into the four rows with the per-token weight {@code x·rowScale}; four positions per pass keep
 * sixteen accumulators in registers over a tile of 64 tokens. Sums are in the arranged order of
 * {@link QuantMatVec#arrange} (callers restore it with {@link QuantMatVec#unarrange}). Callers own
 * every array; stateless, thread-safe.
 */
public final class CodebookValues {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** x rows per call. */
    public static final int ROWS = 4;
    /** Tokens per tile: the accumulators are loaded and stored once per tile. */
    private static final int TILE = 64;
    /** Code positions per pass: four per row keeps 16 accumulators in registers. */
    private static final int POSITIONS = 4;

    private CodebookValues() {
    }

    /**
     * True for 2 and 4-bit rows of whole chunks of sixteen words (4-bit at head dim 128), or of eight
     * words lying back to back ({@code rowBytes} 32: 2-bit at head dim 128, two tokens per vector), on
     * sixteen lanes.
     */
    public static boolean supports(int bits, int n, long rowBytes) {
        int words = n * bits / 32;
        return (bits == 2 || bits == 4) && n * bits % 32 == 0 && (words % 16 == 0 || words == 8 && rowBytes == 32) && V == 16
                && S.length() == 16;
    }

    /**
     * Adds tokens {@code [k0, k1)} into {@code acc} ({@code ROWS·n}, arranged). x holds {@code m} rows
     * of k weights (stride k; rows past m count as zero); token t's words start at byte
     * {@code base + t·rowBytes}, its scale is {@code rowScales[t]}; {@code codebookBits} the codebook's
     * float bits padded to sixteen.
     */
    public static void accumulate(MemorySegment packed, long base, long rowBytes, int bits, int n, int[] codebookBits, float[] rowScales,
                                  float[] x, int m, int k, int k0, int k1, float[] acc) {
        int cpw = 32 / bits;
        if (n * bits / 32 == 8) {
            accumulatePairs(packed, base, bits, n, codebookBits, rowScales, x, m, k, k0, k1, acc);
            return;
        }
        float[] weights = new float[ROWS * TILE];
        for (int t0 = k0; t0 < k1; t0 += TILE) {
            int tile = Math.min(TILE, k1 - t0);
            for (int r = 0; r < m; r++) {
                for (int t = 0; t < tile; t += V) {
                    VectorMask<Float> in = S.indexInRange(t, tile);
                    FloatVector.fromArray(S, x, r * k + t0 + t, in).mul(FloatVector.fromArray(S, rowScales, t0 + t, in))
                            .intoArray(weights, r * TILE + t);
                }
            }
            for (int c = 0, word = 0; c < n; c += cpw * V, word += V) {
                for (int p0 = 0; p0 < cpw; p0 += POSITIONS) {
                    pass(packed, base + t0 * rowBytes, rowBytes, tile, word, bits * p0, bits, (1 << bits) - 1, codebookBits, weights, acc, n,
                            c + p0 * V);
                }
            }
        }
    }

    /**
     * Four code positions (from bit {@code shift0}) of the chunk at word {@code word} of {@code tile}
     * tokens from byte {@code at}: row r, position p's sums at {@code acc[r·n + out + p·V ...]}.
     */
    private static void pass(MemorySegment packed, long at, long rowBytes, int tile, int word, int shift0, int bits, int mask,
                             int[] table, float[] weights, float[] acc, int n, int out) {
        IntVector book = IntVector.fromArray(IS, table, 0);
        int s1 = shift0 + bits, s2 = shift0 + 2 * bits, s3 = shift0 + 3 * bits;
        FloatVector a00 = FloatVector.fromArray(S, acc, out), a01 = FloatVector.fromArray(S, acc, out + V);
        FloatVector a02 = FloatVector.fromArray(S, acc, out + 2 * V), a03 = FloatVector.fromArray(S, acc, out + 3 * V);
        FloatVector a10 = FloatVector.fromArray(S, acc, n + out), a11 = FloatVector.fromArray(S, acc, n + out + V);
        FloatVector a12 = FloatVector.fromArray(S, acc, n + out + 2 * V), a13 = FloatVector.fromArray(S, acc, n + out + 3 * V);
        FloatVector a20 = FloatVector.fromArray(S, acc, 2 * n + out), a21 = FloatVector.fromArray(S, acc, 2 * n + out + V);
        FloatVector a22 = FloatVector.fromArray(S, acc, 2 * n + out + 2 * V), a23 = FloatVector.fromArray(S, acc, 2 * n + out + 3 * V);
        FloatVector a30 = FloatVector.fromArray(S, acc, 3 * n + out), a31 = FloatVector.fromArray(S, acc, 3 * n + out + V);
        FloatVector a32 = FloatVector.fromArray(S, acc, 3 * n + out + 2 * V), a33 = FloatVector.fromArray(S, acc, 3 * n + out + 3 * V);
        for (int t = 0; t < tile; t++) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, at + t * rowBytes + 4L * word, LE);
            FloatVector w0 = FloatVector.broadcast(S, weights[t]), w1 = FloatVector.broadcast(S, weights[TILE + t]);
            FloatVector w2 = FloatVector.broadcast(S, weights[2 * TILE + t]), w3 = FloatVector.broadcast(S, weights[3 * TILE + t]);
            FloatVector f = w.lanewise(VectorOperators.LSHR, shift0).and(mask).selectFrom(book).reinterpretAsFloats();
            a00 = f.fma(w0, a00); a10 = f.fma(w1, a10); a20 = f.fma(w2, a20); a30 = f.fma(w3, a30);
            f = w.lanewise(VectorOperators.LSHR, s1).and(mask).selectFrom(book).reinterpretAsFloats();
            a01 = f.fma(w0, a01); a11 = f.fma(w1, a11); a21 = f.fma(w2, a21); a31 = f.fma(w3, a31);
            f = w.lanewise(VectorOperators.LSHR, s2).and(mask).selectFrom(book).reinterpretAsFloats();
            a02 = f.fma(w0, a02); a12 = f.fma(w1, a12); a22 = f.fma(w2, a22); a32 = f.fma(w3, a32);
            f = w.lanewise(VectorOperators.LSHR, s3).and(mask).selectFrom(book).reinterpretAsFloats();
            a03 = f.fma(w0, a03); a13 = f.fma(w1, a13); a23 = f.fma(w2, a23); a33 = f.fma(w3, a33);
        }
        a00.intoArray(acc, out); a01.intoArray(acc, out + V); a02.intoArray(acc, out + 2 * V); a03.intoArray(acc, out + 3 * V);
        a10.intoArray(acc, n + out); a11.intoArray(acc, n + out + V); a12.intoArray(acc, n + out + 2 * V); a13.intoArray(acc, n + out + 3 * V);
        a20.intoArray(acc, 2 * n + out); a21.intoArray(acc, 2 * n + out + V); a22.intoArray(acc, 2 * n + out + 2 * V); a23.intoArray(acc, 2 * n + out + 3 * V);
        a30.intoArray(acc, 3 * n + out); a31.intoArray(acc, 3 * n + out + V); a32.intoArray(acc, 3 * n + out + 2 * V); a33.intoArray(acc, 3 * n + out + 3 * V);
    }

    /**
     * {@link #accumulate} for rows of eight words lying back to back: one vector holds two tokens (lanes
     * 0–7 token t, 8–15 token t + 1), each FMA'd with a weight vector of the two tokens' weights. The
     * two halves are added at the end, so {@code acc} takes this layout: row r, position p, word l at
     * {@code acc[r·n + p·8 + l]} = dim {@code l·cpw + p} ({@link #unarrangePairs} restores it).
     */
    private static void accumulatePairs(MemorySegment packed, long base, int bits, int n, int[] table, float[] rowScales, float[] x,
                                        int m, int k, int k0, int k1, float[] acc) {
        int cpw = 32 / bits;
        // per pair of tokens and row: 8 lanes of the first token's weight, 8 of the second's
        float[] weights = new float[ROWS * (TILE / 2) * V];
        float[] wide = new float[ROWS * cpw * V]; // the accumulators before their halves are added
        for (int t0 = k0; t0 < k1; t0 += TILE) {
            int tile = Math.min(TILE, k1 - t0);
            int pairs = (tile + 1) / 2;
            java.util.Arrays.fill(weights, 0f);
            for (int r = 0; r < m; r++) {
                for (int t = 0; t < tile; t++) {
                    float wt = x[r * k + t0 + t] * rowScales[t0 + t];
                    int at = (r * (TILE / 2) + t / 2) * V + (t % 2) * 8;
                    for (int l = 0; l < 8; l++) weights[at + l] = wt;
                }
            }
            // an odd last token reads its row and the next 32 bytes: take them from itself instead
            long last = base + (long) (t0 + tile - 1) * 32;
            for (int p0 = 0; p0 < cpw; p0 += POSITIONS) {
                pairPass(packed, base + (long) t0 * 32, pairs, tile % 2 == 1 ? last : -1, bits * p0, bits, (1 << bits) - 1, table, weights,
                        wide, p0 * V);
            }
        }
        for (int r = 0; r < ROWS; r++) {
            for (int p = 0; p < cpw; p++) {
                int at = (r * cpw + p) * V;
                for (int l = 0; l < 8; l++) acc[r * n + p * 8 + l] += wide[at + l] + wide[at + 8 + l];
                java.util.Arrays.fill(wide, at, at + V, 0f);
            }
        }
    }

    /** Four code positions (from bit {@code shift0}) of {@code pairs} token pairs from byte {@code at}; sums in {@code wide}. */
    private static void pairPass(MemorySegment packed, long at, int pairs, long oddLast, int shift0, int bits, int mask, int[] table,
                                 float[] weights, float[] wide, int out) {
        IntVector book = IntVector.fromArray(IS, table, 0);
        int cpw = 32 / bits;
        int stride = cpw * V; // row r's positions in wide
        int s1 = shift0 + bits, s2 = shift0 + 2 * bits, s3 = shift0 + 3 * bits;
        FloatVector a00 = FloatVector.fromArray(S, wide, out), a01 = FloatVector.fromArray(S, wide, out + V);
        FloatVector a02 = FloatVector.fromArray(S, wide, out + 2 * V), a03 = FloatVector.fromArray(S, wide, out + 3 * V);
        FloatVector a10 = FloatVector.fromArray(S, wide, stride + out), a11 = FloatVector.fromArray(S, wide, stride + out + V);
        FloatVector a12 = FloatVector.fromArray(S, wide, stride + out + 2 * V), a13 = FloatVector.fromArray(S, wide, stride + out + 3 * V);
        FloatVector a20 = FloatVector.fromArray(S, wide, 2 * stride + out), a21 = FloatVector.fromArray(S, wide, 2 * stride + out + V);
        FloatVector a22 = FloatVector.fromArray(S, wide, 2 * stride + out + 2 * V), a23 = FloatVector.fromArray(S, wide, 2 * stride + out + 3 * V);
        FloatVector a30 = FloatVector.fromArray(S, wide, 3 * stride + out), a31 = FloatVector.fromArray(S, wide, 3 * stride + out + V);
        FloatVector a32 = FloatVector.fromArray(S, wide, 3 * stride + out + 2 * V), a33 = FloatVector.fromArray(S, wide, 3 * stride + out + 3 * V);
        int half = TILE / 2;
        for (int q = 0; q < pairs; q++) {
            // the last pair of an odd tile has no second token: its half reads the first token again, weighted 0
            long from = q == pairs - 1 && oddLast >= 0 ? oddLast : at + q * 64L;
            IntVector w = q == pairs - 1 && oddLast >= 0
                    ? IntVector.fromMemorySegment(IS, packed, from, LE, IS.indexInRange(0, 8))
                    : IntVector.fromMemorySegment(IS, packed, from, LE);
            FloatVector w0 = FloatVector.fromArray(S, weights, q * V), w1 = FloatVector.fromArray(S, weights, (half + q) * V);
            FloatVector w2 = FloatVector.fromArray(S, weights, (2 * half + q) * V), w3 = FloatVector.fromArray(S, weights, (3 * half + q) * V);
            FloatVector f = w.lanewise(VectorOperators.LSHR, shift0).and(mask).selectFrom(book).reinterpretAsFloats();
            a00 = f.fma(w0, a00); a10 = f.fma(w1, a10); a20 = f.fma(w2, a20); a30 = f.fma(w3, a30);
            f = w.lanewise(VectorOperators.LSHR, s1).and(mask).selectFrom(book).reinterpretAsFloats();
            a01 = f.fma(w0, a01); a11 = f.fma(w1, a11); a21 = f.fma(w2, a21); a31 = f.fma(w3, a31);
            f = w.lanewise(VectorOperators.LSHR, s2).and(mask).selectFrom(book).reinterpretAsFloats();
            a02 = f.fma(w0, a02); a12 = f.fma(w1, a12); a22 = f.fma(w2, a22); a32 = f.fma(w3, a32);
            f = w.lanewise(VectorOperators.LSHR, s3).and(mask).selectFrom(book).reinterpretAsFloats();
            a03 = f.fma(w0, a03); a13 = f.fma(w1, a13); a23 = f.fma(w2, a23); a33 = f.fma(w3, a33);
        }
        a00.intoArray(wide, out); a01.intoArray(wide, out + V); a02.intoArray(wide, out + 2 * V); a03.intoArray(wide, out + 3 * V);
        a10.intoArray(wide, stride + out); a11.intoArray(wide, stride + out + V); a12.intoArray(wide, stride + out + 2 * V); a13.intoArray(wide, stride + out + 3 * V);
        a20.intoArray(wide, 2 * stride + out); a21.intoArray(wide, 2 * stride + out + V); a22.intoArray(wide, 2 * stride + out + 2 * V); a23.intoArray(wide, 2 * stride + out + 3 * V);
        a30.intoArray(wide, 3 * stride + out); a31.intoArray(wide, 3 * stride + out + V); a32.intoArray(wide, 3 * stride + out + 2 * V); a33.intoArray(wide, 3 * stride + out + 3 * V);
    }

    /**
     * Natural order from {@link #accumulate}'s order for one row of n codes: the arranged order of
     * {@link QuantMatVec#arrange} for chunks of sixteen words, {@link #accumulatePairs}' for eight.
     */
    public static void unarrange(float[] acc, int off, int n, int bits, float[] dst, int dstOff) {
        int cpw = 32 / bits;
        if (n * bits / 32 != 8) {
            QuantMatVec.unarrange(acc, off, n, bits, dst, dstOff);
            return;
        }
        for (int p = 0; p < cpw; p++) {
            for (int l = 0; l < 8; l++) dst[dstOff + l * cpw + p] = acc[off + p * 8 + l];
        }
    }
}
