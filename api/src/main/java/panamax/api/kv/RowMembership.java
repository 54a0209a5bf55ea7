package panamax.api.kv;

import java.util.List;

/**
 * Which rows a {@link KvLayout} holds and where they sit: what a continuous-batching scheduler does
 * when rows finish, join or leave for a prefix cache. A layout that declares
 * {@link LayoutCapabilities#batchable()} implements filter, merge and extract; one that declares
 * {@link LayoutCapabilities#alignsRows()} implements {@link #alignRows}.
 *
 * @since 0.4
 */
public interface RowMembership {
    /** Keeps only the given rows, in that order, dropping padding that all kept rows share. */
    void filterRows(int[] keep);

    /** A new layout with this layout's rows followed by the others', left-padded to a common width. */
    KvLayout merge(List<KvLayout> others);

    /** A new single-row layout holding row {@code r} without padding. */
    KvLayout extractRow(int r);

    /**
     * Re-lays every row in time order so that row r's first real token sits at column
     * {@code leftPadding[r]}; rows may end at different columns afterwards.
     *
     * @throws IllegalArgumentException when the array length is not the number of rows or a value is negative
     * @throws UnsupportedOperationException when the layout cannot move rows (it does not declare
     *         {@link LayoutCapabilities#alignsRows()})
     * @since 0.1
     */
    default void alignRows(int[] leftPadding) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot align rows");
    }
}
