package panamax.kv.layouts;

/**
 * Where the tokens of one appended chunk go: column {@code columns[r][t]} of row r for token t.
 *
 * @param columns [rows][T] target column per token
 * @param start   the common first column when every row writes the same contiguous range, else -1
 */
record Targets(int[][] columns, int start) {
    /** Every row writes columns {@code [start, start + length)}. */
    static Targets contiguous(int rows, int start, int length) {
        int[][] cols = new int[rows][length];
        for (int[] row : cols) for (int t = 0; t < length; t++) row[t] = start + t;
        return new Targets(cols, start);
    }

    /** Row r writes the given columns; detects the contiguous case. */
    static Targets of(int[][] columns) {
        int start = columns.length == 0 || columns[0].length == 0 ? 0 : columns[0][0];
        for (int[] row : columns) {
            for (int t = 0; t < row.length; t++) {
                if (row[t] != start + t) return new Targets(columns, -1);
            }
        }
        return new Targets(columns, start);
    }

    int maxColumn() {
        int m = -1;
        for (int[] row : columns) for (int c : row) m = Math.max(m, c);
        return m;
    }
}
