package panamax.kv.layouts;

/**
 * One step of a generated operation sequence. Fields are small integers interpreted modulo the
 * current batch, so every sequence is valid and QuickTheories can shrink both the list and each value.
 */
sealed interface LayoutOp {
    /** Appends {@code length} tokens to every row in one step. */
    record Append(int length) implements LayoutOp {
    }

    /**
     * Prefills a new cohort of {@code rows} right-padded rows in chunks of {@code chunk} columns
     * (stopping after the first chunk when {@code endEarly}), finalizes it and merges it into the batch.
     */
    record Prefill(int rows, int seed, int chunk, boolean endEarly) implements LayoutOp {
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
