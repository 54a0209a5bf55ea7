package panamax.api.draft;

import java.util.List;

/**
 * Proposes up to {@code k} next tokens for each row of a batch. A drafter may keep state per row
 * (a draft model's KV cache) keyed by {@link DraftRow#key()}; rows missing from a call are gone
 * and their state may be dropped. Owned by its creator; used by one thread.
 */
public interface Drafter extends AutoCloseable {
    /**
     * Drafts for every row, in order: at most {@code k} tokens each (an empty draft is allowed).
     * The tokens must be valid ids of the row's vocabulary.
     */
    List<Draft> draft(List<DraftRow> rows, int k);

    /** Releases what the drafter holds (its KV caches); the draft model itself stays with its owner. */
    @Override
    void close();
}
