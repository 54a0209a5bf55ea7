package panamax.api.draft;

import panamax.api.model.KvState;

/**
 * The per-layer KV caches of a batch of rows with the row operations a drafter needs, applied to
 * every layer (layers that share a donor's cache are touched once). Not thread-safe.
 */
public interface RowCaches extends KvState, AutoCloseable {
    /** Rows of the batch. */
    int rows();

    /** {@link panamax.api.kv.KvLayout#preparePrefill} on every layer. */
    void preparePrefill(int[] lengths, int[] leftPadding, int[] rightPadding);

    /** {@link panamax.api.kv.KvLayout#finalizePrefill} on every layer. */
    void finalizePrefill();

    /** Keeps only the given rows, in that order. */
    void filterRows(int[] keep);

    /** Appends the rows of {@code other} after these; {@code other} stays open, owned by its caller. */
    void mergeIn(RowCaches other);

    /** {@link panamax.api.kv.KvLayout#beginRound} on every layer. */
    void beginRound();

    /** {@link panamax.api.kv.KvLayout#rollback} on every layer. */
    void rollback(int[] keep);

    @Override
    void close();
}
