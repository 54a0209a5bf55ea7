package panamax.api.kv;

/**
 * Prefilling prompts of different lengths as one cohort: each row is right-padded to the longest
 * prompt while the cohort's tokens are appended, then the right padding becomes left padding, so
 * every row ends at the last column and decodes in step with the others.
 *
 * {@snippet :
 * layout.preparePrefill(lengths, leftPadding, rightPadding);
 * hidden = graph.forwardHidden(ids, kvState);   // appends every column of the cohort
 * layout.finalizePrefill();
 * }
 *
 * @since 0.4
 */
public interface PaddedPrefill {
    /**
     * Prepares a prefill cohort: row r holds {@code lengths[r]} real tokens between
     * {@code leftPadding[r]} and {@code rightPadding[r]} padding columns.
     */
    void preparePrefill(int[] lengths, int[] leftPadding, int[] rightPadding);

    /** Rolls right padding into left padding after a prefill, so every row ends at the last column. */
    void finalizePrefill();
}
