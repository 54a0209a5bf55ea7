package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code out[m, n] = Σ_k x[m, k]·(q[n, k]·s + b)} for affine-quantized rows W[n] with 2, 4 or
 * 8-bit codes (no straddling). Per group the sum is refactored as {@code s·Σ x·q + b·Σ x}, and
 * {@code Σ x·q} as {@code 2^bits·(Σ x·f − Σ x)} with {@code f = 1 + q·2^-bits} built by bit
 * placement: each chunk of V words is loaded once, every code position costs a shift, one
 * ternary-logic op and an fma against x pre-arranged by {@link #arrange} (lane l of position j holds
 * element l·(32/bits)+j); the group sums of x come from {@link #groupSums}. Other widths use
 * {@link #generic}.
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

    /** Sums of x over each group of {@code groupSize}. */
    public static void groupSums(float[] x, int xOff, int k, int groupSize, float[] dst, int dstOff) {
        for (int g = 0; g < k / groupSize; g++) {
            float s = 0;
            for (int i = 0; i < groupSize; i++) s += x[xOff + g * groupSize + i];
            dst[dstOff + g] = s;
        }
    }

    /**
     * Rows {@code [n0, n1)} of W against {@code rows} x rows. Row n's words start at byte
     * {@code base + n·rowBytes}; xa holds arranged x rows (stride k), sums their group sums
     * (stride k/groupSize); results go to {@code out[m·ldo + n]}.
     */
    public static void vector(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] xa, float[] sums, int rows, int n0, int n1, float[] out, int ldo) {
        int groups = k / groupSize;
        // a tile's group parameters are widened in one pass (rows lie back to back): row by row, a
        // 256-wide row's 4 groups went through the scalar tails of the widening loop, and per-row
        // costs were half of a small model's matvec time. A tile holds 8 rows of each half.
        // padded by a vector: a chunk's lane scales are spread from one load at its first group
        float[] scales = new float[TILE * groups + V];
        float[] biases = new float[TILE * groups];
        float[] scalesB = new float[TILE / 2 * groups];
        float[] biasesB = new float[TILE / 2 * groups];
        float[] acc = new float[2];
        int wordsPerGroup = groupSize * bits / 32;
        // 2 and 4-bit chunks (several groups at g64) take their lane scales from one spread load;
        // 8-bit ones (one group at g64) keep one accumulator per group slot, broadcast scales
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        VectorShuffle<Float> spread = spread(wordsPerGroup);
        int groupsPerChunk = Math.max(1, V / wordsPerGroup);
        VectorMask<Float>[] laneMasks = laneMasks(wordsPerGroup, groupsPerChunk);
        float unit = 1 << bits;
        // Weight rows go in pairs that share their x loads (row i of the range's first half with
        // row i of its second half, two sequential streams) where that was measured to pay: short
        // rows, whose per-row costs dominate (the demo model's matvecs: -33 %), and long ones,
        // whose x does not stay in L1 (8192-wide q8: -25 %). 2048-wide q8 rows streamed from DRAM
        // ran 25 % slower in pairs, so mid-sized rows go one at a time.
        boolean pairs = k >= 4096 || rowBytes <= 1024;
        int half = pairs ? (n1 - n0) / 2 : 0;
        int pairTile = TILE / 2;
        for (int a = 0; a < half; a += pairTile) {
            int tile = Math.min(pairTile, half - a);
            params.loadRows(n0 + a, tile, groups, scales, biases);
            params.loadRows(n0 + half + a, tile, groups, scalesB, biasesB);
            System.arraycopy(scalesB, 0, scales, tile * groups, tile * groups);
            System.arraycopy(biasesB, 0, biases, tile * groups, tile * groups);
            int apartGroups = tile * groups;
            long apart = (long) half * rowBytes;
            for (int j = 0; j < tile; j++) {
                long row = base + (n0 + a + j) * rowBytes;
                int po = j * groups;
                for (int m = 0; m < rows; m++) {
                    int xo = m * k;
                    switch (bits) {
                        case 4 -> QuantRowPairs.row4(packed, row, apart, k, xa, xo, scales, po, apartGroups, gShift, spread, acc);
                        case 8 -> QuantRowPairs.row8(packed, row, apart, k, xa, xo, scales, po, apartGroups, wordsPerGroup, groupsPerChunk, laneMasks, acc);
                        default -> QuantRowPairs.row2(packed, row, apart, k, xa, xo, scales, po, apartGroups, gShift, spread, acc);
                    }
                    out[m * ldo + n0 + a + j] = unit * acc[0] + biasTerm(unit, scales, biases, po, sums, m * groups, groups);
                    out[m * ldo + n0 + half + a + j] = unit * acc[1] + biasTerm(unit, scales, biases, po + apartGroups, sums, m * groups, groups);
                }
            }
        }
        // single rows: a tile's parameters at once only when rows have few groups (below a vector's
        // worth the widening runs scalar tails); wider rows load theirs just before their codes,
        // which measured 10 % faster for 2048-wide q8 rows streamed from huge pages
        int tileRows = groups < S.length() ? TILE : 1;
        for (int t0 = n0 + 2 * half; t0 < n1; t0 += tileRows) {
            int tile = Math.min(tileRows, n1 - t0);
            params.loadRows(t0, tile, groups, scales, biases);
            for (int j = 0; j < tile; j++) {
                long row = base + (t0 + j) * rowBytes;
                int po = j * groups;
                for (int m = 0; m < rows; m++) {
                    int xo = m * k;
                    float sum = switch (bits) {
                        case 4 -> row4(packed, row, k, xa, xo, scales, po, gShift, spread);
                        case 8 -> row8(packed, row, k, xa, xo, scales, po, wordsPerGroup, groupsPerChunk, laneMasks);
                        default -> row2(packed, row, k, xa, xo, scales, po, gShift, spread);
                    };
                    out[m * ldo + t0 + j] = unit * sum + biasTerm(unit, scales, biases, po, sums, m * groups, groups);
                }
            }
        }
    }

    /**
     * {@code Σ_g (b_g − unit·s_g)·Σx_g}, the group-constant part of one output: a row kernel returns
     * {@code sum = Σ_g s_g·Σ x·(1 + q·2^-bits)}, and since {@code Σ x·q = 2^bits·(Σ x·(1 + q·2^-bits) − Σ x)}
     * the dot product is {@code unit·sum} plus this. Row parameters at {@code [po, po + groups)},
     * x's group sums at {@code sums[xo..]}.
     */
    private static float biasTerm(float unit, float[] scales, float[] biases, int po, float[] sums, int xo, int groups) {
        float total = 0;
        int g = 0;
        if (groups >= S.length()) {
            FloatVector tv = FloatVector.zero(S);
            FloatVector uv = FloatVector.broadcast(S, -unit);
            for (int bound = S.loopBound(groups); g < bound; g += S.length()) {
                FloatVector corrected = FloatVector.fromArray(S, scales, po + g).fma(uv, FloatVector.fromArray(S, biases, po + g));
                tv = corrected.fma(FloatVector.fromArray(S, sums, xo + g), tv);
            }
            total = Lanes.sum(tv);
        }
        for (; g < groups; g++) total += (biases[po + g] - unit * scales[po + g]) * sums[xo + g];
        return total;
    }

    /** Weight rows whose group parameters are widened together. */
    static final int TILE = 16;

    /**
     * The codes at bit {@code bitPos} of each lane as the floats {@code 1 + q·2^-bits}: the code is
     * rotated into the top mantissa bits under the exponent of 1.0 (a rotate, so no branch on the
     * direction), which needs no int-to-float
     * conversion ({@code and} + {@code or} fuse into one ternary-logic instruction).
     */
    private static FloatVector frac(IntVector w, int bitPos, int bits) {
        return w.lanewise(VectorOperators.ROL, (23 - bits - bitPos) & 31).and(((1 << bits) - 1) << (23 - bits))
                .or(0x3f800000).reinterpretAsFloats();
    }

    // row4, row8 and row2 are one loop with the bit width as a compile-time constant: a single
    // row(bits, ...) ran 30 % slower (q8 1.10 -> 1.50 ms, q4 1.13 -> 1.45 ms per [8192, 2048] on one
    // core) since the rotations and the inner trip count are no longer constants. Their inner loops
    // write frac's expression out: at 38 bytecodes C2 sometimes declined to inline it, and a
    // returned vector that is not inlined is boxed on every call. Each returns
    // Σ_g s_g·Σ x·(1 + q·2^-bits) over the row (its group scales start at scales[po]); the pair
    // versions write their two sums to out[0] and out[1] (not their lanes: handing the vectors
    // over through an array cost 25 % on 2048-wide q8 rows streamed from DRAM).
    private static float row4(MemorySegment packed, long row, int k, float[] xa, int xo, float[] scales, int po,
                              int gShift, VectorShuffle<Float> spread) {
        FloatVector acc = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            int x = xo + c;
            FloatVector t0 = FloatVector.zero(S);
            FloatVector t1 = FloatVector.zero(S);
            for (int j = 0; j < 8; j += 2) { // two chains hide fma latency; one call site each keeps C2's node budget
                t0 = w.lanewise(VectorOperators.ROL, (23 - 4 - (4 * j)) & 31).and(((1 << 4) - 1) << (23 - 4)).or(0x3f800000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xa, x + j * V), t0);
                t1 = w.lanewise(VectorOperators.ROL, (23 - 4 - (4 * j + 4)) & 31).and(((1 << 4) - 1) << (23 - 4)).or(0x3f800000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xa, x + (j + 1) * V), t1);
            }
            // each lane's group scale: the chunk's one group broadcast, or its groups spread over their lanes
            // from one load (no group slots to blend, no per-slot branches)
            FloatVector t = t0.add(t1);
            int g = po + (word >>> gShift);
            acc = t.fma(spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread), acc);
        }
        return Lanes.sum(acc);
    }

    private static float row8(MemorySegment packed, long row, int k, float[] xa, int xo, float[] scales, int po,
                              int wordsPerGroup, int groupsPerChunk, VectorMask<Float>[] masks) {
        FloatVector acc = FloatVector.zero(S);
        FloatVector acc1 = FloatVector.zero(S);
        FloatVector acc2 = FloatVector.zero(S);
        FloatVector acc3 = FloatVector.zero(S);
        // the first group of each chunk, counted rather than divided (a division per chunk costs as much as its decoding)
        int chunksPerGroup = Math.max(1, wordsPerGroup / V);
        int step = wordsPerGroup >= V ? 1 : groupsPerChunk;
        for (int c = 0, word = 0, g0 = po, left = chunksPerGroup; c < k; c += 4 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            int x = xo + c;
            FloatVector t0 = FloatVector.zero(S);
            FloatVector t1 = FloatVector.zero(S);
            for (int j = 0; j < 4; j += 2) {
                t0 = w.lanewise(VectorOperators.ROL, (23 - 8 - (8 * j)) & 31).and(((1 << 8) - 1) << (23 - 8)).or(0x3f800000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xa, x + j * V), t0);
                t1 = w.lanewise(VectorOperators.ROL, (23 - 8 - (8 * j + 8)) & 31).and(((1 << 8) - 1) << (23 - 8)).or(0x3f800000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xa, x + (j + 1) * V), t1);
            }
            // one accumulator per group slot of the chunk (no per-lane scale vector to build); each
            // slot's own lanes are blended together before the final reduction
            FloatVector t = t0.add(t1);
            acc = t.fma(FloatVector.broadcast(S, scales[g0]), acc);
            if (groupsPerChunk > 1) {
                acc1 = t.fma(FloatVector.broadcast(S, scales[g0 + 1]), acc1);
                if (groupsPerChunk > 2) {
                    acc2 = t.fma(FloatVector.broadcast(S, scales[g0 + 2]), acc2);
                    acc3 = t.fma(FloatVector.broadcast(S, scales[g0 + 3]), acc3);
                }
            }
            if (--left == 0) {
                g0 += step;
                left = chunksPerGroup;
            }
        }
        if (groupsPerChunk > 1) {
            acc = acc.blend(acc1, masks[1]);
            if (groupsPerChunk > 2) acc = acc.blend(acc2, masks[2]).blend(acc3, masks[3]);
        }
        return Lanes.sum(acc);
    }

    private static float row2(MemorySegment packed, long row, int k, float[] xa, int xo, float[] scales, int po,
                              int gShift, VectorShuffle<Float> spread) {
        FloatVector acc = FloatVector.zero(S);
        for (int c = 0, word = 0; c < k; c += 16 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * word, LE);
            int x = xo + c;
            FloatVector t0 = FloatVector.zero(S);
            FloatVector t1 = FloatVector.zero(S);
            for (int j = 0; j < 16; j += 2) {
                t0 = w.lanewise(VectorOperators.ROL, (23 - 2 - (2 * j)) & 31).and(((1 << 2) - 1) << (23 - 2)).or(0x3f800000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xa, x + j * V), t0);
                t1 = w.lanewise(VectorOperators.ROL, (23 - 2 - (2 * j + 2)) & 31).and(((1 << 2) - 1) << (23 - 2)).or(0x3f800000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xa, x + (j + 1) * V), t1);
            }
            // each lane's group scale: the chunk's one group broadcast, or its groups spread over their lanes
            // from one load (no group slots to blend, no per-slot branches)
            FloatVector t = t0.add(t1);
            int g = po + (word >>> gShift);
            acc = t.fma(spread == null ? FloatVector.broadcast(S, scales[g]) : FloatVector.fromArray(S, scales, g).rearrange(spread), acc);
        }
        return Lanes.sum(acc);
    }

    /** Lane masks of the group slots of a chunk: slot q covers lanes {@code [q·wordsPerGroup, (q+1)·wordsPerGroup)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static VectorMask<Float>[] laneMasks(int wordsPerGroup, int groupsPerChunk) {
        VectorMask<Float>[] masks = new VectorMask[Math.max(groupsPerChunk, 1)];
        for (int q = 0; q < masks.length; q++) {
            boolean[] bits = new boolean[V];
            for (int l = q * wordsPerGroup; l < Math.min(V, (q + 1) * wordsPerGroup); l++) bits[l] = true;
            masks[q] = VectorMask.fromArray(S, bits, 0);
        }
        return masks;
    }

    /**
     * The lane-scale spread of a chunk holding several groups: lane l takes the scale of group
     * {@code l / wordsPerGroup} after the chunk's first; null where one group spans the chunk (its
     * scale is broadcast: a permute per chunk cost 2048-wide q8 rows 25 %).
     */
    static VectorShuffle<Float> spread(int wordsPerGroup) {
        return wordsPerGroup < V ? VectorShuffle.fromOp(S, l -> l / wordsPerGroup) : null;
    }

    /**
     * Dequantizes one row of {@code n} codes (2, 4 or 8 bits, {@link #supports}) into {@code dst} in
     * the arranged order of {@link #arrange} (chunk c, position j, lane l ↔ element c + l·cpw + j),
     * as {@code 2^b·s·f + (b − 2^b·s)} with {@code f = 1 + q·2^-b}: within an ulp or two of MLX's
     * {@code q·s + b}. Used for {@code x·W} where W's rows run along the output axis.
     */
    public static void dequantizeArranged(MemorySegment packed, long rowBytes, int bits, int groupSize, int n,
                                          float[] scales, float[] biases, float[] dst) {
        int cpw = 32 / bits;
        int wordsPerGroup = groupSize * bits / 32;
        float unit = 1 << bits;
        for (int c = 0, word = 0; c < n; c += cpw * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, packed, rowBytes + 4L * word, LE);
            FloatVector sv;
            FloatVector bv;
            if (wordsPerGroup >= V) {
                int g = word / wordsPerGroup;
                sv = FloatVector.broadcast(S, unit * scales[g]);
                bv = FloatVector.broadcast(S, biases[g] - unit * scales[g]);
            } else {
                float[] ls = new float[V];
                float[] lb = new float[V];
                for (int l = 0; l < V; l++) {
                    int g = (word + l) / wordsPerGroup;
                    ls[l] = unit * scales[g];
                    lb[l] = biases[g] - unit * scales[g];
                }
                sv = FloatVector.fromArray(S, ls, 0);
                bv = FloatVector.fromArray(S, lb, 0);
            }
            for (int j = 0; j < cpw; j++) frac(w, j * bits, bits).fma(sv, bv).intoArray(dst, c + j * V);
        }
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
     * Any width: dequantizes each row to f32 ({@code q·s + b}, MLX's rounding) then takes dot
     * products. Also the scalar twin of {@link #vector} for tests. x rows in natural order, stride k.
     */
    public static void generic(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                               float[] x, int rows, int n0, int n1, float[] out, int ldo) {
        int groups = k / groupSize;
        float[] scales = new float[groups];
        float[] biases = new float[groups];
        int[] codes = new int[k];
        float[] w = new float[k];
        for (int n = n0; n < n1; n++) {
            params.load(n, scales, biases);
            AffineCodes.dequantize(packed, base + n * rowBytes, bits, groupSize, scales, biases, 0, k, codes, w, 0);
            for (int m = 0; m < rows; m++) out[m * ldo + n] = MatVec.dot(w, 0, x, m * k, k);
        }
    }
}
