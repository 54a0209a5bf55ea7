package panamax.api.draft;

/**
 * One row to draft for.
 *
 * @param key         stable for the row's lifetime and unique among rows alive at once
 * @param tokens      the row's prompt and generated ids; the first {@code length} are valid, the
 *                    last of them is the newest token, not yet run through the target model
 * @param length      valid ids in {@code tokens} (at least one)
 * @param temperature the row's sampling temperature; 0 (greedy) asks for deterministic drafts
 * @param seed        the row's seed, for drafters that sample
 */
public record DraftRow(long key, int[] tokens, int length, double temperature, long seed) {
    public DraftRow {
        if (length < 1 || length > tokens.length) {
            throw new IllegalArgumentException("draft row " + key + ": length " + length + " outside [1, " + tokens.length + "]");
        }
    }
}
