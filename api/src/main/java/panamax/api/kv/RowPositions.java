package panamax.api.kv;

/**
 * Where each row of a {@link KvLayout} stands: how many rows there are, the position its next token
 * takes and the padding before its first real token. A model reads {@link #ropeOffsets()} before each
 * append. Arrays returned are copies the caller may keep.
 *
 * @since 0.4
 */
public interface RowPositions {
    /** Number of rows in the batch. */
    int rows();

    /** Per row, the position the next appended token will take (its RoPE position). */
    int[] offsets();

    /** Per row, the padding columns before its first real token. */
    int[] leftPadding();

    /**
     * Per row, the RoPE position of the first token of the next {@link KvLayout#append}: {@link #offsets()}
     * minus the left padding still to be appended in a prepared prefill (padding tokens take the
     * positions just before the row's first real token, as in mlx-lm).
     *
     * @since 0.1
     */
    default int[] ropeOffsets() {
        return offsets();
    }
}
