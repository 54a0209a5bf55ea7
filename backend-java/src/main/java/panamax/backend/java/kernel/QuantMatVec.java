package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code out[m, n] = Σ_k x[m, k]·(q[n, k]·s + b)} for affine-quantized rows W[n] with 2, 4 or
 * 8-bit codes (no straddling), in the form of MLX's CPU and GPU kernels,
 * {@code Σ_g s_g·Σ_{i∈g} q_i·x_i + Σ_g b_g·Σ_{i∈g} x_i}: each chunk of V words is loaded once, every
 * code position costs a shift, one ternary-logic op (the code as {@code 1 + q·2^-bits},
 * {@link #mantissaParameters}) and one FMA against x pre-arranged by {@link #arrange} (lane l of
 * position j holds element l·(32/bits)+j); the scale is applied once per group, the bias through the
 * x rows' group sums ({@link AffineDots}). Each output is summed in
 * one order for any number of x rows ({@link #vector}). Other widths use {@link #generic}.
 */
public final class QuantMatVec {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();

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
     * The group sums of x rows in natural order (row stride k): {@code sums[m·groups + g] = Σ x[m, g·gs ..
     * (g + 1)·gs)}, each summed in one order (vectors of the group in order, then {@link Lanes#sum}), so a
     * row's sums do not depend on the other rows. {@link #vector} applies the biases through them.
     */
    public static float[] groupSums(float[] x, int rows, int k, int groupSize) {
        float[] sums = new float[rows * (k / groupSize)];
        groupSums(x, 0, rows, k, groupSize, sums, 0);
        return sums;
    }

    /**
     * {@link #groupSums(float[], int, int, int)} of the rows from {@code x[xOff]} into {@code sums} from {@code sumsOff}
     * (a row's sums do not depend on where it lies, so rows summed in parts get the same bits).
     */
    public static void groupSums(float[] x, int xOff, int rows, int k, int groupSize, float[] sums, int sumsOff) {
        int groups = k / groupSize;
        int bound = groupSize - groupSize % V;
        for (int m = 0; m < rows; m++) {
            int g = 0;
            // four groups side by side, each in its own order: one group's lane fold is a chain of dependent
            // permutes and adds, and four independent chains overlap where one leaves the core waiting
            for (; g + 4 <= groups; g += 4) {
                int at = xOff + m * k + g * groupSize;
                FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
                for (int i = 0; i < bound; i += V) {
                    a0 = a0.add(FloatVector.fromArray(S, x, at + i));
                    a1 = a1.add(FloatVector.fromArray(S, x, at + groupSize + i));
                    a2 = a2.add(FloatVector.fromArray(S, x, at + 2 * groupSize + i));
                    a3 = a3.add(FloatVector.fromArray(S, x, at + 3 * groupSize + i));
                }
                float s0 = Lanes.sum(a0), s1 = Lanes.sum(a1), s2 = Lanes.sum(a2), s3 = Lanes.sum(a3);
                for (int i = bound; i < groupSize; i++) {
                    s0 += x[at + i];
                    s1 += x[at + groupSize + i];
                    s2 += x[at + 2 * groupSize + i];
                    s3 += x[at + 3 * groupSize + i];
                }
                int o = sumsOff + m * groups + g;
                sums[o] = s0;
                sums[o + 1] = s1;
                sums[o + 2] = s2;
                sums[o + 3] = s3;
            }
            for (; g < groups; g++) {
                int at = xOff + m * k + g * groupSize;
                FloatVector a = FloatVector.zero(S);
                for (int i = 0; i < bound; i += V) a = a.add(FloatVector.fromArray(S, x, at + i));
                float sum = Lanes.sum(a);
                for (int i = bound; i < groupSize; i++) sum += x[at + i];
                sums[sumsOff + m * groups + g] = sum;
            }
        }
    }

    /**
     * Rows {@code [n0, n1)} of W against {@code rows} x rows. Row n's words start at byte
     * {@code base + n·rowBytes}; xa holds arranged x rows (stride k), xsums their {@link #groupSums};
     * results go to {@code out[m·ldo + n]}. Each output is {@link AffineDots}' one order for the pair,
     * whatever the number of x rows, so an x row gets the same bits alone and in any batch: pairs of x rows
     * go against four weight rows at a time where there are 32 vector registers ({@link #PAIR_BLOCKS}); otherwise,
     * and for a panel's last weight rows, x rows go four or two at a time against one weight row (each code
     * decoded once for all of them); one x row alone (batch-1 decode) streams parts of the range side by side
     * ({@code oneRowFar}); a last odd x row of a batch goes against one weight row at a time where rows are
     * 1–4 KiB, else two or four
     * ({@link #SHORT_ROW_BYTES}, {@link #LONG_ROW_BYTES}, {@link #ONE_ROW_BLOCK}). Many x rows (prefill) go in L2-sized
     * tiles against panels of weight rows.
     */
    public static void vector(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] xa, float[] xsums, int rows, int n0, int n1, float[] out, int ldo) {
        vector(packed, base, rowBytes, bits, groupSize, k, params, xa, xsums, rows, n0, n1, out, 0, ldo);
    }

    /**
     * {@link #vector(MemorySegment, long, long, int, int, int, RowScales, float[], float[], int, int, int, float[], int)}
     * with results at {@code out[outOff + m·ldo + n]} ({@code outOff = -n0} fills an array of the range's columns only).
     */
    public static void vector(MemorySegment packed, long base, long rowBytes, int bits, int groupSize, int k, RowScales params,
                              float[] xa, float[] xsums, int rows, int n0, int n1, float[] out, int outOff, int ldo) {
        int groups = k / groupSize;
        int wordsPerGroup = groupSize * bits / 32;
        int gShift = Integer.numberOfTrailingZeros(wordsPerGroup);
        int chunks = blockChunks(wordsPerGroup);
        VectorShuffle<Float> spread = spread(wordsPerGroup);
        if (rows == 1) {
            oneRowFar(packed, base, rowBytes, bits, chunks, gShift, spread, groups, k, params, xa, xsums, n0, n1, out, outOff);
            return;
        }
        int panel = rows <= SMALL_ROWS ? TILE : (int) Math.max(TILE, PANEL_BYTES / Math.max(rowBytes, 1) / 4 * 4);
        int tile = rows <= SMALL_ROWS ? Math.max(rows, 1) : Math.max(4, X_TILE_BYTES / (4 * Math.max(k, 1)) / 4 * 4);
        // a panel's group parameters are widened in one pass (rows lie back to back); padded by a
        // vector: a block's lane parameters are spread from one load at its first group
        int span = Math.min(panel, Math.max(n1 - n0, 0));
        float[] scales = new float[span * groups + V];
        float[] biases = new float[span * groups + V];
        for (int p0 = n0; p0 < n1; p0 += panel) {
            int nb = Math.min(panel, n1 - p0);
            loadForCodes(params, p0, nb, groups, scales, biases, 0, bits);
            for (int m0 = 0; m0 < rows; m0 += tile) {
                int m1 = Math.min(rows, m0 + tile);
                int pairs = m1 - (m1 - m0) % 2;
                if (pairs > m0) {
                    // a pair of x rows stays in L1 while the panel's weight rows stream past it from L2: a
                    // block reads twice the x bytes it reads of codes
                    int quadsEnd = PAIR_BLOCKS ? nb / 4 * 4 : 0;
                    for (int m = m0; m < pairs; m += 2) {
                        for (int j = 0; j < quadsEnd; j += 4) {
                            AffineDots.rows4x2(bits, chunks, packed, base + (p0 + j) * rowBytes, rowBytes, k, gShift, spread, xa, m * k, scales, biases,
                                    j * groups, groups, xsums, m * groups, out, outOff + m * ldo + p0 + j, ldo);
                        }
                    }
                    int j = quadsEnd;
                    for (; j < nb; j++) {
                        long row = base + (p0 + j) * rowBytes;
                        int m = m0;
                        for (; m + 4 <= pairs; m += 4) {
                            AffineDots.row1x4(bits, chunks, packed, row, k, gShift, spread, xa, m * k, scales, biases, j * groups, groups,
                                    xsums, m * groups, out, outOff + m * ldo + p0 + j, ldo);
                        }
                        if (m < pairs) {
                            AffineDots.row1x2(bits, chunks, packed, row, k, gShift, spread, xa, m * k, scales, biases, j * groups, groups,
                                    xsums, m * groups, out, outOff + m * ldo + p0 + j, ldo);
                        }
                    }
                }
                if (pairs < m1) {
                    // the odd x row of a batch: 1-4 KiB rows one at a time (one stream for the
                    // prefetcher), others two or four at a time sharing the x loads
                    int m = pairs;
                    int j = 0;
                    int block = rowBytes < SHORT_ROW_BYTES || rowBytes >= LONG_ROW_BYTES ? ONE_ROW_BLOCK : 1;
                    if (block == 4) {
                        for (; j + 4 <= nb; j += 4) {
                            AffineDots.rows4x1(bits, chunks, packed, base + (p0 + j) * rowBytes, rowBytes, k, gShift, spread, xa, m * k,
                                    scales, biases, j * groups, groups, groups, xsums, m * groups, out, outOff + m * ldo + p0 + j);
                        }
                    }
                    for (; block >= 2 && j + 2 <= nb; j += 2) {
                        AffineDots.rows2x1(bits, chunks, packed, base + (p0 + j) * rowBytes, rowBytes, k, gShift, spread, xa, m * k,
                                scales, biases, j * groups, groups, groups, xsums, m * groups, out, outOff + m * ldo + p0 + j);
                    }
                    for (; j < nb; j++) {
                        out[outOff + m * ldo + p0 + j] = AffineDots.row1x1(bits, chunks, packed, base + (p0 + j) * rowBytes, k, gShift, spread,
                                xa, m * k, scales, biases, j * groups, groups, xsums, m * groups);
                    }
                }
            }
        }
    }

    /**
     * One x row (batch-1 decode) against rows {@code [n0, n1)}: the range is cut into {@link #ONE_ROW_BLOCK}
     * parts streamed side by side, one weight row of each part per kernel call (each x load shared, one chain
     * per row), each part a sequential run of whole rows. Streams far apart keep more lines in flight than
     * one: on the 2-core Intel VM (two threads, rows from DRAM, median GB/s against a read probe of 16-19)
     * 8-bit k = 2048 read 12.9 one row at a time, 12.9 four adjacent rows, 19.1 four parts; k = 768 8.2,
     * 5.9, 10.3 (adjacent short rows share 4 KiB pages and jump back and forth in them, which loses the
     * prefetcher); 4-bit k = 2048 6.9, 6.6, 8.3. A panel holds up to {@link #FAR_PANEL_FLOATS} widened
     * parameters, each part's rows back to back.
     */
    private static void oneRowFar(MemorySegment packed, long base, long rowBytes, int bits, int chunks, int gShift,
                                  VectorShuffle<Float> spread, int groups, int k, RowScales params, float[] xa, float[] xsums,
                                  int n0, int n1, float[] out, int outOff) {
        int streams = ONE_ROW_BLOCK >= 4 ? 4 : ONE_ROW_BLOCK >= 2 ? 2 : 1; // the kernels there are
        int part = (n1 - n0) / streams;
        // rows of each part per panel (at most FAR_PANEL_FLOATS parameters in all, so the panel stays in L1 next
        // to x and the streaming rows); part s's rows lie back to back from s·depth·groups, and the kernels read
        // row i of a call at po + i·(depth·groups)
        int depth = Math.max(1, Math.min(part, FAR_PANEL_FLOATS / (streams * Math.max(groups, 1))));
        int partStride = depth * groups;
        FarPanel panel = FAR_PANELS.get().ensure(streams * partStride);
        float[] scales = panel.scales;
        float[] biases = panel.biases;
        float[] results = panel.results;
        for (int j0 = 0; j0 < part; j0 += depth) {
            int rowsEach = Math.min(depth, part - j0);
            for (int s = 0; s < streams; s++) loadForCodes(params, n0 + s * part + j0, rowsEach, groups, scales, biases, s * partStride, bits);
            for (int r = 0; r < rowsEach; r++) {
                long row = base + (n0 + j0 + r) * rowBytes;
                if (streams == 4) {
                    AffineDots.rows4x1(bits, chunks, packed, row, part * rowBytes, k, gShift, spread, xa, 0, scales, biases,
                            r * groups, groups, partStride, xsums, 0, results, 0);
                } else if (streams == 2) {
                    AffineDots.rows2x1(bits, chunks, packed, row, part * rowBytes, k, gShift, spread, xa, 0, scales, biases,
                            r * groups, groups, partStride, xsums, 0, results, 0);
                } else {
                    results[0] = AffineDots.row1x1(bits, chunks, packed, row, k, gShift, spread, xa, 0, scales, biases,
                            r * groups, groups, xsums, 0);
                }
                for (int s = 0; s < streams; s++) out[outOff + n0 + s * part + j0 + r] = results[s];
            }
        }
        int rest = n0 + streams * part; // the last rows, fewer than the streams: one at a time
        if (rest < n1) {
            loadForCodes(params, rest, n1 - rest, groups, scales, biases, 0, bits);
            for (int n = rest; n < n1; n++) {
                out[outOff + n] = AffineDots.row1x1(bits, chunks, packed, base + n * rowBytes, k, gShift, spread, xa, 0, scales, biases,
                        (n - rest) * groups, groups, xsums, 0);
            }
        }
    }

    /** Rows' parameters widened from {@code at} ({@link RowScales#loadRows}) and made for the kernels' codes ({@link #mantissaParameters}). */
    private static void loadForCodes(RowScales params, int row, int count, int groups, float[] scales, float[] biases, int at, int bits) {
        params.loadRows(row, count, groups, scales, biases, at);
        mantissaParameters(scales, biases, at, count * groups, bits);
    }

    /**
     * Turns widened group parameters {@code [from, from + count)} into those {@link AffineDots} applies: its codes
     * enter as the f32 {@code 1 + q·2^-bits} (the code at the top of 1.0's mantissa: a shift and one ternary-logic
     * op, where a mask and a conversion cost two), so a group sums {@code Σ(1 + q·2^-bits)·x = Σx + 2^-bits·Σq·x},
     * and {@code s' = 2^bits·s} (exact) with {@code b' = b − s'} give back {@code s'·that + b'·Σx = s·Σq·x + b·Σx}.
     * The sums differ from {@code Σq·x}'s by rounding only (the terms are up to about twice as large); a row's
     * bits still do not depend on the batch, every kernel taking the same steps.
     */
    static void mantissaParameters(float[] scales, float[] biases, int from, int count, int bits) {
        float unit = 1 << bits;
        int i = from, end = from + count;
        for (int bound = from + S.loopBound(count); i < bound; i += V) {
            FloatVector s = FloatVector.fromArray(S, scales, i).mul(unit);
            s.intoArray(scales, i);
            FloatVector.fromArray(S, biases, i).sub(s).intoArray(biases, i);
        }
        for (; i < end; i++) {
            scales[i] *= unit;
            biases[i] -= scales[i];
        }
    }

    /**
     * One thread's parameter panel for {@link #oneRowFar}, kept between calls: a batch-1 product runs it once per
     * chunk (eight per matrix on two threads), and arrays allocated per call are fresh memory each time, which the
     * zeroing pulls into the cache next to the weights (about 20 KiB per 192 KiB chunk of an expert's rows).
     */
    private static final class FarPanel {
        float[] scales = new float[0], biases = new float[0];
        final float[] results = new float[4];

        /** Room for {@code floats} parameters, padded by a vector (the spread kernels load a vector at a block's first group). */
        FarPanel ensure(int floats) {
            if (scales.length < floats + V) {
                scales = new float[floats + V];
                biases = new float[floats + V];
            }
            return this;
        }
    }

    private static final ThreadLocal<FarPanel> FAR_PANELS = ThreadLocal.withInitial(FarPanel::new);

    /**
     * Chunks of V words per block of {@link AffineDots}' order: one where a group fits in a chunk, else
     * two (never more than a group), whatever the number of x rows.
     */
    static int blockChunks(int wordsPerGroup) {
        return wordsPerGroup >= 2 * V ? 2 : 1;
    }

    /**
     * Whether pairs of x rows go against four weight rows at a time ({@code rows4x2}; the one-weight-row kernels
     * below take the panel's last rows): with 32 vector registers (AVX-512), where one 512-bit x load per FMA
     * held the one-weight-row kernels to about half the FMA peak. {@code -Dpanamax.affine.pairBlocks=false}
     * turns it off for A/B runs.
     */
    static final boolean PAIR_BLOCKS = Boolean.parseBoolean(System.getProperty("panamax.affine.pairBlocks", String.valueOf(V >= 16)));
    /** Weight rows whose group parameters are widened together when few x rows go against them. */
    static final int TILE = 16;
    /** Widened group parameters (scales, and biases as many) one panel of {@code oneRowFar} holds at most. */
    private static final int FAR_PANEL_FLOATS = 2048;
    /**
     * Weight rows one x row is taken against at a time: two with 16 vector registers (AVX2, NEON's
     * 128-bit run), four with 32 (AVX-512); {@code -Dpanamax.affine.oneRowBlock=1|2|4} overrides it for
     * A/B runs (on the AVX2 VM two and four measured level in L2; one streams a single row at a time in
     * batch-1 decode, as before {@code oneRowFar}).
     */
    static final int ONE_ROW_BLOCK = Integer.getInteger("panamax.affine.oneRowBlock", V >= 16 ? 4 : 2);
    /**
     * Rows of at least this many bytes go {@link #ONE_ROW_BLOCK} at a time against one x row; shorter ones
     * one at a time: from DRAM, two interleaved 1–2 KiB rows read 1.3× slower than one (the prefetcher
     * follows one stream), while 4–8 KiB rows gained from the shared x loads (AVX2 VM, 2026-12-02).
     */
    static final int LONG_ROW_BYTES = Integer.getInteger("panamax.affine.longRowBytes", 4096);
    /**
     * Rows of fewer bytes go {@link #ONE_ROW_BLOCK} at a time against one x row too: a block of them is one
     * contiguous run, and two chains hide the FMA latency that one short row cannot (768×256 8-bit from
     * L2, one x row: 41 → 31 µs on the AVX2 VM, 2026-12-02).
     */
    static final int SHORT_ROW_BYTES = Integer.getInteger("panamax.affine.shortRowBytes", 1024);
    /** Up to this many x rows go in one tile (batched decode); more are tiled for L2. */
    private static final int SMALL_ROWS = 8;
    /** Bytes of x rows one tile keeps (L2-resident while a panel of weight rows sweeps it). */
    private static final int X_TILE_BYTES = 192 * 1024;
    /** Bytes of packed weight rows one panel keeps. */
    private static final int PANEL_BYTES = 128 * 1024;

    /**
     * The lane-scale spread of a block holding several groups: lane l takes the scale of group
     * {@code l / wordsPerGroup} after the block's first; null where one group spans the block (its
     * scale is broadcast).
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
