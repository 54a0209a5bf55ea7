package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link QuantMatVec}'s single-row loops for two weight rows at once: each x vector is loaded once
 * and FMA'd against both rows' decoded codes. {@link QuantMatVec#vector} pairs row i of its range's
 * first half with row i of its second half (two sequential streams) where this was measured to pay
 * (see there). Each writes the two rows' {@code Σ_g s_g·Σ x·(1 + q·2^-bits)} to {@code out[0]} and
 * {@code out[1]}. One method per width, like QuantMatVec's row kernels and for the same measured
 * reason: with the width as a parameter the rotations and trip counts are no longer constants (a
 * single row(bits, ...) ran 30 % slower). Stateless; thread-safe.
 */
final class QuantRowPairs {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private QuantRowPairs() {
    }

    /** Two 4-bit rows at {@code row} and {@code row + apart} (parameters at {@code po} and {@code po + groups}). */
    static void row4(MemorySegment packed, long row, long apart, int k, float[] xa, int xo, float[] scales, int po, int groups,
                     int gShift, VectorShuffle<Float> spread, float[] out) {
        FloatVector acc = FloatVector.zero(S);
        FloatVector bcc = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            IntVector u = IntVector.fromMemorySegment(IS, packed, row + apart + 4L * word, LE);
            int x = xo + c;
            FloatVector t0 = FloatVector.zero(S);
            FloatVector t1 = FloatVector.zero(S);
            FloatVector q0 = FloatVector.zero(S);
            FloatVector q1 = FloatVector.zero(S);
            for (int j = 0; j < 8; j += 2) {
                FloatVector x0 = FloatVector.fromArray(S, xa, x + j * V);
                FloatVector x1 = FloatVector.fromArray(S, xa, x + (j + 1) * V);
                t0 = w.lanewise(VectorOperators.ROL, (23 - 4 - (4 * j)) & 31).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(x0, t0);
                q0 = u.lanewise(VectorOperators.ROL, (23 - 4 - (4 * j)) & 31).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(x0, q0);
                t1 = w.lanewise(VectorOperators.ROL, (23 - 4 - (4 * j + 4)) & 31).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(x1, t1);
                q1 = u.lanewise(VectorOperators.ROL, (23 - 4 - (4 * j + 4)) & 31).and(0x780000).or(0x3f800000).reinterpretAsFloats().fma(x1, q1);
            }
            FloatVector t = t0.add(t1);
            FloatVector q = q0.add(q1);
            int g = po + (word >>> gShift);
            if (spread == null) {
                acc = t.fma(FloatVector.broadcast(S, scales[g]), acc);
                bcc = q.fma(FloatVector.broadcast(S, scales[g + groups]), bcc);
            } else {
                acc = t.fma(FloatVector.fromArray(S, scales, g).rearrange(spread), acc);
                bcc = q.fma(FloatVector.fromArray(S, scales, g + groups).rearrange(spread), bcc);
            }
        }
        out[0] = Lanes.sum(acc);
        out[1] = Lanes.sum(bcc);
    }

    /** Two 8-bit rows at {@code row} and {@code row + apart} (parameters at {@code po} and {@code po + groups}). */
    static void row8(MemorySegment packed, long row, long apart, int k, float[] xa, int xo, float[] scales, int po, int groups,
                     int wordsPerGroup, int groupsPerChunk, VectorMask<Float>[] masks, float[] out) {
        FloatVector acc = FloatVector.zero(S), acc1 = FloatVector.zero(S), acc2 = FloatVector.zero(S), acc3 = FloatVector.zero(S);
        FloatVector bcc = FloatVector.zero(S), bcc1 = FloatVector.zero(S), bcc2 = FloatVector.zero(S), bcc3 = FloatVector.zero(S);
        int chunksPerGroup = Math.max(1, wordsPerGroup / V);
        int step = wordsPerGroup >= V ? 1 : groupsPerChunk;
        for (int c = 0, word = 0, g0 = po, left = chunksPerGroup; c < k; c += 4 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            IntVector u = IntVector.fromMemorySegment(IS, packed, row + apart + 4L * word, LE);
            int x = xo + c;
            FloatVector t0 = FloatVector.zero(S);
            FloatVector t1 = FloatVector.zero(S);
            FloatVector q0 = FloatVector.zero(S);
            FloatVector q1 = FloatVector.zero(S);
            for (int j = 0; j < 4; j += 2) {
                FloatVector x0 = FloatVector.fromArray(S, xa, x + j * V);
                FloatVector x1 = FloatVector.fromArray(S, xa, x + (j + 1) * V);
                t0 = w.lanewise(VectorOperators.ROL, (23 - 8 - (8 * j)) & 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(x0, t0);
                q0 = u.lanewise(VectorOperators.ROL, (23 - 8 - (8 * j)) & 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(x0, q0);
                t1 = w.lanewise(VectorOperators.ROL, (23 - 8 - (8 * j + 8)) & 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(x1, t1);
                q1 = u.lanewise(VectorOperators.ROL, (23 - 8 - (8 * j + 8)) & 31).and(0x7f8000).or(0x3f800000).reinterpretAsFloats().fma(x1, q1);
            }
            FloatVector t = t0.add(t1);
            FloatVector q = q0.add(q1);
            int h0 = g0 + groups;
            acc = t.fma(FloatVector.broadcast(S, scales[g0]), acc);
            bcc = q.fma(FloatVector.broadcast(S, scales[h0]), bcc);
            if (groupsPerChunk > 1) {
                acc1 = t.fma(FloatVector.broadcast(S, scales[g0 + 1]), acc1);
                bcc1 = q.fma(FloatVector.broadcast(S, scales[h0 + 1]), bcc1);
                if (groupsPerChunk > 2) {
                    acc2 = t.fma(FloatVector.broadcast(S, scales[g0 + 2]), acc2);
                    acc3 = t.fma(FloatVector.broadcast(S, scales[g0 + 3]), acc3);
                    bcc2 = q.fma(FloatVector.broadcast(S, scales[h0 + 2]), bcc2);
                    bcc3 = q.fma(FloatVector.broadcast(S, scales[h0 + 3]), bcc3);
                }
            }
            if (--left == 0) {
                g0 += step;
                left = chunksPerGroup;
            }
        }
        if (groupsPerChunk > 1) {
            acc = acc.blend(acc1, masks[1]);
            bcc = bcc.blend(bcc1, masks[1]);
            if (groupsPerChunk > 2) {
                acc = acc.blend(acc2, masks[2]).blend(acc3, masks[3]);
                bcc = bcc.blend(bcc2, masks[2]).blend(bcc3, masks[3]);
            }
        }
        out[0] = Lanes.sum(acc);
        out[1] = Lanes.sum(bcc);
    }

    /** Two 2-bit rows at {@code row} and {@code row + apart} (parameters at {@code po} and {@code po + groups}). */
    static void row2(MemorySegment packed, long row, long apart, int k, float[] xa, int xo, float[] scales, int po, int groups,
                     int gShift, VectorShuffle<Float> spread, float[] out) {
        FloatVector acc = FloatVector.zero(S);
        FloatVector bcc = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 16 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            IntVector u = IntVector.fromMemorySegment(IS, packed, row + apart + 4L * word, LE);
            int x = xo + c;
            FloatVector t0 = FloatVector.zero(S);
            FloatVector t1 = FloatVector.zero(S);
            FloatVector q0 = FloatVector.zero(S);
            FloatVector q1 = FloatVector.zero(S);
            for (int j = 0; j < 16; j += 2) {
                FloatVector x0 = FloatVector.fromArray(S, xa, x + j * V);
                FloatVector x1 = FloatVector.fromArray(S, xa, x + (j + 1) * V);
                t0 = w.lanewise(VectorOperators.ROL, (23 - 2 - (2 * j)) & 31).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(x0, t0);
                q0 = u.lanewise(VectorOperators.ROL, (23 - 2 - (2 * j)) & 31).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(x0, q0);
                t1 = w.lanewise(VectorOperators.ROL, (23 - 2 - (2 * j + 2)) & 31).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(x1, t1);
                q1 = u.lanewise(VectorOperators.ROL, (23 - 2 - (2 * j + 2)) & 31).and(0x600000).or(0x3f800000).reinterpretAsFloats().fma(x1, q1);
            }
            FloatVector t = t0.add(t1);
            FloatVector q = q0.add(q1);
            int g = po + (word >>> gShift);
            if (spread == null) {
                acc = t.fma(FloatVector.broadcast(S, scales[g]), acc);
                bcc = q.fma(FloatVector.broadcast(S, scales[g + groups]), bcc);
            } else {
                acc = t.fma(FloatVector.fromArray(S, scales, g).rearrange(spread), acc);
                bcc = q.fma(FloatVector.fromArray(S, scales, g + groups).rearrange(spread), bcc);
            }
        }
        out[0] = Lanes.sum(acc);
        out[1] = Lanes.sum(bcc);
    }
}
