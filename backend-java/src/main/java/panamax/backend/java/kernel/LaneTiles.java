package panamax.backend.java.kernel;

import java.util.concurrent.atomic.AtomicBoolean;
import jdk.incubator.vector.FloatVector;

/**
 * A weight matrix W [n, k] repacked for x·Wᵀ with one weight row per vector lane ({@link AffineTiles}, {@link Bf16Tiles}):
 * tile t holds rows {@code [t·V, t·V + V)}, the last one padded, their 32-bit words stored word by word, each word of
 * all V rows one vector ({@link TileBlocks#layTile}), in a {@link TileRegion} released when these tiles close.
 */
public abstract class LaneTiles implements DerivedForm {
    static final int V = FloatVector.SPECIES_PREFERRED.length();

    final int n;
    final int k;
    final int tiles;
    /** Ints one tile takes: the row's words times the lanes. */
    final long tileInts;
    /** The most x rows one of these tiles' kernels takes at once ({@link TileBlocks#blockRows}). */
    final int widest;
    /** The most x rows of one pass over the tiles ({@link TileBlocks#pass}). */
    final int passRows;
    private final TileRegion region;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** {@code passRows}: x rows of one pass ({@link TileBlocks#pass}), a multiple of {@code widest}. */
    LaneTiles(int n, int k, long wordsPerRow, int widest, int passRows, TileRegion region) {
        if (passRows <= 0 || passRows % widest != 0) throw new IllegalArgumentException("passes of " + passRows + " rows for blocks of " + widest);
        this.n = n;
        this.widest = widest;
        this.passRows = passRows;
        this.k = k;
        this.tiles = (n + V - 1) / V;
        this.tileInts = wordsPerRow * V;
        this.region = region;
    }

    /** Tiles of V rows (the last one padded). */
    public final int tiles() {
        return tiles;
    }

    /** Rows per tile: the vector lanes. */
    public static int rowsPerTile() {
        return V;
    }

    /** Puts x row {@code r} of m where the products read it in {@code xi} ({@link TileBlocks#placeRow}). */
    public final void placeRow(float[] row, int r, int m, float[] xi) {
        int pass = passRows(m), m0 = r / pass * pass;
        TileBlocks.placeRow(row, r, m, k, pass, widestIn(Math.min(m, m0 + pass) - m0), xi);
    }

    /** x rows {@code [0, m)} in natural order (row stride k) placed for the products. */
    public final float[] place(float[] x, int m) {
        float[] xi = new float[m * k];
        float[] row = new float[k];
        for (int r = 0; r < m; r++) {
            System.arraycopy(x, r * k, row, 0, k);
            placeRow(row, r, m, xi);
        }
        return xi;
    }

    /**
     * The most x rows one block takes in a pass of {@code rows} rows ({@link TileBlocks#blockRows}): {@link #widest}
     * unless a kind of tiles blocks short passes narrower.
     */
    int widestIn(int rows) {
        return widest;
    }

    /**
     * The most x rows one of these tiles' kernels takes at once: tiles that agree on it and on {@link #passRows} (and on k)
     * read x rows placed the same way, so one placed copy serves them all.
     */
    public final int widestBlock() {
        return widest;
    }

    /** The most x rows of one pass over the tiles ({@link TileBlocks#pass}). */
    public final int passRows() {
        return passRows;
    }

    /**
     * x rows of each pass of a product of m rows, the last pass taking what is left: a product may run its rows a pass at
     * a time, and its rows are placed for these passes. {@link #passRows} unless a kind of tiles evens its passes out.
     */
    public int passRows(int m) {
        return passRows;
    }

    /** Bytes these tiles hold off-heap. */
    @Override
    public abstract long bytes();

    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) region.release();
    }
}
