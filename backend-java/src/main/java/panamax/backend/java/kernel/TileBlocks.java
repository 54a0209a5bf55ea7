package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What the weight tiles of one row per lane ({@link AffineTiles}, {@link Bf16Tiles}) share: how a matrix's 32-bit words
 * are laid into tiles, how x rows are placed for the blocks, and the order in which blocks of tiles and x rows are run.
 */
final class TileBlocks {
    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TileBlocks() {
    }

    /** One block: {@code tiles} tiles from tile t against {@code rows} x rows from row r, results from {@code out[o]}. */
    @FunctionalInterface
    interface Block {
        void run(int tiles, int rows, int t, int r, int o);
    }

    /** x rows per pass whose k values take at most {@code xBytes} (at least one block): a multiple of the widest block. */
    static int pass(int k, int widest, int xBytes) {
        return Math.max(widest, xBytes / (4 * k) / widest * widest);
    }

    /**
     * x rows of the next block when {@code left} rows of the pass remain: the widest block the tiles' kernels take
     * (twelve for bf16, eight for affine codes, whose group totals take registers), then eight, four, two, one.
     */
    static int blockRows(int left, int widest) {
        return left >= widest ? widest : left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
    }

    /**
     * Runs tiles {@code [t0, t1)} against x rows {@code [r0, r1)} of m ({@code r0} where a pass starts): x rows in
     * passes of {@code pass} rows (as {@link #placeRow} lays them out); one x row against four tiles at a time
     * (streams far enough apart for the prefetchers), else the pass's rows in chunks of up to {@code chunk} (a multiple of
     * {@code widest}), which stay in L2 while the tiles stream past, and per chunk one or two tiles against
     * {@link #blockRows} x rows at a time. Chunks end where blocks do, so each output takes one block's steps whatever
     * the chunk. Results of tile t, row r from {@code (r − r0)·ldo + (t − t0)·lanes}.
     */
    static void run(int m, int r0, int r1, int t0, int t1, int pass, int chunk, int widest, int ldo, int lanes, Block block) {
        if (r0 % pass != 0) throw new IllegalArgumentException("rows from " + r0 + " do not start a pass of " + pass);
        if (chunk <= 0 || chunk % widest != 0) throw new IllegalArgumentException("chunks of " + chunk + " rows for blocks of " + widest);
        for (int m0 = r0; m0 < r1; m0 += pass) {
            int m1 = Math.min(m, m0 + pass);
            if (m1 > r1) throw new IllegalArgumentException("rows to " + r1 + " end inside a pass of " + pass);
            int t = t0;
            if (m1 - m0 == 1) {
                for (; t + 4 <= t1; t += 4) block.run(4, 1, t, m0, (m0 - r0) * ldo + (t - t0) * lanes);
                for (; t < t1; t++) block.run(1, 1, t, m0, (m0 - r0) * ldo + (t - t0) * lanes);
                continue;
            }
            // a chunk boundary before m1 lies a multiple of widest past m0, where blockRows still gives widest blocks
            for (int c0 = m0; c0 < m1; c0 += chunk) {
                int c1 = Math.min(m1, c0 + chunk);
                for (t = t0; t < t1; t += 2) {
                    int tiles = Math.min(2, t1 - t);
                    for (int r = c0; r < c1; ) {
                        int rows = blockRows(m1 - r, widest);
                        block.run(tiles, rows, t, r, (r - r0) * ldo + (t - t0) * lanes);
                        r += rows;
                    }
                }
            }
        }
    }

    /**
     * Puts x row {@code r} (of {@code m}, k values in natural order) where {@link #run}'s blocks read it in {@code xi} (m·k
     * values): each block of R rows taken together ({@link #blockRows}: the widest while that many remain in the pass,
     * then eight, four, two, one) lies from its first row's natural place with its rows interleaved, element kk of its
     * row i at {@code kk·R + i}, so the broadcasts of one word read one run. Rows may be placed in any order, on any
     * thread; one row alone stays as it is.
     */
    static void placeRow(float[] row, int r, int m, int k, int pass, int widest, float[] xi) {
        int m0 = r / pass * pass, m1 = Math.min(m, m0 + pass);
        int b0 = m0, size = blockRows(m1 - b0, widest);
        while (r >= b0 + size) {
            b0 += size;
            size = blockRows(m1 - b0, widest);
        }
        int at = b0 * k + (r - b0);
        for (int kk = 0; kk < k; kk++) xi[at + kk * size] = row[kk];
    }

    /**
     * Lays rows {@code [t·lanes, t·lanes + rows)} of a matrix (row i's {@code words} 32-bit words from byte
     * {@code base + i·rowBytes} of {@code src}) into tile t at byte {@code dstAt} of {@code dst}: word w of lane l at int
     * {@code w·lanes + l}, lanes past {@code rows} zero. {@code row} and {@code tile} are scratch of words and
     * words·lanes ints.
     */
    static void layTile(MemorySegment src, long base, long rowBytes, int t, int rows, int lanes, int words, int[] row, int[] tile,
                        MemorySegment dst, long dstAt) {
        java.util.Arrays.fill(tile, 0);
        for (int l = 0; l < rows; l++) {
            MemorySegment.copy(src, WORD, base + (long) (t * lanes + l) * rowBytes, row, 0, words);
            for (int w = 0; w < words; w++) tile[w * lanes + l] = row[w];
        }
        MemorySegment.copy(tile, 0, dst, WORD, dstAt, tile.length);
    }
}
