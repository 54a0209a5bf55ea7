package panamax.kv.layouts;

/**
 * A new arrangement of rows and columns, applied identically to the position bookkeeping and to
 * every plane: new row i is old row {@code rowSource[i]}, and its column c holds old column
 * {@code columnSource[i][c]} (or nothing when negative). Built by {@link RowMoves}.
 *
 * @param rowSource    old row per new row, or null to keep the rows as they are
 * @param columnSource [newRows][width] old column per new column, -1 for an empty column
 * @param end          [newRows] per row, one past its last written column (where sequential appends continue)
 * @param width        used columns after the move
 * @param evicted      [newRows] rows that lost a real token they still needed (evicted), or null for none
 */
record Remap(int[] rowSource, int[][] columnSource, int[] end, int width, boolean[] evicted) {
    int rows() {
        return columnSource.length;
    }

    int sourceRow(int row) {
        return rowSource == null ? row : rowSource[row];
    }

}
