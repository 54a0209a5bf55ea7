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
 * codebook rows of 4-bit codes in whole chunks of sixteen words: attention's p·V over a
 * TurboQuant cache (a row is one token's rotated value, its scale the value's norm). A token's
 * chunk is loaded once, each code position is extracted for its
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
     * True for 4-bit rows of whole chunks of sixteen words (head dim 128), on sixteen lanes. (2-bit rows
     * and rows of eight words, two tokens per vector, take the any-width {@link CodeRows}, which ran them
     * 10–15 % faster than passes of their own here.)
     */
    public static boolean supports(int bits, int n) {
        return bits == 4 && n * bits % 512 == 0 && V == 16 && S.length() == 16;
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
     * Natural order from {@link #accumulate}'s order for one row of n codes (the arranged order of
     * {@link QuantMatVec#arrange}).
     */
    public static void unarrange(float[] acc, int off, int n, int bits, float[] dst, int dstOff) {
        QuantMatVec.unarrange(acc, off, n, bits, dst, dstOff);
    }
}
