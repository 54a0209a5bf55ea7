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
 * {@code acc[r, ·] += Σ_t x[r, t]·W[t, ·]} for up to four rows of x against short affine rows of 2, 4
 * or 8-bit codes: attention's p·V over an affine-quantized cache (a row is one token's head). Since
 * {@code q·s + b = 2^bits·s·f + (b − 2^bits·s)} with {@code f = 1 + q·2^-bits}, each code vector is
 * decoded once by {@link QuantMatVec}'s bit placement (a rotate and one ternary-logic op) and FMA'd
 * into the four rows with the per-lane weight {@code x·2^bits·s}; the group-constant part is one
 * scalar per row and group. The sums are kept in the arranged order of {@link QuantMatVec#arrange}
 * (callers restore the natural order once with {@link QuantMatVec#unarrange}). Callers own every
 * array; stateless, thread-safe.
 */
public final class AffineValues {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** x rows per call: the query rows of a GQA group, as for the scores. */
    public static final int ROWS = AffineScores.ROWS;
    /** Tokens whose group parameters are widened together. */
    private static final int TILE = 64;
    /** Code positions accumulated per pass: four per x row keeps 16 accumulators in registers. */
    private static final int POSITIONS = 4;

    private AffineValues() {
    }

    /** The rows {@link AffineScores} serves: 2, 4 and 8-bit, n ≤ 512 codes, in the layouts {@link QuantMatVec} decodes. */
    public static boolean supports(int bits, int n, int groupSize) {
        return n <= 512 && QuantMatVec.supports(bits, n, groupSize);
    }

    /**
     * Adds tokens {@code [k0, k1)} into {@code acc} ({@code ROWS·n} floats, row r's sums at
     * {@code [r·n, (r+1)·n)} in arranged order) and their group-constant parts into {@code biasAcc}
     * ({@code ROWS·groups}, natural group order). x holds {@code m} rows of k weights (rows past m
     * count as zero); W row t starts at byte {@code base + t·rowBytes}.
     */
    public static void accumulate(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int n, RowScales params,
                                  float[] x, int m, int k, int k0, int k1, float[] acc, float[] biasAcc) {
        int groups = n / groupSize;
        int wordsPerGroup = groupSize * bits / 32;
        int cpw = 32 / bits;
        float unit = 1 << bits;
        int mask = ((1 << bits) - 1) << (23 - bits);
        float[] scales = new float[TILE * groups + V];
        float[] biases = new float[TILE * groups];
        float[] weights = new float[ROWS * TILE];      // x·2^bits per row and token (rows past m stay zero)
        // b − 2^bits·s of the tile's tokens, group-major ([g·TILE + token]), and the group-constant
        // sums Σ_t x·(b − 2^bits·s) kept per lane ([(r·groups + g)·lanes + lane]) until the end: vector
        // FMAs over sixteen tokens (a scalar loop over rows and groups per token cost as much as the codes)
        float[] offsets = new float[TILE * groups];
        int lanes = S.length();
        float[] biasLanes = new float[ROWS * groups * lanes];
        VectorShuffle<Float> spread = wordsPerGroup < V ? VectorShuffle.fromOp(S, l -> l / wordsPerGroup) : null;
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        for (int t0 = k0; t0 < k1; t0 += TILE) {
            int tile = Math.min(TILE, k1 - t0);
            params.loadRows(t0, tile, groups, scales, biases);
            for (int g = 0; g < groups; g++) {
                for (int t = 0; t < tile; t++) offsets[g * TILE + t] = biases[t * groups + g] - unit * scales[t * groups + g];
            }
            for (int r = 0; r < m; r++) {
                for (int t = 0; t < tile; t += lanes) {
                    VectorMask<Float> in = S.indexInRange(t, tile);
                    FloatVector p = FloatVector.fromArray(S, x, r * k + t0 + t, in);
                    p.mul(unit).intoArray(weights, r * TILE + t);
                    for (int g = 0; g < groups; g++) {
                        int at = (r * groups + g) * lanes;
                        p.fma(FloatVector.fromArray(S, offsets, g * TILE + t, in), FloatVector.fromArray(S, biasLanes, at))
                                .intoArray(biasLanes, at);
                    }
                }
            }
            for (int c = 0, word = 0; c < n; c += cpw * V, word += V) {
                for (int p0 = 0; p0 < cpw; p0 += POSITIONS) {
                    // rotations that bring positions p0..p0+3 under the exponent (loop-invariant in the pass)
                    int rot = 23 - bits - bits * p0;
                    pass(packed, base + t0 * rowBytes, rowBytes, tile, word, rot & 31, (rot - bits) & 31, (rot - 2 * bits) & 31,
                            (rot - 3 * bits) & 31, mask, scales, groups, gShift, spread, weights, acc, n, c + p0 * V);
                }
            }
        }
        for (int i = 0; i < ROWS * groups; i++) {
            float sum = 0;
            for (int l = 0; l < lanes; l++) sum += biasLanes[i * lanes + l];
            biasAcc[i] += sum;
        }
    }

    /**
     * Four code positions of one chunk (word {@code word} of each row) for {@code tile} tokens from
     * byte {@code at}: sums of row r, position p at {@code acc[r·n + out + p·V ...]}.
     */
    private static void pass(MemorySegment packed, long at, long rowBytes, int tile, int word, int rot0, int rot1, int rot2, int rot3,
                             int mask, float[] scales, int groups, int gShift, VectorShuffle<Float> spread, float[] weights,
                             float[] acc, int n, int out) {
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
            FloatVector sv = laneScales(scales, t * groups, word, gShift, spread);
            FloatVector w0 = sv.mul(weights[t]), w1 = sv.mul(weights[TILE + t]);
            FloatVector w2 = sv.mul(weights[2 * TILE + t]), w3 = sv.mul(weights[3 * TILE + t]);
            FloatVector f = w.lanewise(VectorOperators.ROL, rot0).and(mask).or(0x3f800000).reinterpretAsFloats();
            a00 = f.fma(w0, a00); a10 = f.fma(w1, a10); a20 = f.fma(w2, a20); a30 = f.fma(w3, a30);
            f = w.lanewise(VectorOperators.ROL, rot1).and(mask).or(0x3f800000).reinterpretAsFloats();
            a01 = f.fma(w0, a01); a11 = f.fma(w1, a11); a21 = f.fma(w2, a21); a31 = f.fma(w3, a31);
            f = w.lanewise(VectorOperators.ROL, rot2).and(mask).or(0x3f800000).reinterpretAsFloats();
            a02 = f.fma(w0, a02); a12 = f.fma(w1, a12); a22 = f.fma(w2, a22); a32 = f.fma(w3, a32);
            f = w.lanewise(VectorOperators.ROL, rot3).and(mask).or(0x3f800000).reinterpretAsFloats();
            a03 = f.fma(w0, a03); a13 = f.fma(w1, a13); a23 = f.fma(w2, a23); a33 = f.fma(w3, a33);
        }
        a00.intoArray(acc, out); a01.intoArray(acc, out + V); a02.intoArray(acc, out + 2 * V); a03.intoArray(acc, out + 3 * V);
        a10.intoArray(acc, n + out); a11.intoArray(acc, n + out + V); a12.intoArray(acc, n + out + 2 * V); a13.intoArray(acc, n + out + 3 * V);
        a20.intoArray(acc, 2 * n + out); a21.intoArray(acc, 2 * n + out + V); a22.intoArray(acc, 2 * n + out + 2 * V); a23.intoArray(acc, 2 * n + out + 3 * V);
        a30.intoArray(acc, 3 * n + out); a31.intoArray(acc, 3 * n + out + V); a32.intoArray(acc, 3 * n + out + 2 * V); a33.intoArray(acc, 3 * n + out + 3 * V);
    }

    /**
     * The scale of each lane of the chunk starting at word {@code word} of a row whose group scales
     * start at {@code scales[po]}: one group's scale broadcast, or (several groups per chunk) spread.
     */
    private static FloatVector laneScales(float[] scales, int po, int word, int gShift, VectorShuffle<Float> spread) {
        int g = po + (word >>> gShift);
        return spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread);
    }

    /**
     * The natural-order result of one row: {@code dst[j] = unarranged acc[r] + biasAcc[r, group of j]}
     * for {@code j < n}.
     */
    public static void finish(float[] acc, float[] biasAcc, int r, int bits, int groupSize, int n, float[] dst, int dstOff) {
        int groups = n / groupSize;
        QuantMatVec.unarrange(acc, r * n, n, bits, dst, dstOff);
        for (int j = 0; j < n; j++) dst[dstOff + j] += biasAcc[r * groups + j / groupSize];
    }
}
