package panamax.kv.layouts;

import java.util.Arrays;
import java.util.List;

/**
 * Per-row position bookkeeping shared by every layout, the single place that knows which logical
 * (RoPE) position sits in which storage column of which row. Layouts decide where tokens go; this
 * records it, and everything else (offsets, padding, masks, eviction, moves of rows and columns) is
 * derived from the record. Host memory only; mutable; not thread-safe.
 */
final class Positions {
    static final int EMPTY = -1;

    private int rows;
    private int[][] pos;          // [row][>= columns] position held by each column, EMPTY for padding or free
    private int columns;          // used width: one past the last column any row has written
    private int[] offset;         // [row] position the next real token of the row takes
    private int[] end;            // [row] one past the last column the row has written
    private int[] planPadding;    // [row] left-padding tokens still expected in a prepared prefill
    private int[] planReal;       // [row] real tokens still expected in the prefill; -1 without a plan
    private boolean[] wrapped;    // [row] a real token of the row has been evicted
    private boolean[] converted;  // [row] the row lives in the target codec (delayed layouts)
    private int[][] lastChunk;    // [row][T] positions of the last appended chunk, EMPTY for padding

    Positions(int rows, boolean converted) {
        this.rows = rows;
        this.pos = new int[rows][0];
        this.offset = new int[rows];
        this.end = new int[rows];
        this.planPadding = new int[rows];
        this.planReal = filled(rows, -1);
        this.wrapped = new boolean[rows];
        this.converted = new boolean[rows];
        Arrays.fill(this.converted, converted);
        this.lastChunk = new int[rows][0];
    }

    private Positions(Positions o) {
        rows = o.rows;
        pos = deepCopy(o.pos);
        columns = o.columns;
        offset = o.offset.clone();
        end = o.end.clone();
        planPadding = o.planPadding.clone();
        planReal = o.planReal.clone();
        wrapped = o.wrapped.clone();
        converted = o.converted.clone();
        lastChunk = deepCopy(o.lastChunk);
    }

    /** An independent copy, e.g. for a speculative round's snapshot. */
    Positions copy() {
        return new Positions(this);
    }

    int rows() {
        return rows;
    }

    int columns() {
        return columns;
    }

    int offset(int row) {
        return offset[row];
    }

    int[] offsets() {
        return offset.clone();
    }

    int end(int row) {
        return end[row];
    }

    int position(int row, int column) {
        return column < pos[row].length ? pos[row][column] : EMPTY;
    }

    /** Positions of {@code row}'s first {@link #columns()} columns. */
    int[] rowPositions(int row) {
        return Arrays.copyOf(pos[row], columns);
    }

    boolean wrapped(int row) {
        return wrapped[row];
    }

    boolean anyWrapped() {
        for (boolean w : wrapped) if (w) return true;
        return false;
    }

    boolean converted(int row) {
        return converted[row];
    }

    boolean[] convertedFlags() {
        return converted.clone();
    }

    void markConverted(int row) {
        converted[row] = true;
    }

    int countConverted() {
        int n = 0;
        for (boolean c : converted) if (c) n++;
        return n;
    }

    /** Columns before the row's first real token (all written columns when it holds none). */
    int leftPadding(int row) {
        for (int c = 0; c < columns; c++) if (pos[row][c] >= 0) return c;
        return end[row];
    }

    /** Per row, the RoPE position the next appended token takes (negative inside planned left padding). */
    int[] ropeOffsets() {
        int[] out = new int[rows];
        for (int r = 0; r < rows; r++) out[r] = offset[r] - planPadding[r];
        return out;
    }

    int realCount(int row) {
        int n = 0;
        for (int c = 0; c < columns; c++) if (pos[row][c] >= 0) n++;
        return n;
    }

    /**
     * True when every real token sits in its ring column ({@link RowMoves#slot}), every row ends
     * after its last token and no column is used past the last row's end: what
     * {@link RowMoves#ring} with eviction would leave unchanged, checked without building it.
     */
    boolean inRing(Retention retention) {
        int width = 0;
        for (int r = 0; r < rows; r++) {
            int last = -1;
            for (int c = 0; c < columns; c++) {
                int p = pos[r][c];
                if (p < 0) continue;
                if (RowMoves.slot(retention, p) != c) return false;
                last = c;
            }
            if (end[r] != last + 1) return false;
            width = Math.max(width, end[r]);
        }
        return width == columns;
    }

    boolean planActive() {
        for (int r = 0; r < rows; r++) if (planPadding[r] > 0 || planReal[r] >= 0) return true;
        return false;
    }

    /** Prepares a prefill: the next appends bring {@code left} padding, {@code lengths} real tokens, then padding. */
    void plan(int[] lengths, int[] left) {
        for (int r = 0; r < rows; r++) {
            planPadding[r] = left[r];
            planReal[r] = lengths[r];
        }
    }

    /** Ends a prefill: no padding is expected any more and queries are the rows' last real tokens. */
    void clearPlan() {
        Arrays.fill(planPadding, 0);
        Arrays.fill(planReal, -1);
        for (int r = 0; r < rows; r++) lastChunk[r] = new int[0];
    }

    /**
     * The positions the tokens of a {@code length}-token chunk will take, row by row, following
     * the prefill plan: EMPTY for padding. Does not change anything.
     */
    int[][] chunkPositions(int length) {
        int[][] out = new int[rows][length];
        for (int r = 0; r < rows; r++) {
            int padding = planPadding[r];
            int real = planReal[r];
            int next = offset[r];
            for (int t = 0; t < length; t++) {
                if (padding > 0) {
                    padding--;
                    out[r][t] = EMPTY;
                } else if (real != 0) {
                    if (real > 0) real--;
                    out[r][t] = next++;
                } else {
                    out[r][t] = EMPTY;
                }
            }
        }
        return out;
    }

    /** Records a chunk written at {@code targets[r][t]}; a real token overwritten is an eviction. */
    void record(int[][] targets, int[][] chunk) {
        for (int r = 0; r < rows; r++) {
            int real = 0;
            for (int t = 0; t < targets[r].length; t++) {
                int c = targets[r][t];
                ensureWidth(r, c + 1);
                if (pos[r][c] >= 0) wrapped[r] = true;
                pos[r][c] = chunk[r][t];
                if (chunk[r][t] >= 0) real++;
                end[r] = Math.max(end[r], c + 1);
                columns = Math.max(columns, c + 1);
            }
            offset[r] += real;
            int padding = Math.min(planPadding[r], targets[r].length);
            planPadding[r] -= padding;
            if (planReal[r] > 0) planReal[r] = Math.max(0, planReal[r] - real);
        }
        lastChunk = deepCopy(chunk);
        for (int r = 0; r < rows; r++) ensureWidth(r, columns);
    }

    /**
     * Drops every real token of row r at position {@code >= limit[r]}, setting its offset to the
     * limit (trim and rollback). Rows end after their last remaining token.
     */
    void truncate(int[] limit) {
        for (int r = 0; r < rows; r++) {
            if (limit[r] >= offset[r]) continue;
            for (int c = 0; c < columns; c++) if (pos[r][c] >= limit[r]) pos[r][c] = EMPTY;
            offset[r] = limit[r];
            end[r] = lastRealColumn(r) + 1;
            lastChunk[r] = new int[0];
        }
        columns = 0;
        for (int r = 0; r < rows; r++) columns = Math.max(columns, end[r]);
    }

    int lastRealColumn(int row) {
        for (int c = columns - 1; c >= 0; c--) if (pos[row][c] >= 0) return c;
        return -1;
    }

    /** True when applying {@code m} would move or drop nothing. */
    boolean unchangedBy(Remap m) {
        if (m.rowSource() != null || m.rows() != rows || m.width() != columns) return false;
        for (int r = 0; r < rows; r++) {
            int[] src = m.columnSource()[r];
            for (int c = 0; c < columns; c++) {
                if (src[c] >= 0 ? src[c] != c : pos[r][c] >= 0) return false;
            }
            if (m.end()[r] != end[r]) return false;
        }
        return true;
    }

    /** Applies a move: rows and columns are rearranged as {@code m} says, per-row state follows its row. */
    void apply(Remap m) {
        int n = m.rows();
        int[][] newPos = new int[n][];
        boolean[] newWrapped = new boolean[n];
        for (int i = 0; i < n; i++) {
            int old = m.sourceRow(i);
            int[] src = m.columnSource()[i];
            newPos[i] = new int[Math.max(m.width(), 1)];
            for (int c = 0; c < m.width(); c++) newPos[i][c] = src[c] >= 0 ? pos[old][src[c]] : EMPTY;
            newWrapped[i] = wrapped[old] || (m.evicted() != null && m.evicted()[i]);
        }
        offset = gather(offset, m);
        planPadding = gather(planPadding, m);
        planReal = gather(planReal, m);
        converted = gatherFlags(converted, m);
        int[][] chunks = new int[n][];
        for (int i = 0; i < n; i++) chunks[i] = lastChunk[m.sourceRow(i)];
        lastChunk = chunks;
        pos = newPos;
        wrapped = newWrapped;
        end = m.end().clone();
        rows = n;
        columns = m.width();
    }

    /** Rows of several records stacked in order; all must have the same used width. */
    static Positions stack(List<Positions> parts) {
        int total = parts.stream().mapToInt(Positions::rows).sum();
        Positions out = new Positions(total, false);
        int r = 0;
        for (Positions p : parts) {
            for (int i = 0; i < p.rows; i++, r++) {
                out.pos[r] = p.pos[i].clone();
                out.offset[r] = p.offset[i];
                out.end[r] = p.end[i];
                out.planPadding[r] = p.planPadding[i];
                out.planReal[r] = p.planReal[i];
                out.wrapped[r] = p.wrapped[i];
                out.converted[r] = p.converted[i];
                out.lastChunk[r] = p.lastChunk[i].clone();
            }
            out.columns = Math.max(out.columns, p.columns);
        }
        for (int i = 0; i < total; i++) out.ensureWidth(i, out.columns);
        return out;
    }

    /**
     * Position of query i of the last {@code queryLength} appended tokens of row r: tokens of the
     * last chunk take their recorded positions (EMPTY for padding, which sees nothing), earlier
     * ones count back from the chunk's first real token.
     */
    int queryPosition(int row, int queryLength, int i) {
        int[] chunk = lastChunk[row];
        int fromChunk = i - (queryLength - chunk.length);
        if (fromChunk >= 0) return chunk[fromChunk];
        int real = countReal(chunk);
        int q = offset[row] - real - (queryLength - chunk.length) + i;
        return q < 0 ? EMPTY : q;
    }

    /** True when every row holds position c at column c for all used columns, with no padding queries pending. */
    boolean alignedAndUnpadded() {
        for (int r = 0; r < rows; r++) {
            if (offset[r] != columns || end[r] != columns) return false;
            for (int c = 0; c < columns; c++) if (pos[r][c] != c) return false;
            for (int p : lastChunk[r]) if (p < 0) return false;
        }
        return true;
    }

    private void ensureWidth(int row, int width) {
        if (pos[row].length < width) {
            int old = pos[row].length;
            pos[row] = Arrays.copyOf(pos[row], Math.max(width, old * 2));
            Arrays.fill(pos[row], old, pos[row].length, EMPTY);
        }
    }

    private static int countReal(int[] positions) {
        int n = 0;
        for (int p : positions) if (p >= 0) n++;
        return n;
    }

    private static int[] gather(int[] values, Remap m) {
        int[] out = new int[m.rows()];
        for (int i = 0; i < out.length; i++) out[i] = values[m.sourceRow(i)];
        return out;
    }

    private static boolean[] gatherFlags(boolean[] values, Remap m) {
        boolean[] out = new boolean[m.rows()];
        for (int i = 0; i < out.length; i++) out[i] = values[m.sourceRow(i)];
        return out;
    }

    private static int[] filled(int n, int v) {
        int[] a = new int[n];
        Arrays.fill(a, v);
        return a;
    }

    private static int[][] deepCopy(int[][] a) {
        int[][] out = new int[a.length][];
        for (int i = 0; i < a.length; i++) out[i] = a[i].clone();
        return out;
    }
}
