package panamax.backend.tck;

/**
 * How the TCK lays out an input tensor in memory before handing it to an op, so that every op is
 * fed views as well as plain row-major tensors. The logical values are the same in each layout.
 */
public enum InputLayout {
    /** A tensor created directly from row-major values. */
    CONTIGUOUS,
    /** A view from {@code transpose}: the storage holds the axes reversed (rank ≥ 2; rank 1 falls back to SLICED). */
    TRANSPOSED,
    /** A view from {@code slice} of a larger tensor padded with sentinel values on its last axis (rank ≥ 1). */
    SLICED,
    /** A view of a view: a slice of a transposed tensor padded on its last logical axis (rank ≥ 2; else SLICED). */
    SLICED_TRANSPOSED
}
