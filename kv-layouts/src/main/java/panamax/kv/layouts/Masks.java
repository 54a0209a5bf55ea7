package panamax.kv.layouts;

import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

/**
 * Builds the attention mask of a layout from its position record and retention rule: causal,
 * left padding, window and sinks all follow from "query at q sees the token at p" per column.
 */
final class Masks {
    private Masks() {
    }

    /**
     * The mask for queries that are the last {@code queryLength} appended tokens of each row:
     * {@link AttentionMask.Causal} without an array when every row is aligned and unpadded and the
     * rule allows it, else an explicit BOOL {@code [rows, 1, queryLength, columns]} owned by the caller.
     */
    static AttentionMask of(Backend backend, Positions positions, Retention retention, int queryLength) {
        if (queryLength <= 0) throw new IllegalArgumentException("query length must be positive, found " + queryLength);
        int columns = positions.columns();
        if (positions.alignedAndUnpadded()) {
            AttentionMask causal = retention.causalForm(columns);
            if (causal != null) return causal;
        }
        int rows = positions.rows();
        int[] data = new int[rows * queryLength * columns];
        for (int r = 0; r < rows; r++) {
            int[] pos = positions.rowPositions(r);
            for (int i = 0; i < queryLength; i++) {
                int q = positions.queryPosition(r, queryLength, i);
                int base = (r * queryLength + i) * columns;
                for (int c = 0; c < columns; c++) data[base + c] = retention.visible(pos[c], q) ? 1 : 0;
            }
        }
        return new AttentionMask.Explicit(backend.fromInts(data, Shape.of(rows, 1, queryLength, columns), DType.BOOL));
    }

    /** Closes the tensor of an explicit mask. */
    static void release(AttentionMask mask) {
        if (mask instanceof AttentionMask.Explicit(var tensor)) tensor.close();
    }
}
