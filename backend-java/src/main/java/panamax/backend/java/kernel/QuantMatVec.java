package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code out[m, n] = Σ_k x[m, k]·(q[n, k]·s + b)} for affine-quantized rows W[n] with 2, 4 or
 * 8-bit codes (no straddling): each chunk of V words is loaded once, every code position costs a
 * shift, a mask, a conversion and {@code fma(q, s, b)}, then an fma against x pre-arranged by
 * {@link #arrange} (lane l of position j holds element l·(32/bits)+j). Each output is summed in one
 * order for any number of x rows ({@link #vector}). Other widths use {@link #generic}.
 */
public final class QuantMatVec {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final java.nio.ByteOrder LE = java.nio.ByteOrder.LITTLE_ENDIAN;

    private QuantMatVec() {
    }

    /** True when the vector kernel handles {@code bits} with rows of {@code k} codes. */
    public static boolean supports(int bits, int k, int groupSize) {
        if (bits != 2 && bits != 4 && bits != 8 || S.length() != V) return false;
        int perChunk = V * (32 / bits);
        int wordsPerGroup = groupSize * bits / 32;
        return k % perChunk == 0 && (wordsPerGroup % V == 0 || V % wordsPerGroup == 0 && V / wordsPerGroup <= 4);
    }

    /** Rearranges {@code k} values of x so chunk c, code position j, lane l holds {@code x[c·E + l·cpw + j]}. */
    public static void arrange(float[] x, int xOff, int k, int bits, float[] dst, int dstOff) {
        int cpw = 32 / bits;
        int perChunk = V * cpw;
        for (int c = 0; c < k; c += perChunk) {
            for (int j = 0; j < cpw; j++) {
                for (int l = 0; l < V; l++) dst[dstOff + c + j * V + l] = x[xOff + c + l * cpw + j];
            }
        }
    }

    /**
     * Rows {@code [n0, n1)} of W against {@code rows} x rows. Row n's words start at byte
     * {@code base + n·rowBytes}; xa holds arranged x rows (stride k); results go to
     * {@code out[m·ldo + n]}. Each output is the dot product of its x row and the weight row decoded
     * as {@code fma(q, s, b)} per code (in arranged order), one FMA chain over it in order, then
     * {@link Lanes#sum}: one order whatever the number of x rows, so an x row gets the same bits alone
     * and in any batch. One x row of 8-bit codes takes {@link QuantRows} (four weight rows at once,
     * codes decoded in registers); the rest take {@link MultiRowQuantMatVec} (each weight row decoded
     * once into a panel for all x rows).
     */
    public static void vector(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] xa, int rows, int n0, int n1, float[] out, int ldo) {
        if (rows != 1 || bits != 8) {
            // 2 and 4-bit rows: the decoded panel measured faster for one x row too (8 or 16 code
            // positions per word, decoded in registers for four rows, did not fit the registers)
            MultiRowQuantMatVec.vector(packed, base, rowBytes, bits, groupSize, k, params, xa, rows, n0, n1, out, ldo);
            return;
        }
        int groups = k / groupSize;
        // a tile's group parameters are widened in one pass (rows lie back to back): row by row, a
        // 256-wide row's 4 groups went through the scalar tails of the widening loop, and per-row
        // costs were half of a small model's matvec time. Padded by a vector: a chunk's lane
        // parameters are spread from one load at its first group
        float[] scales = new float[TILE * groups + V];
        float[] biases = new float[TILE * groups + V];
        float[] sums = new float[4];
        int wordsPerGroup = groupSize * bits / 32;
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        VectorShuffle<Float> spread = spread(wordsPerGroup);
        int n = n0;
        while (n1 - n >= 4) {
            int tile = Math.min(TILE, (n1 - n) / 4 * 4);
            params.loadRows(n, tile, groups, scales, biases);
            for (int j = 0; j < tile; j += 4) {
                long row = base + (n + j) * rowBytes;
                QuantRows.rows8(packed, row, rowBytes, k, xa, 0, scales, biases, j * groups, groups, gShift, spread, sums);
                System.arraycopy(sums, 0, out, n + j, 4);
            }
            n += tile;
        }
        if (n < n1) MultiRowQuantMatVec.vector(packed, base, rowBytes, bits, groupSize, k, params, xa, 1, n, n1, out, ldo);
    }

    /** Weight rows whose group parameters are widened together. */
    static final int TILE = 16;

    /**
     * The lane-scale spread of a chunk holding several groups: lane l takes the scale of group
     * {@code l / wordsPerGroup} after the chunk's first; null where one group spans the chunk (its
     * scale is broadcast: a permute per chunk cost 2048-wide q8 rows 25 %).
     */
    static VectorShuffle<Float> spread(int wordsPerGroup) {
        return wordsPerGroup < V ? VectorShuffle.fromOp(S, l -> l / wordsPerGroup) : null;
    }

    /** Inverse of {@link #arrange}: natural order from arranged order. */
    public static void unarrange(float[] src, int srcOff, int k, int bits, float[] dst, int dstOff) {
        int cpw = 32 / bits;
        int perChunk = V * cpw;
        for (int c = 0; c < k; c += perChunk) {
            for (int j = 0; j < cpw; j++) {
                for (int l = 0; l < V; l++) dst[dstOff + c + l * cpw + j] = src[srcOff + c + j * V + l];
            }
        }
    }

    /**
     * Any width: dequantizes panels of rows to f32 ({@code q·s + b}, MLX's rounding) then takes dot
     * products ({@link MultiRowMatVec#f32}: {@link MatVec#dot}'s bits for every x row). x rows in
     * natural order, stride k.
     */
    public static void generic(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                               float[] x, int rows, int n0, int n1, float[] out, int ldo) {
        int groups = k / groupSize;
        float[] scales = new float[groups];
        float[] biases = new float[groups];
        int[] codes = new int[k];
        int panel = MultiRowMatVec.panel(rows, k, 4);
        float[] w = new float[Math.min(panel, Math.max(n1 - n0, 0)) * k];
        float[] sums = MultiRowMatVec.blockSums();
        for (int n = n0; n < n1; n += panel) {
            int nb = Math.min(panel, n1 - n);
            for (int j = 0; j < nb; j++) {
                params.load(n + j, scales, biases);
                AffineCodes.dequantize(packed, base + (n + j) * rowBytes, bits, groupSize, scales, biases, 0, k, codes, w, j * k);
            }
            MultiRowMatVec.f32(w, 0, nb, k, x, rows, out, n, ldo, sums);
        }
    }
}
