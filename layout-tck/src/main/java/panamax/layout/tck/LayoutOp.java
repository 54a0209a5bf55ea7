package panamax.layout.tck;

/**
 * One step of a generated operation sequence. Fields are small integers interpreted modulo the
 * current batch, so every sequence is valid and QuickTheories can shrink both the list and each value.
 */
public sealed interface LayoutOp {
    /** Appends {@code length} tokens to every row in one step. */
    record Append(int length) implements LayoutOp {
    }

    /**
     * Prefills a new cohort of {@code rows} right-padded rows in chunks of {@code chunk} columns,
     * finalizes it and merges it into the batch. {@code ending}: {@link #COMPLETE}, {@link #END_EARLY}
     * (finalized after the first chunk) or {@link #LONGEST_LEAVES} (the longest row is filtered out
     * after the first chunk and the others finish their own columns).
     */
    record Prefill(int rows, int seed, int chunk, int ending) implements LayoutOp {
        public static final int COMPLETE = 0;
        public static final int END_EARLY = 1;
        public static final int LONGEST_LEAVES = 2;
    }

    /** Keeps a non-empty subset of the rows in a shuffled order. */
    record Filter(int seed) implements LayoutOp {
    }

    /** Extracts a row; with {@code continueWithIt} the batch becomes that single row. */
    record Extract(int row, boolean continueWithIt) implements LayoutOp {
    }

    /** Trims up to {@code n} tokens. */
    record Trim(int n) implements LayoutOp {
    }

    /** A speculative round of {@code length} tokens (one step or single-token steps), committed or rolled back per row. */
    record Round(int length, boolean singleSteps, int seed, boolean commit) implements LayoutOp {
    }

    /** Re-lays the rows with a random left padding each. */
    record Align(int seed) implements LayoutOp {
    }
}
