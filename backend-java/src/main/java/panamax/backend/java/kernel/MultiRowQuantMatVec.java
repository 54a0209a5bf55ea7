package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code out[m, n] = Σ_k x[m, k]·(q[n, k]·s + b)} for several x rows (batched decode) against
 * affine-quantized rows with 2, 4 or 8-bit codes ({@link QuantMatVec#supports}): each block of four
 * weight rows is decoded ONCE into an f32 scratch (in the arranged order of
 * {@link QuantMatVec#arrange}, by the same bit-placement trick as {@link QuantMatVec}: a rotate, one
 * ternary-logic op and one fma per code vector), then {@link MultiRowMatVec#f32} FMAs every decoded
 * vector into four x rows at a time. Decoding is thus paid once per weight row instead of once per
 * x row, so batch 8 costs little more than batch 1. Callers own the arrays; thread-safe.
 */
public final class MultiRowQuantMatVec {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Weight rows decoded together. */
    private static final int BLOCK = 4;

    private MultiRowQuantMatVec() {
    }

    /**
     * Rows {@code [n0, n1)} of W against {@code rows} x rows. Row n's words start at byte
     * {@code base + n·rowBytes}; xa holds the x rows arranged by {@link QuantMatVec#arrange}
     * (stride k); results go to {@code out[m·ldo + n]}. Requires {@link QuantMatVec#supports}.
     */
    public static void vector(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] xa, int rows, int n0, int n1, float[] out, int ldo) {
        int groups = k / groupSize;
        float[] scales = new float[groups];
        float[] biases = new float[groups];
        int words = k * bits / 32;
        // per-word-lane scales and biases, then the per-group values (padded for a full vector load)
        float[] laneScale = new float[words + groups + V];
        float[] laneBias = new float[words + groups + V];
        float[] decoded = new float[BLOCK * k];
        float[] sums = MultiRowMatVec.blockSums();
        for (int n = n0; n < n1; n += BLOCK) {
            int nb = Math.min(BLOCK, n1 - n);
            for (int j = 0; j < nb; j++) {
                params.load(n + j, scales, biases);
                decodeRow(packed, base + (n + j) * rowBytes, bits, groupSize, k, scales, biases, laneScale, laneBias, decoded, j * k);
            }
            MultiRowMatVec.f32(decoded, 0, nb, k, xa, rows, out, n, ldo, sums);
        }
    }

    private static int words(int k, int bits) {
        return k * bits / 32;
    }

    /**
     * One row of k codes as f32 {@code 2^b·s·f + (b − 2^b·s)} with {@code f = 1 + q·2^-b} (within
     * an ulp or two of MLX's {@code q·s + b}) in arranged order, at {@code dst[dstOff..]}.
     */
    static void decodeRow(MemorySegment packed, long at, int bits, int groupSize, int k, float[] scales, float[] biases,
                          float[] laneScale, float[] laneBias, float[] dst, int dstOff) {
        int cpw = 32 / bits;
        int wordsPerGroup = groupSize * bits / 32;
        float unit = 1 << bits;
        boolean perLane = wordsPerGroup < V;
        if (perLane) {
            // several groups share one chunk: a scale/bias per word lane, expanded from the group
            // values by one permute per chunk (no scalar loop over words)
            int groups = k / groupSize;
            for (int g = 0; g < groups; g++) {
                laneScale[words(k, bits) + g] = unit * scales[g];
                laneBias[words(k, bits) + g] = biases[g] - unit * scales[g];
            }
            VectorShuffle<Float> spread = VectorShuffle.fromOp(S, l -> l / wordsPerGroup);
            int perChunk = V / wordsPerGroup;
            for (int word = 0, g = words(k, bits); word < k / cpw; word += V, g += perChunk) {
                FloatVector.fromArray(S, laneScale, g).rearrange(spread).intoArray(laneScale, word);
                FloatVector.fromArray(S, laneBias, g).rearrange(spread).intoArray(laneBias, word);
            }
        }
        // constant shifts per width (a loop-variant rotate count is not intrinsified well), and two
        // loops rather than one branch: a vector merged from two branches would be boxed by C2
        switch (bits) {
            case 8 -> decode8(packed, at, k, wordsPerGroup, perLane, scales, biases, laneScale, laneBias, dst, dstOff);
            case 4 -> decode4(packed, at, k, wordsPerGroup, perLane, scales, biases, laneScale, laneBias, dst, dstOff);
            default -> decode2(packed, at, k, wordsPerGroup, perLane, scales, biases, laneScale, laneBias, dst, dstOff);
        }
    }

    private static void decode8(MemorySegment packed, long at, int k, int wordsPerGroup, boolean perLane, float[] scales,
                                float[] biases, float[] laneScale, float[] laneBias, float[] dst, int dstOff) {
        if (perLane) {
            for (int c = 0, word = 0; c < k; c += 4 * V, word += V) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
                FloatVector sv = FloatVector.fromArray(S, laneScale, word);
                FloatVector bv = FloatVector.fromArray(S, laneBias, word);
                int o = dstOff + c;
                w.lanewise(VectorOperators.ROL, 15).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 0 * V);
                w.lanewise(VectorOperators.ROL, 7).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 1 * V);
                w.lanewise(VectorOperators.ROL, 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 2 * V);
                w.lanewise(VectorOperators.ROL, 23).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 3 * V);
            }
        } else {
            // the group advances every wordsPerGroup / V chunks: counted, not divided
            int chunksPerGroup = wordsPerGroup / V;
            for (int c = 0, word = 0, g = 0, left = chunksPerGroup; c < k; c += 4 * V, word += V) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
                FloatVector sv = FloatVector.broadcast(S, 256f * scales[g]);
                FloatVector bv = FloatVector.broadcast(S, biases[g] - 256f * scales[g]);
                int o = dstOff + c;
                w.lanewise(VectorOperators.ROL, 15).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 0 * V);
                w.lanewise(VectorOperators.ROL, 7).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 1 * V);
                w.lanewise(VectorOperators.ROL, 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 2 * V);
                w.lanewise(VectorOperators.ROL, 23).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 3 * V);
                if (--left == 0) {
                    g++;
                    left = chunksPerGroup;
                }
            }
        }
    }

    private static void decode4(MemorySegment packed, long at, int k, int wordsPerGroup, boolean perLane, float[] scales,
                                float[] biases, float[] laneScale, float[] laneBias, float[] dst, int dstOff) {
        if (perLane) {
            for (int c = 0, word = 0; c < k; c += 8 * V, word += V) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
                FloatVector sv = FloatVector.fromArray(S, laneScale, word);
                FloatVector bv = FloatVector.fromArray(S, laneBias, word);
                int o = dstOff + c;
                w.lanewise(VectorOperators.ROL, 19).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 0 * V);
                w.lanewise(VectorOperators.ROL, 15).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 1 * V);
                w.lanewise(VectorOperators.ROL, 11).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 2 * V);
                w.lanewise(VectorOperators.ROL, 7).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 3 * V);
                w.lanewise(VectorOperators.ROL, 3).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 4 * V);
                w.lanewise(VectorOperators.ROL, 31).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 5 * V);
                w.lanewise(VectorOperators.ROL, 27).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 6 * V);
                w.lanewise(VectorOperators.ROL, 23).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 7 * V);
            }
        } else {
            // the group advances every wordsPerGroup / V chunks: counted, not divided
            int chunksPerGroup = wordsPerGroup / V;
            for (int c = 0, word = 0, g = 0, left = chunksPerGroup; c < k; c += 8 * V, word += V) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
                FloatVector sv = FloatVector.broadcast(S, 16f * scales[g]);
                FloatVector bv = FloatVector.broadcast(S, biases[g] - 16f * scales[g]);
                int o = dstOff + c;
                w.lanewise(VectorOperators.ROL, 19).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 0 * V);
                w.lanewise(VectorOperators.ROL, 15).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 1 * V);
                w.lanewise(VectorOperators.ROL, 11).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 2 * V);
                w.lanewise(VectorOperators.ROL, 7).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 3 * V);
                w.lanewise(VectorOperators.ROL, 3).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 4 * V);
                w.lanewise(VectorOperators.ROL, 31).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 5 * V);
                w.lanewise(VectorOperators.ROL, 27).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 6 * V);
                w.lanewise(VectorOperators.ROL, 23).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 7 * V);
                if (--left == 0) {
                    g++;
                    left = chunksPerGroup;
                }
            }
        }
    }

    private static void decode2(MemorySegment packed, long at, int k, int wordsPerGroup, boolean perLane, float[] scales,
                                float[] biases, float[] laneScale, float[] laneBias, float[] dst, int dstOff) {
        if (perLane) {
            for (int c = 0, word = 0; c < k; c += 16 * V, word += V) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
                FloatVector sv = FloatVector.fromArray(S, laneScale, word);
                FloatVector bv = FloatVector.fromArray(S, laneBias, word);
                int o = dstOff + c;
                w.lanewise(VectorOperators.ROL, 21).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 0 * V);
                w.lanewise(VectorOperators.ROL, 19).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 1 * V);
                w.lanewise(VectorOperators.ROL, 17).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 2 * V);
                w.lanewise(VectorOperators.ROL, 15).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 3 * V);
                w.lanewise(VectorOperators.ROL, 13).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 4 * V);
                w.lanewise(VectorOperators.ROL, 11).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 5 * V);
                w.lanewise(VectorOperators.ROL, 9).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 6 * V);
                w.lanewise(VectorOperators.ROL, 7).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 7 * V);
                w.lanewise(VectorOperators.ROL, 5).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 8 * V);
                w.lanewise(VectorOperators.ROL, 3).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 9 * V);
                w.lanewise(VectorOperators.ROL, 1).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 10 * V);
                w.lanewise(VectorOperators.ROL, 31).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 11 * V);
                w.lanewise(VectorOperators.ROL, 29).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 12 * V);
                w.lanewise(VectorOperators.ROL, 27).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 13 * V);
                w.lanewise(VectorOperators.ROL, 25).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 14 * V);
                w.lanewise(VectorOperators.ROL, 23).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 15 * V);
            }
        } else {
            // the group advances every wordsPerGroup / V chunks: counted, not divided
            int chunksPerGroup = wordsPerGroup / V;
            for (int c = 0, word = 0, g = 0, left = chunksPerGroup; c < k; c += 16 * V, word += V) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, at + 4L * word, LE);
                FloatVector sv = FloatVector.broadcast(S, 4f * scales[g]);
                FloatVector bv = FloatVector.broadcast(S, biases[g] - 4f * scales[g]);
                int o = dstOff + c;
                w.lanewise(VectorOperators.ROL, 21).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 0 * V);
                w.lanewise(VectorOperators.ROL, 19).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 1 * V);
                w.lanewise(VectorOperators.ROL, 17).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 2 * V);
                w.lanewise(VectorOperators.ROL, 15).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 3 * V);
                w.lanewise(VectorOperators.ROL, 13).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 4 * V);
                w.lanewise(VectorOperators.ROL, 11).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 5 * V);
                w.lanewise(VectorOperators.ROL, 9).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 6 * V);
                w.lanewise(VectorOperators.ROL, 7).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 7 * V);
                w.lanewise(VectorOperators.ROL, 5).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 8 * V);
                w.lanewise(VectorOperators.ROL, 3).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 9 * V);
                w.lanewise(VectorOperators.ROL, 1).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 10 * V);
                w.lanewise(VectorOperators.ROL, 31).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 11 * V);
                w.lanewise(VectorOperators.ROL, 29).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 12 * V);
                w.lanewise(VectorOperators.ROL, 27).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 13 * V);
                w.lanewise(VectorOperators.ROL, 25).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 14 * V);
                w.lanewise(VectorOperators.ROL, 23).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(sv, bv).intoArray(dst, o + 15 * V);
                if (--left == 0) {
                    g++;
                    left = chunksPerGroup;
                }
            }
        }
    }
}
