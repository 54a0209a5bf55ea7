package panamax.kv.layouts;

import java.util.Arrays;

/**
 * Builds the {@link Remap}s every row operation is made of, from the position record alone: time
 * ordering (with optional eviction down to sinks plus recent tokens), justification, dropping
 * shared padding. Layouts apply the same remap to the bookkeeping and to every plane, so no row
 * operation is written twice.
 */
final class RowMoves {
    private RowMoves() {
    }

    /**
     * Where each row's kept tokens come from and how they are placed.
     *
     * @param sources   [oldRow][sourceColumn] position held by each source column (EMPTY for none)
     * @param rowSource old row per new row, or null for all rows in order
     * @param keep      sink tokens never evicted
     * @param recent    most recent non-sink tokens kept per row (Integer.MAX_VALUE: all)
     * @param leftPad   per new row, the column its first token goes to; null right-justifies every row
     * @param minWidth  the used width is at least this (to line up with other layouts in a merge)
     */
    record Order(int[][] sources, int[] rowSource, int keep, int recent, int[] leftPad, int minWidth) {
    }

    /** Puts every row's tokens in time order, keeping what {@code order} says. */
    static Remap timeOrdered(Order order) {
        int rows = order.rowSource() == null ? order.sources().length : order.rowSource().length;
        int[][] chosen = new int[rows][];
        boolean[] evicted = new boolean[rows];
        int width = order.minWidth();
        for (int i = 0; i < rows; i++) {
            int old = order.rowSource() == null ? i : order.rowSource()[i];
            int[] src = order.sources()[old];
            long[] tokens = new long[src.length];
            int n = 0;
            for (int c = 0; c < src.length; c++) {
                if (src[c] >= 0) tokens[n++] = ((long) src[c] << 32) | c;
            }
            tokens = Arrays.copyOf(tokens, n);
            Arrays.sort(tokens);
            int[] columns = new int[n];
            int[] positions = new int[n];
            int m = 0;
            for (long t : tokens) {
                int p = (int) (t >>> 32);
                                positions[m] = p;
                columns[m++] = (int) t;
            }
            int sinks = 0;
            while (sinks < m && positions[sinks] < order.keep()) sinks++;
            int recent = Math.min(m - sinks, order.recent());
            evicted[i] = sinks + recent < m;
            int[] kept = new int[sinks + recent];
            System.arraycopy(columns, 0, kept, 0, sinks);
            System.arraycopy(columns, m - recent, kept, sinks, recent);
            chosen[i] = kept;
            width = Math.max(width, order.leftPad() == null ? kept.length : order.leftPad()[i] + kept.length);
        }
        int[][] columnSource = new int[rows][width];
        int[] end = new int[rows];
        for (int i = 0; i < rows; i++) {
            Arrays.fill(columnSource[i], -1);
            int start = order.leftPad() == null ? width - chosen[i].length : order.leftPad()[i];
            System.arraycopy(chosen[i], 0, columnSource[i], start, chosen[i].length);
            end[i] = order.leftPad() == null ? width : start + chosen[i].length;
        }
        return new Remap(order.rowSource(), columnSource, end, width, evicted);
    }

    /** Own columns of every row as sources. */
    static int[][] ownSources(Positions p) {
        int[][] out = new int[p.rows()][];
        for (int r = 0; r < p.rows(); r++) out[r] = p.rowPositions(r);
        return out;
    }

    /** Time order, right-justified, nothing evicted (finalize, merge). */
    static Remap justified(Positions p, int minWidth) {
        return timeOrdered(new Order(ownSources(p), null, 0, Integer.MAX_VALUE, null, minWidth));
    }

    /** Keeps rows {@code keep} in that order and drops the leading columns none of them uses. */
    static Remap filter(Positions p, int[] keep) {
        int shift = Integer.MAX_VALUE;
        int width = 0;
        for (int r : keep) {
            // a row without tokens holds only padding, so it does not stop the others' padding from going
            if (p.lastRealColumn(r) >= 0) shift = Math.min(shift, p.leftPadding(r));
            width = Math.max(width, p.end(r));
        }
        if (shift == Integer.MAX_VALUE) shift = width;
        width -= shift;
        int[][] columnSource = new int[keep.length][width];
        int[] end = new int[keep.length];
        for (int i = 0; i < keep.length; i++) {
            for (int c = 0; c < width; c++) columnSource[i][c] = p.position(keep[i], c + shift) >= 0 ? c + shift : -1;
            end[i] = Math.max(0, p.end(keep[i]) - shift);
        }
        return new Remap(keep.clone(), columnSource, end, width, null);
    }
}
