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

    /**
     * Column of the token at position {@code p} in a bounded layout's ring: sinks at their own
     * column, every later token cycling through the other {@code window − keep} columns. A row
     * placed this way occupies columns that depend only on the positions it holds, never on the
     * rows it is batched with or on the moves it went through, so it is read in the same column
     * order alone and in any batch (attention sums over columns in that order).
     */
    static int slot(Retention retention, int p) {
        int keep = retention.keep();
        return p < keep ? p : keep + (p - keep) % (retention.window() - keep);
    }

    /**
     * Ring order for a bounded layout: each row's token at position p goes to column
     * {@link #slot}. With {@code evict} a row first drops all but its sinks and its
     * {@code window − keep} most recent tokens (what a single-token step needs); without it (row
     * moves, which never evict) a row whose tokens do not fit the ring, such as a freshly
     * prefilled long prompt, keeps them in time order, right-justified, until the next step.
     *
     * @param rowSource old row per new row, or null for all rows in order
     * @param minWidth  the used width is at least this (to line up with other layouts in a merge)
     */
    static Remap ring(Positions p, Retention retention, int[] rowSource, int minWidth, boolean evict) {
        int rows = rowSource == null ? p.rows() : rowSource.length;
        int window = retention.window();
        int[][] chosen = new int[rows][];      // kept source columns, in time order
        int[][] slots = new int[rows][];       // their ring columns, or null: time order, right-justified
        boolean[] evicted = new boolean[rows];
        int width = minWidth;
        for (int i = 0; i < rows; i++) {
            int old = rowSource == null ? i : rowSource[i];
            int[] src = p.rowPositions(old);
            long[] tokens = new long[src.length];
            int n = 0;
            for (int c = 0; c < src.length; c++) if (src[c] >= 0) tokens[n++] = ((long) src[c] << 32) | c;
            tokens = Arrays.copyOf(tokens, n);
            Arrays.sort(tokens);
            int sinks = 0;
            while (sinks < n && (int) (tokens[sinks] >>> 32) < retention.keep()) sinks++;
            int recent = evict ? Math.min(n - sinks, retention.recentKept()) : n - sinks;
            evicted[i] = sinks + recent < n;
            int[] kept = new int[sinks + recent];
            int[] at = new int[kept.length];
            boolean[] taken = new boolean[window];
            boolean fits = true;
            for (int k = 0; k < kept.length; k++) {
                long t = tokens[k < sinks ? k : n - recent + (k - sinks)];
                kept[k] = (int) t;
                at[k] = slot(retention, (int) (t >>> 32));
                if (taken[at[k]]) fits = false;
                taken[at[k]] = true;
            }
            chosen[i] = kept;
            if (fits) {
                slots[i] = at;
                for (int s : at) width = Math.max(width, s + 1);
            } else {
                width = Math.max(width, kept.length);
            }
        }
        int[][] columnSource = new int[rows][width];
        int[] end = new int[rows];
        for (int i = 0; i < rows; i++) {
            Arrays.fill(columnSource[i], -1);
            if (slots[i] != null) {
                for (int k = 0; k < chosen[i].length; k++) {
                    columnSource[i][slots[i][k]] = chosen[i][k];
                    end[i] = Math.max(end[i], slots[i][k] + 1);
                }
            } else {
                System.arraycopy(chosen[i], 0, columnSource[i], width - chosen[i].length, chosen[i].length);
                end[i] = width;
            }
        }
        return new Remap(rowSource, columnSource, end, width, evicted);
    }

    /**
     * How a row move lays rows out: in ring order for a bounded layout (see {@link #ring}), else
     * time order, right-justified; nothing evicted.
     */
    static Remap settled(Positions p, Retention retention, int minWidth) {
        return retention.bounded() ? ring(p, retention, null, minWidth, false) : justified(p, minWidth);
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
