package panamax.backend.java.kernel;

/** Per-row affine group parameters of a quantized matrix, widened to f32. Thread-safe. */
@FunctionalInterface
public interface RowScales {
    /** Writes row {@code row}'s group scales and biases into the first {@code groups} entries. */
    void load(int row, float[] scales, float[] biases);

    /**
     * Whether every scale and bias is a bf16 value (the matrix stores them as bf16), so that a copy may keep them in
     * 16 bits each and widen them exactly ({@link AffineTiles}). False unless an implementation knows.
     */
    default boolean bf16() {
        return false;
    }

    /**
     * Writes rows {@code [row, row + count)} back to back from index {@code at}: row {@code row + j}'s
     * {@code groups} values at {@code at + [j·groups, (j + 1)·groups)}. Row by row here; implementations
     * whose rows are contiguous widen them in one pass.
     */
    default void loadRows(int row, int count, int groups, float[] scales, float[] biases, int at) {
        float[] s = new float[groups];
        float[] b = new float[groups];
        for (int j = 0; j < count; j++) {
            load(row + j, s, b);
            System.arraycopy(s, 0, scales, at + j * groups, groups);
            System.arraycopy(b, 0, biases, at + j * groups, groups);
        }
    }
}
