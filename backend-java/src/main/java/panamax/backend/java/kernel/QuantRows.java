package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link QuantMatVec}'s one-x-row kernel for 8-bit rows: four weight rows at a time, each chunk of V words loaded
 * once per row and its codes decoded in registers — a shift, a mask and a conversion per code
 * position, then {@code w = fma(q, s, b)} with the lane's group scale and bias — and FMA'd against x
 * pre-arranged by {@link QuantMatVec#arrange}, the x vector shared by the four rows, four chains in
 * flight. Each element is one chain over its chunks and their code positions in order, then
 * {@link Lanes#sum}: the values and the order {@link MultiRowQuantMatVec} uses for many x rows, so a
 * row gets the same bits alone and in a batch. 2 and 4-bit rows measured faster through
 * {@link MultiRowQuantMatVec}'s decoded panel even for one x row (their 8 or 16 code positions per
 * word for four rows at once spilled registers), so only the 8-bit width is here, its shifts and trip
 * count constant. Stateless; thread-safe.
 */
final class QuantRows {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private QuantRows() {
    }

    /** Four 8-bit rows from byte {@code row} ({@code ld} apart) × the x row at {@code xa[xo..]}; parameters at {@code po + i·groups}. */
    static void rows8(MemorySegment packed, long row, long ld, int k, float[] xa, int xo, float[] scales, float[] biases, int po, int groups,
                      int gShift, VectorShuffle<Float> spread, float[] out) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        long r1 = row + ld, r2 = r1 + ld, r3 = r2 + ld;
        for (int c = 0, word = 0; c < k; c += 4 * V, word += V) {
            IntVector w0 = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE), w1 = IntVector.fromMemorySegment(IS, packed, r1 + 4L * word, LE);
            IntVector w2 = IntVector.fromMemorySegment(IS, packed, r2 + 4L * word, LE), w3 = IntVector.fromMemorySegment(IS, packed, r3 + 4L * word, LE);
            int g = po + (word >>> gShift);
            FloatVector s0 = spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread);
            FloatVector b0 = spread == null ? FloatVector.broadcast(S, biases[g]) : FloatVector.fromArray(S, biases, g).rearrange(spread);
            FloatVector s1 = spread == null ? FloatVector.broadcast(S, scales[g + groups]) : FloatVector.fromArray(S, scales, g + groups).rearrange(spread);
            FloatVector b1 = spread == null ? FloatVector.broadcast(S, biases[g + groups]) : FloatVector.fromArray(S, biases, g + groups).rearrange(spread);
            FloatVector s2 = spread == null ? FloatVector.broadcast(S, scales[g + 2 * groups]) : FloatVector.fromArray(S, scales, g + 2 * groups).rearrange(spread);
            FloatVector b2 = spread == null ? FloatVector.broadcast(S, biases[g + 2 * groups]) : FloatVector.fromArray(S, biases, g + 2 * groups).rearrange(spread);
            FloatVector s3 = spread == null ? FloatVector.broadcast(S, scales[g + 3 * groups]) : FloatVector.fromArray(S, scales, g + 3 * groups).rearrange(spread);
            FloatVector b3 = spread == null ? FloatVector.broadcast(S, biases[g + 3 * groups]) : FloatVector.fromArray(S, biases, g + 3 * groups).rearrange(spread);
            for (int j = 0; j < 4; j++) {
                FloatVector x = FloatVector.fromArray(S, xa, xo + c + j * V);
                a0 = ((FloatVector) w0.lanewise(VectorOperators.LSHR, 8 * j).and(255).convert(VectorOperators.I2F, 0)).fma(s0, b0).fma(x, a0);
                a1 = ((FloatVector) w1.lanewise(VectorOperators.LSHR, 8 * j).and(255).convert(VectorOperators.I2F, 0)).fma(s1, b1).fma(x, a1);
                a2 = ((FloatVector) w2.lanewise(VectorOperators.LSHR, 8 * j).and(255).convert(VectorOperators.I2F, 0)).fma(s2, b2).fma(x, a2);
                a3 = ((FloatVector) w3.lanewise(VectorOperators.LSHR, 8 * j).and(255).convert(VectorOperators.I2F, 0)).fma(s3, b3).fma(x, a3);
            }
        }
        out[0] = Lanes.sum(a0);
        out[1] = Lanes.sum(a1);
        out[2] = Lanes.sum(a2);
        out[3] = Lanes.sum(a3);
    }
}
