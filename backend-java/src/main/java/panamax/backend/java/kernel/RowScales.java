package panamax.backend.java.kernel;

/** Per-row affine group parameters of a quantized matrix, widened to f32. Thread-safe. */
@FunctionalInterface
public interface RowScales {
    /** Writes row {@code row}'s group scales and biases into the first {@code groups} entries. */
    void load(int row, float[] scales, float[] biases);
}
