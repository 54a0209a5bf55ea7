package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link QuantMatVec#vector} for several x rows (batched decode, prefill) against affine-quantized rows
 * with 2, 4 or 8-bit codes ({@link QuantMatVec#supports}): each panel of weight rows is decoded ONCE
 * into f32 values {@code fma(q, s, b)} (in the arranged order of {@link QuantMatVec#arrange}), then
 * {@link MultiRowMatVec#f32} FMAs every decoded vector into up to four x rows at a time. Decoding is
 * paid once per weight row instead of once per x row, so batch 8 costs little more than batch 1; and
 * each output is one chain over the decoded row in order, as {@link QuantRows} sums one x row, so an
 * x row gets the same bits in any batch. Callers own the arrays; thread-safe.
 */
public final class MultiRowQuantMatVec {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private MultiRowQuantMatVec() {
    }

    /**
     * Rows {@code [n0, n1)} of W against {@code rows} x rows. Row n's words start at byte
     * {@code base + n·rowBytes}; xa holds the x rows arranged by {@link QuantMatVec#arrange} (stride k);
     * results go to {@code out[m·ldo + n]}. Requires {@link QuantMatVec#supports}.
     */
    public static void vector(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] xa, int rows, int n0, int n1, float[] out, int ldo) {
        int groups = k / groupSize;
        int wordsPerGroup = groupSize * bits / 32;
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        VectorShuffle<Float> spread = QuantMatVec.spread(wordsPerGroup);
        // a panel of decoded rows: four for a few x rows, more (L2-sized) for many, which then go in tiles
        int panel = MultiRowMatVec.panel(rows, k, 4);
        float[] decoded = new float[Math.min(panel, n1 - n0) * k];
        // padded by a vector: a chunk's lane parameters are spread from one load at its first group
        float[] scales = new float[panel * groups + V];
        float[] biases = new float[panel * groups + V];
        float[] sums = MultiRowMatVec.blockSums();
        for (int n = n0; n < n1; n += panel) {
            int nb = Math.min(panel, n1 - n);
            params.loadRows(n, nb, groups, scales, biases);
            for (int j = 0; j < nb; j++) decodeRow(packed, base + (n + j) * rowBytes, bits, k, scales, biases, j * groups, gShift, spread, decoded, j * k);
            MultiRowMatVec.f32(decoded, 0, nb, k, xa, rows, out, n, ldo, sums);
        }
    }

    /**
     * One row of k codes as f32 {@code fma(q, s, b)} in arranged order at {@code dst[dstOff..]}, its
     * group parameters at {@code scales[po..]} and {@code biases[po..]}.
     */
    static void decodeRow(MemorySegment packed, long at, int bits, int k, float[] scales, float[] biases, int po, int gShift,
                          VectorShuffle<Float> spread, float[] dst, int dstOff) {
        // constant shifts per width, one method each
        switch (bits) {
            case 8 -> decode8(packed, at, k, scales, biases, po, gShift, spread, dst, dstOff);
            case 4 -> decode4(packed, at, k, scales, biases, po, gShift, spread, dst, dstOff);
            default -> decode2(packed, at, k, scales, biases, po, gShift, spread, dst, dstOff);
        }
    }

    private static void decode8(MemorySegment packed, long at, int k, float[] scales, float[] biases, int po, int gShift,
                                VectorShuffle<Float> spread, float[] dst, int dstOff) {
        for (int c = 0, word = 0; c < k; c += 4 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
            int g = po + (word >>> gShift);
            FloatVector s = spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread);
            FloatVector b = spread == null ? FloatVector.broadcast(S, biases[g]) : FloatVector.fromArray(S, biases, g).rearrange(spread);
            int o = dstOff + c;
            for (int j = 0; j < 4; j++) {
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 8 * j).and(255).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(dst, o + j * V);
            }
        }
    }

    private static void decode4(MemorySegment packed, long at, int k, float[] scales, float[] biases, int po, int gShift,
                                VectorShuffle<Float> spread, float[] dst, int dstOff) {
        for (int c = 0, word = 0; c < k; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
            int g = po + (word >>> gShift);
            FloatVector s = spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread);
            FloatVector b = spread == null ? FloatVector.broadcast(S, biases[g]) : FloatVector.fromArray(S, biases, g).rearrange(spread);
            int o = dstOff + c;
            for (int j = 0; j < 8; j++) {
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 4 * j).and(15).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(dst, o + j * V);
            }
        }
    }

    private static void decode2(MemorySegment packed, long at, int k, float[] scales, float[] biases, int po, int gShift,
                                VectorShuffle<Float> spread, float[] dst, int dstOff) {
        for (int c = 0, word = 0; c < k; c += 16 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
            int g = po + (word >>> gShift);
            FloatVector s = spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread);
            FloatVector b = spread == null ? FloatVector.broadcast(S, biases[g]) : FloatVector.fromArray(S, biases, g).rearrange(spread);
            int o = dstOff + c;
            for (int j = 0; j < 16; j++) {
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 2 * j).and(3).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(dst, o + j * V);
            }
        }
    }
}
