package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code c[r, t] = rowScale[t]·Σ_j x[r, j]·codebook[code(t, j)]} for up to four x rows against
 * codebook rows of 4-bit codes: attention's q·Kᵀ over a TurboQuant cache (a row is one token's
 * rotated key, its scale the key's norm). As in {@link AffineScores}, lanes are keys: sixteen key rows
 * are transposed ({@link KeyColumns}), each code position of a word is extracted for sixteen keys at
 * once (a shift and a mask), looked up in the codebook held in a register (one permute) and FMA'd
 * into the four x rows with x's element broadcast; the sixteen lanes are sixteen scores, so nothing
 * is reduced across lanes ({@link CodebookVectors#scoreRowsPacked}, lanes over the head dimension,
 * needs a 16-lane sum per key and row). Callers own every array; stateless, thread-safe.
 */
public final class CodebookScores {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    /** x rows per call. */
    public static final int ROWS = 4;
    /** Keys per tile: one per lane. */
    private static final int TILE = 16;

    private CodebookScores() {
    }

    /**
     * True for 4-bit rows of eight words or of whole chunks of sixteen (head dims 64 and 128), on
     * sixteen lanes. (A 2-bit twin of {@link #tile4} ran 1.3× its time per key, slower than the
     * any-width {@link CodeColumns}, which now serves 2-bit keys: session 7, 2.05 → 1.79 ms per 8k step.)
     */
    public static boolean supports(int bits, int k) {
        int words = k * bits / 32;
        return bits == 4 && k * bits % 32 == 0 && (words == 8 || words % 16 == 0) && KeyColumns.supported() && S.length() == TILE;
    }

    /**
     * Scores of {@code m ≤ 4} x rows ({@code x}: four rows of k, natural order, rows past m zero)
     * against the codebook rows {@code [n0, n1)} (row t at byte {@code base + t·rowBytes}, scale
     * {@code rowScales[t]}); {@code codebookBits} the codebook's float bits, padded to sixteen.
     * Results at {@code c[cOff + r·ldc + t]}.
     */
    public static void scores(MemorySegment packed, long base, long rowBytes, int bits, int k, int[] codebookBits, float[] rowScales,
                              float[] x, int m, int n0, int n1, float[] c, int cOff, int ldc) {
        int words = k * bits / 32;
        int[] columns = new int[words * TILE];
        int[] rows = new int[256]; // the transposition's scratch
        float[] totals = new float[ROWS * TILE];
        IntVector table = IntVector.fromArray(IS, codebookBits, 0);
        for (int t0 = n0; t0 < n1; t0 += TILE) {
            int tile = Math.min(TILE, n1 - t0);
            if (words == 8) KeyColumns.transpose8(packed, base + t0 * rowBytes, rowBytes, tile, rows, columns);
            else for (int w0 = 0; w0 < words; w0 += 16) KeyColumns.transpose16(packed, base + t0 * rowBytes, rowBytes, tile, w0, rows, columns);
            tile4(columns, words, k, x, table, totals);
            VectorMask<Float> in = S.indexInRange(0, tile);
            FloatVector norms = FloatVector.fromArray(S, rowScales, t0, in);
            for (int r = 0; r < m; r++) FloatVector.fromArray(S, totals, r * TILE).mul(norms).intoArray(c, cOff + r * ldc + t0, in);
        }
    }

    // one loop with the width's shifts and codes per word as constants: the sums Σ x·codebook[code]
    // of the four x rows against the tile's sixteen keys, row r's at totals[r·16 ...]
    private static void tile4(int[] columns, int words, int k, float[] x, IntVector table, float[] totals) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector b0 = FloatVector.zero(S), b1 = FloatVector.zero(S), b2 = FloatVector.zero(S), b3 = FloatVector.zero(S);
        for (int w = 0; w < words; w++) {
            IntVector codes = IntVector.fromArray(IS, columns, w * 16);
            int dim = w * 8;
            FloatVector v;
            v = codes.and(15).selectFrom(table).reinterpretAsFloats();
            a0 = v.fma(FloatVector.broadcast(S, x[dim]), a0);
            a1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim]), a1);
            a2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim]), a2);
            a3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim]), a3);
            v = codes.lanewise(VectorOperators.LSHR, 4).and(15).selectFrom(table).reinterpretAsFloats();
            b0 = v.fma(FloatVector.broadcast(S, x[dim + 1]), b0);
            b1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 1]), b1);
            b2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 1]), b2);
            b3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 1]), b3);
            v = codes.lanewise(VectorOperators.LSHR, 8).and(15).selectFrom(table).reinterpretAsFloats();
            a0 = v.fma(FloatVector.broadcast(S, x[dim + 2]), a0);
            a1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 2]), a1);
            a2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 2]), a2);
            a3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 2]), a3);
            v = codes.lanewise(VectorOperators.LSHR, 12).and(15).selectFrom(table).reinterpretAsFloats();
            b0 = v.fma(FloatVector.broadcast(S, x[dim + 3]), b0);
            b1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 3]), b1);
            b2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 3]), b2);
            b3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 3]), b3);
            v = codes.lanewise(VectorOperators.LSHR, 16).and(15).selectFrom(table).reinterpretAsFloats();
            a0 = v.fma(FloatVector.broadcast(S, x[dim + 4]), a0);
            a1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 4]), a1);
            a2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 4]), a2);
            a3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 4]), a3);
            v = codes.lanewise(VectorOperators.LSHR, 20).and(15).selectFrom(table).reinterpretAsFloats();
            b0 = v.fma(FloatVector.broadcast(S, x[dim + 5]), b0);
            b1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 5]), b1);
            b2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 5]), b2);
            b3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 5]), b3);
            v = codes.lanewise(VectorOperators.LSHR, 24).and(15).selectFrom(table).reinterpretAsFloats();
            a0 = v.fma(FloatVector.broadcast(S, x[dim + 6]), a0);
            a1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 6]), a1);
            a2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 6]), a2);
            a3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 6]), a3);
            v = codes.lanewise(VectorOperators.LSHR, 28).selectFrom(table).reinterpretAsFloats();
            b0 = v.fma(FloatVector.broadcast(S, x[dim + 7]), b0);
            b1 = v.fma(FloatVector.broadcast(S, x[1 * k + dim + 7]), b1);
            b2 = v.fma(FloatVector.broadcast(S, x[2 * k + dim + 7]), b2);
            b3 = v.fma(FloatVector.broadcast(S, x[3 * k + dim + 7]), b3);
        }
        a0.add(b0).intoArray(totals, 0);
        a1.add(b1).intoArray(totals, TILE);
        a2.add(b2).intoArray(totals, 2 * TILE);
        a3.add(b3).intoArray(totals, 3 * TILE);
    }
}
