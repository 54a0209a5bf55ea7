package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;

/**
 * A bf16 matrix W [n, k] (k even) repacked for x·Wᵀ with one weight row per vector lane, as {@link AffineTiles} repacks
 * affine codes: tile t holds rows {@code [t·V, t·V + V)}, the 32-bit word w of each row (values 2w and 2w + 1) stored
 * for all V rows as one vector. Per (weight row, x row) one FMA chain over k in order, in every block of
 * {@link AffineTileDots}' {@code tTrRh} kernels, so a row of x gets the same bits alone and in any batch; nothing is
 * folded across lanes and a widened word feeds up to twenty-four (x row, tile) pairs, where the lane-along-k kernels
 * ({@link MultiRowMatVec#bf16}) fold every output and widen each value for four x rows.
 */
public final class Bf16Tiles extends LaneTiles {
    /** Whether bf16 weights take tiles (as {@link AffineTiles#ENABLED}); {@code -Dpanamax.bf16.tiles=false} turns it off. */
    public static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("panamax.bf16.tiles", String.valueOf(V >= 16)));

    private final int words;
    private final MemorySegment codes;

    private Bf16Tiles(int n, int k, TileRegion region) {
        super(n, k, k / 2, 12, TileBlocks.pass(k, 12, 256 * 1024), region);
        this.words = k / 2;
        this.codes = region.memory;
    }

    /** True when bf16 rows of k values can be repacked (and tiles are {@link #ENABLED}). */
    public static boolean supports(int k) {
        return ENABLED && k > 0 && k % 2 == 0;
    }

    /** Bytes the tiles of an n × k matrix take off-heap. */
    public static long matrixBytes(int n, int k) {
        return Math.max(64, (long) (n + V - 1) / V * V * k * 2);
    }

    /** Repacks W's rows {@code [0, n)}, row r's k bf16 values from byte {@code base + r·rowBytes} of {@code w}, on every thread of {@code par}. */
    public static Bf16Tiles repack(Parallel par, MemorySegment w, long base, long rowBytes, int n, int k) {
        if (!supports(k)) throw new IllegalArgumentException("no bf16 tiles for rows of " + k + " values");
        Bf16Tiles t = new Bf16Tiles(n, k, new TileRegion(matrixBytes(n, k), 1));
        try {
            par.forRange(t.tiles, Math.max(1, 4096 / Math.max(1, k / 16)), (t0, t1) -> {
                int[] row = new int[t.words];
                int[] tile = new int[t.words * V];
                for (int i = t0; i < t1; i++) {
                    TileBlocks.layTile(w, base, rowBytes, i, Math.min(V, n - i * V), V, t.words, row, tile, t.codes, i * t.tileInts * 4);
                }
            });
        } catch (RuntimeException | Error e) {
            t.close();
            throw e;
        }
        return t;
    }

    /** Bytes this repacked copy holds off-heap. */
    @Override
    public long bytes() {
        return codes.byteSize();
    }

    /**
     * {@code out[r·ldo + j] = (x_r · Wᵀ)[t0·V + j]} for tiles {@code [t0, t1)} and x rows {@code [0, m)} placed by
     * {@link #placeRow}, in {@link TileBlocks#run}'s blocks.
     */
    public void multiply(float[] x, int m, int t0, int t1, float[] out, int ldo) {
        multiply(x, m, 0, m, t0, t1, out, ldo);
    }

    /**
     * As {@link #multiply(float[], int, int, int, float[], int)} for x rows {@code [r0, r1)} only, whole passes
     * ({@link #passRows}), row r's results from {@code out[(r − r0)·ldo]}.
     */
    public void multiply(float[] x, int m, int r0, int r1, int t0, int t1, float[] out, int ldo) {
        TileBlocks.run(m, r0, r1, t0, t1, passRows, passRows, widest, ldo, V, (tilesHere, rows, t, r, o) -> block(tilesHere, rows, t, r, x, out, o, ldo));
    }

    private void block(int tilesHere, int rows, int t, int r, float[] x, float[] out, int o, int ldo) {
        long cw = t * tileInts;
        int xo = r * k;
        switch (tilesHere * 100 + rows) {
            case 401 -> AffineTileDots.t4r1h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 212 -> AffineTileDots.t2r12h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 208 -> AffineTileDots.t2r8h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 204 -> AffineTileDots.t2r4h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 202 -> AffineTileDots.t2r2h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 112 -> AffineTileDots.t1r12h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 108 -> AffineTileDots.t1r8h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 104 -> AffineTileDots.t1r4h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 102 -> AffineTileDots.t1r2h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            case 101 -> AffineTileDots.t1r1h(codes, cw, tileInts, words, x, xo, out, o, ldo);
            default -> {
                // two tiles against one x row (no kernel of that shape): each tile on its own
                block(1, rows, t, r, x, out, o, ldo);
                block(1, rows, t + 1, r, x, out, o + V, ldo);
            }
        }
    }
}
