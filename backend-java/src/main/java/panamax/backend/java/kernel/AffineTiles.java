package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An affine-quantized matrix W [n, k] (MLX's 2- to 8-bit codes) repacked for x·Wᵀ with one weight row per vector
 * lane: tile t holds rows {@code [t·V, t·V + V)}, its k·bits/32 words stored word by word, each word of all V rows one
 * vector (the last tile padded with zero rows), and per group a vector of the V rows' scales and one of their biases,
 * made for codes read as {@code 1 + q·2^-bits} ({@link QuantMatVec#mantissaParameters}). The tiles hold 2, 4 or 8-bit
 * codes: 3-bit codes are widened to 4 bits and 5- and 6-bit codes to 8 ({@link #tileBits}), where MLX's packing lets
 * them straddle words and the kernels' constant shifts cannot follow; the value of every code is unchanged, so the
 * product is the same sum, taken by the kernels of the wider codes.
 *
 * <p>Why: with lanes along k ({@link QuantMatVec#vector}) every output ends in a fold across lanes and a code decoded
 * once feeds at most two x rows; with lanes along n nothing is folded, and a code decoded once feeds every x row of
 * a block ({@link AffineTileDots}). Each output is summed in one order whatever the number of x rows, so a row of
 * x gets the same bits alone and in any batch. Codes and parameters live off-heap, freed by {@link #close} (with the
 * last tiles of a stack that shares one region).
 */
public final class AffineTiles extends LaneTiles {
    private static final ValueLayout.OfFloat PARAM = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt PACKED = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /**
     * Whether x·Wᵀ over affine weights takes repacked tiles: with 32 vector registers (AVX-512), where a block's group
     * chains fit in registers (the widest keeps its totals in the output). {@code -Dpanamax.affine.tiles=false} turns it off for A/B runs.
     */
    public static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("panamax.affine.tiles", String.valueOf(V >= 16)));
    /**
     * Whether a pass of {@link #DECODED_MIN_ROWS} x rows or more (a prefill) decodes each group's codes once into an f32
     * scratch and runs {@link DecodedTileDots}' blocks of up to twelve rows over it, where the register kernels decode
     * every code once per block of eight rows and spend three of every eleven vector operations on it.
     * {@code -Dpanamax.affine.decodedGroups=false} turns it off for A/B runs.
     */
    static final boolean DECODED_GROUPS = Boolean.parseBoolean(System.getProperty("panamax.affine.decodedGroups", "true"));
    /**
     * Rows a pass needs for decoded groups: with fewer, the decoding (codes read from memory in a loop of its own) costs
     * more than the register kernels' (two threads, weights from DRAM: 12–32 rows 1.02–1.31× their time, 64 rows
     * 0.95–1.06×, 96 rows 0.88–1.02×; docs/backend-java.md).
     */
    static final int DECODED_MIN_ROWS = 64;
    private static final int DECODED_WIDEST = 12;
    private static final int REGISTER_WIDEST = 8;
    /**
     * x bytes a pass of decoded groups holds: 1 MiB (L2 is 2 MiB a core on the reference VM; a larger pass decodes each
     * group for more rows); and those of a chunk of rows through the register blocks: 256 KiB, where they ran best.
     */
    private static final int DECODED_PASS_BYTES = 1 << 20, REGISTER_PASS_BYTES = 1 << 18;
    /**
     * Row length (x values) that sets the rows of a decoded pass: 1 MiB of rows of 2048 values, 120 rows. Longer rows
     * keep that many and run their groups in slices of 1 MiB of x ({@link #sliceGroups}), so a down projection
     * (k = 8192) decodes each group for 120 rows too, where 1 MiB of its whole rows would be 24.
     */
    private static final int DECODED_PASS_K = 2048;
    /** Pass sizes {@link #passRows(int)} tries, in order: whole blocks of twelve rows, of four, then any row count. */
    private static final int[] PASS_STEPS = {DECODED_WIDEST, 4, 1};

    /** The width of the codes in the tiles (2, 4 or 8), which the kernels take. */
    private final int bits;
    /** The width of the codes in the matrix repacked (2 to 8): {@link #bits}, or narrower where they were widened. */
    private final int codeBits;
    /** Whether the group parameters are packed: per lane and group one int, the bf16 bias above the bf16 scale. */
    private final boolean packedParams;
    private final int groups;
    private final int wordsPerGroup;
    /** Groups of a slice of k in a decoded pass: those whose x values of the pass's rows take 1 MiB (all, up to k = 2048). */
    private final int sliceGroups;
    /** x rows of a chunk through the register blocks ({@link TileBlocks#run}): 256 KiB of them. */
    private final int registerChunk;
    private final MemorySegment codes;
    /** The f32 group parameters: scales of tile t, group g from float {@code (t·groups + g)·V}, then the biases alike. */
    private final MemorySegment groupParams;
    private final long biasesAt;

    /** Tiles in {@code memory} ({@link #matrixBytes}), a part of {@code region} (which the last of its tiles to close frees). */
    private AffineTiles(int n, int k, int codeBits, int groupSize, boolean packedParams, TileRegion region, MemorySegment memory) {
        super(n, k, (long) k * tileBits(codeBits) / 32, DECODED_GROUPS ? DECODED_WIDEST : REGISTER_WIDEST,
                DECODED_GROUPS ? TileBlocks.pass(Math.min(k, DECODED_PASS_K), DECODED_WIDEST, DECODED_PASS_BYTES)
                        : TileBlocks.pass(k, REGISTER_WIDEST, REGISTER_PASS_BYTES), region);
        this.bits = tileBits(codeBits);
        this.codeBits = codeBits;
        this.packedParams = packedParams;
        this.groups = k / groupSize;
        this.wordsPerGroup = groupSize * bits / 32;
        this.sliceGroups = Math.max(1, DECODED_PASS_BYTES / (4 * passRows * groupSize));
        this.registerChunk = TileBlocks.pass(k, REGISTER_WIDEST, REGISTER_PASS_BYTES);
        long codeBytes = codeBytes(n, k, bits);
        this.codes = memory.asSlice(0, codeBytes);
        this.groupParams = memory.asSlice(codeBytes, memory.byteSize() - codeBytes);
        this.biasesAt = groupParams.byteSize() / 2;
    }

    /** Bytes of codes the tiles of an n × k matrix take (whole 64-byte vectors). */
    private static long codeBytes(int n, int k, int bits) {
        return Math.max(64, (long) (n + V - 1) / V * V * k * bits / 8);
    }

    /**
     * Bytes the tiles of an n × k matrix take off-heap: codes, then per group and row a scale and a bias, in 32 bits each,
     * or in 16 bits each where the matrix's parameters are bf16 ({@code packedParams}: then the tiles hold exactly the
     * bytes of MLX's form, as the read floor counts them).
     */
    public static long matrixBytes(int n, int k, int bits, int groupSize, boolean packedParams) {
        return codeBytes(n, k, tileBits(bits)) + (packedParams ? 4L : 8L) * ((long) (n + V - 1) / V * V) * (k / groupSize);
    }

    /** True when a matrix of these codes can be repacked (and tiles are {@link #ENABLED}). */
    public static boolean supports(int bits, int k, int groupSize) {
        int tileBits = tileBits(bits);
        return ENABLED && tileBits > 0 && k > 0 && groupSize > 0 && k % groupSize == 0 && groupSize * tileBits % 32 == 0;
    }

    /**
     * The width the tiles store {@code bits}-bit codes in: 2, 4 and 8 as they are; 3 as 4, and 5 and 6 as 8, the
     * narrowest word-aligned width that holds them (0: none). A 3-bit matrix's tiles take the bytes of a 4-bit one and
     * its products their speed: through MLX's packing, where codes straddle words, the products dequantized every code
     * and ran three to six times slower than 4-bit ones (docs/backend-java.md, "Affine weights in tiles").
     */
    public static int tileBits(int bits) {
        return switch (bits) {
            case 2 -> 2;
            case 3, 4 -> 4;
            case 5, 6, 8 -> 8;
            default -> 0;
        };
    }

    /**
     * Repacks W's rows {@code [0, n)}: row r's words from byte {@code base + r·rowBytes} of {@code packed}, its group
     * parameters from {@code params}. Tiles are filled on every thread of {@code par}.
     */
    public static AffineTiles repack(Parallel par, MemorySegment packed, long base, long rowBytes, int n, int k, int bits, int groupSize,
                                     RowScales params) {
        if (!supports(bits, k, groupSize)) throw new IllegalArgumentException("no tiles for " + bits + "-bit codes, k " + k + ", group " + groupSize);
        boolean bf16 = params.bf16();
        TileRegion region = new TileRegion(matrixBytes(n, k, bits, groupSize, bf16), 1);
        AffineTiles t = new AffineTiles(n, k, bits, groupSize, bf16, region, region.memory);
        try {
            par.forRange(t.tiles, Math.max(1, 4096 / Math.max(1, k / 16)), (t0, t1) -> t.fill(packed, base, rowBytes, params, t0, t1));
        } catch (RuntimeException | Error e) {
            t.close();
            throw e;
        }
        return t;
    }

    /**
     * Repacks {@code bases.length} matrices of one geometry (a stack of experts) into one region, matrix i's codes
     * from byte {@code bases[i]} of {@code packed} with parameters {@code params[i]}; the matrices are filled on every
     * thread of {@code par}. Each returned tiles is closed on its own; the region goes with the last.
     */
    public static AffineTiles[] repackAll(Parallel par, MemorySegment packed, long[] bases, long rowBytes, int n, int k, int bits, int groupSize,
                                          RowScales[] params) {
        if (!supports(bits, k, groupSize)) throw new IllegalArgumentException("no tiles for " + bits + "-bit codes, k " + k + ", group " + groupSize);
        int count = bases.length;
        boolean bf16 = Arrays.stream(params).allMatch(RowScales::bf16);
        long bytes = matrixBytes(n, k, bits, groupSize, bf16);
        TileRegion region = new TileRegion(Math.multiplyExact(bytes, (long) count), count);
        AffineTiles[] all = new AffineTiles[count];
        for (int i = 0; i < count; i++) all[i] = new AffineTiles(n, k, bits, groupSize, bf16, region, region.memory.asSlice(i * bytes, bytes));
        try {
            par.forRange(count, 1, (i0, i1) -> {
                for (int i = i0; i < i1; i++) all[i].fill(packed, bases[i], rowBytes, params[i], 0, all[i].tiles);
            });
        } catch (RuntimeException | Error e) {
            for (AffineTiles t : all) t.close();
            throw e;
        }
        return all;
    }

    private void fill(MemorySegment packed, long base, long rowBytes, RowScales params, int t0, int t1) {
        int words = (int) (tileInts / V);
        int[] row = new int[words];
        int[] tile = new int[words * V];
        float[] s = new float[V * groups];
        float[] b = new float[V * groups];
        float[] lanesS = new float[packedParams ? 0 : V * groups];
        float[] lanesB = new float[packedParams ? 0 : V * groups];
        int[] lanesPacked = new int[packedParams ? V * groups : 0];
        int[] rowCodes = new int[codeBits == bits ? 0 : k];
        for (int t = t0; t < t1; t++) {
            int rows = Math.min(V, n - t * V);
            if (codeBits == bits) TileBlocks.layTile(packed, base, rowBytes, t, rows, V, words, row, tile, codes, t * tileInts * 4);
            else layWidenedTile(packed, base, rowBytes, t, rows, words, rowCodes, row, tile);
            params.loadRows(t * V, rows, groups, s, b, 0);
            long at = (long) t * V * groups * 4;
            if (packedParams) {
                // the kernels make s' and b' from these as mantissaParameters would; lanes past the rows stay zero
                Arrays.fill(lanesPacked, 0);
                for (int l = 0; l < rows; l++) {
                    for (int g = 0; g < groups; g++) lanesPacked[g * V + l] = packBf16(s[l * groups + g], b[l * groups + g], t * V + l);
                }
                MemorySegment.copy(lanesPacked, 0, groupParams, PACKED, at, lanesPacked.length);
                continue;
            }
            QuantMatVec.mantissaParameters(s, b, 0, rows * groups, bits);
            Arrays.fill(lanesS, 0f);
            Arrays.fill(lanesB, 0f);
            for (int l = 0; l < rows; l++) {
                for (int g = 0; g < groups; g++) {
                    lanesS[g * V + l] = s[l * groups + g];
                    lanesB[g * V + l] = b[l * groups + g];
                }
            }
            MemorySegment.copy(lanesS, 0, groupParams, PARAM, at, lanesS.length);
            MemorySegment.copy(lanesB, 0, groupParams, PARAM, biasesAt + at, lanesB.length);
        }
    }

    /**
     * Tile t of codes narrower than the tiles' ({@link #tileBits}): each row's codes packed again at {@link #bits}
     * ({@link AffineCodes#widenRow}), then laid out as {@link TileBlocks#layTile} lays them.
     */
    private void layWidenedTile(MemorySegment packed, long base, long rowBytes, int t, int rows, int words, int[] rowCodes, int[] row,
                                int[] tile) {
        Arrays.fill(tile, 0);
        for (int l = 0; l < rows; l++) {
            AffineCodes.widenRow(packed, base + (long) (t * V + l) * rowBytes, codeBits, k, bits, rowCodes, row);
            for (int w = 0; w < words; w++) tile[w * V + l] = row[w];
        }
        MemorySegment.copy(tile, 0, codes, PACKED, t * tileInts * 4, tile.length);
    }

    /** A scale and a bias that must be bf16 values, as one int: the bias's 16 bits above the scale's. */
    private static int packBf16(float scale, float bias, int row) {
        int s = Float.floatToRawIntBits(scale), b = Float.floatToRawIntBits(bias);
        if ((s & 0xffff) != 0 || (b & 0xffff) != 0) {
            throw new IllegalStateException("affine tiles: row " + row + "'s parameters were declared bf16 but scale " + scale + " or bias "
                    + bias + " is not a bf16 value");
        }
        return (b & 0xffff0000) | (s >>> 16);
    }

    /** Bytes this repacked copy holds off-heap: codes and group parameters. */
    @Override
    public long bytes() {
        return codes.byteSize() + groupParams.byteSize();
    }

    /**
     * {@code out[r·ldo + j] = (x_r · Wᵀ)[t0·V + j]} for tiles {@code [t0, t1)} (j up to {@code (t1 − t0)·V}, padded
     * rows included) and x rows {@code [0, m)} placed by {@link #placeRow} (one row alone: its natural order), with their
     * group sums ({@link QuantMatVec#groupSums}, row stride groups), in {@link TileBlocks#run}'s blocks.
     */
    public void multiply(float[] x, float[] xsums, int m, int t0, int t1, float[] out, int ldo) {
        multiply(x, xsums, m, 0, m, t0, t1, out, ldo);
    }

    /**
     * As {@link #multiply(float[], float[], int, int, int, float[], int)} for x rows {@code [r0, r1)} only, whole passes
     * ({@link #passRows(int)} of m), row r's results from {@code out[(r − r0)·ldo]}.
     */
    public void multiply(float[] x, float[] xsums, int m, int r0, int r1, int t0, int t1, float[] out, int ldo) {
        int pass = passRows(m);
        for (int m0 = r0; m0 < r1; m0 += pass) {
            int m1 = Math.min(m, m0 + pass), shift = (m0 - r0) * ldo;
            int widestHere = widestIn(m1 - m0);
            if (widestHere == DECODED_WIDEST) multiplyDecoded(x, xsums, m0, m1, t0, t1, out, shift, ldo);
            else TileBlocks.run(m, m0, m1, t0, t1, pass, registerChunk, widestHere, ldo, V, (tilesHere, rows, t, r, o) ->
                    block(tilesHere, rows, t, r, x, xsums, out, shift + o, ldo));
        }
    }

    /**
     * Passes of m rows evened out where they go through decoded groups: the most rows, up to {@link #passRows}, that leave
     * no pass short of {@link #DECODED_MIN_ROWS} (whole blocks of twelve first, then of four, then any), so a prompt's
     * last rows do not fall to the register blocks (512 rows: 4 × 108 + 80, not 4 × 120 + 32); {@link #passRows} where
     * no such size exists or one pass holds them all.
     */
    @Override
    public int passRows(int m) {
        if (widest != DECODED_WIDEST || m <= passRows) return passRows;
        for (int step : PASS_STEPS) {
            for (int p = passRows / step * step; p >= DECODED_MIN_ROWS; p -= step) {
                int last = m % p;
                if (last == 0 || last >= DECODED_MIN_ROWS) return p;
            }
        }
        return passRows;
    }

    /** Passes of {@link #DECODED_MIN_ROWS} rows or more run through decoded groups in blocks of twelve, others eight. */
    @Override
    int widestIn(int rows) {
        return widest == DECODED_WIDEST && rows >= DECODED_MIN_ROWS ? DECODED_WIDEST : REGISTER_WIDEST;
    }

    /**
     * One pass, x rows {@code [m0, m1)}, through decoded groups: per slice of {@link #sliceGroups} groups, pair of tiles
     * and group, the group's codes decoded once into {@code d} and its parameters into {@code sb}, then every block of
     * the pass's rows over them ({@link DecodedTileDots}); the totals live in {@code out} (row m0's from {@code oo}),
     * zeroed before group 0, so each output still adds its groups in order, slices or not.
     */
    private void multiplyDecoded(float[] x, float[] xsums, int m0, int m1, int t0, int t1, float[] out, int oo, int ldo) {
        int gk = k / groups;
        float[] d = new float[2 * gk * V];
        float[] sb = new float[4 * V];
        for (int g0 = 0; g0 < groups; g0 += sliceGroups) {
            int g1 = Math.min(groups, g0 + sliceGroups);
            for (int t = t0; t < t1; t += 2) {
                int tilesHere = Math.min(2, t1 - t);
                int lanes = tilesHere * V, at = oo + (t - t0) * V;
                if (g0 == 0) {
                    for (int r = m0; r < m1; r++) Arrays.fill(out, at + (r - m0) * ldo, at + (r - m0) * ldo + lanes, 0f);
                }
                for (int g = g0; g < g1; g++) {
                    decodeGroup(t, tilesHere, g, d, sb);
                    for (int r = m0; r < m1; ) {
                        int rows = TileBlocks.blockRows(m1 - r, DECODED_WIDEST);
                        DecodedTileDots.run(tilesHere, rows, d, sb, gk, x, r * k + g * gk * rows, xsums, r * groups, groups, g, out,
                                at + (r - m0) * ldo, ldo);
                        r += rows;
                    }
                }
            }
        }
    }

    /**
     * Group g of tiles {@code [t, t + tilesHere)}: its codes as {@code 1 + q·2^-bits} (as the register kernels make them),
     * k step kk of tile i at {@code d[(kk·tilesHere + i)·V]}, and its s', b' at {@code sb[2i·V]}, {@code sb[(2i + 1)·V]}.
     */
    private void decodeGroup(int t, int tilesHere, int g, float[] d, float[] sb) {
        for (int i = 0; i < tilesHere; i++) {
            DecodedTileDots.decode(bits, codes, (t + i) * tileInts, g * wordsPerGroup, wordsPerGroup, d, tilesHere, i);
            long so = ((long) (t + i) * V * groups + (long) g * V) * 4;
            DecodedTileDots.parameters(bits, packedParams, groupParams, so, biasesAt + so, sb, 2 * i * V);
        }
    }

    /**
     * {@code tilesHere} tiles from tile t against the block of {@code rows} x rows from row r: one kernel where one takes
     * that shape, else one tile at a time (each tile's outputs take the same steps either way).
     */
    private void block(int tilesHere, int rows, int t, int r, float[] x, float[] xsums, float[] out, int o, int ldo) {
        long cw = t * tileInts;
        int pts = V * groups, xo = r * k, xso = r * groups;
        long so = (long) t * pts * 4, bo = biasesAt + so;
        int shape = tilesHere * 100 + rows;
        switch (shape) {
            case 401 -> AffineTileDots.t4r1(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 208 -> AffineTileDots.t2r8(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 204 -> AffineTileDots.t2r4(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 202 -> AffineTileDots.t2r2(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 108 -> AffineTileDots.t1r8(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 104 -> AffineTileDots.t1r4(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 102 -> AffineTileDots.t1r2(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            case 101 -> AffineTileDots.t1r1(bits, packedParams, codes, cw, tileInts, groups, wordsPerGroup, x, xo, groupParams, so, bo, pts, xsums, xso, out, o, ldo);
            default -> {
                // two tiles against one row (no kernel of that shape): each tile on its own
                block(1, rows, t, r, x, xsums, out, o, ldo);
                block(1, rows, t + 1, r, x, xsums, out, o + V, ldo);
            }
        }
    }

}
