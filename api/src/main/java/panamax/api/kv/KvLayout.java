package panamax.api.kv;

import java.util.List;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Tensor;

/**
 * One attention layer's KV cache for a batch of rows, following mlx-lm's cache contract. It owns
 * per-row positions (offset and left padding), the codec planes, and the attention mask. Tensor
 * arguments are borrowed; returned tensors are owned by the caller. Not thread-safe.
 */
public interface KvLayout extends AutoCloseable {
    /** Number of rows in the batch. */
    int rows();

    /** Per row, the position the next appended token will take (its RoPE position). */
    int[] offsets();

    /** Per row, the padding columns before its first real token. */
    int[] leftPadding();

    /**
     * Appends {@code keys, values [rows, kvHeads, T, headDim]} at each row's end, encoding them
     * through the codec.
     */
    void append(Tensor keys, Tensor values);

    /**
     * Attention of {@code queries [rows, Hq, T, headDim]} (the last T appended tokens) over the
     * cache, with the layout's causal / padding / window mask. Returns {@code [rows, Hq, T, headDim]}.
     */
    Tensor attend(Tensor queries, double scale);

    /** The mask {@link #attend} uses for a query of {@code queryLength} tokens; explicit tensors are owned by the caller. */
    AttentionMask mask(int queryLength);

    /** Removes up to {@code n} trailing tokens from every row; returns how many were removed. */
    int trim(int n);

    /** Whether {@link #trim} can still remove tokens (a rotating layout stops once it wraps). */
    boolean isTrimmable();

    /**
     * Prepares a prefill cohort: row r holds {@code lengths[r]} real tokens between
     * {@code leftPadding[r]} and {@code rightPadding[r]} padding columns.
     */
    void preparePrefill(int[] lengths, int[] leftPadding, int[] rightPadding);

    /** Rolls right padding into left padding after a prefill, so every row ends at the last column. */
    void finalizePrefill();

    /** Keeps only the given rows, in that order, dropping padding that all kept rows share. */
    void filterRows(int[] keep);

    /** A new layout with this layout's rows followed by the others', left-padded to a common width. */
    KvLayout merge(List<KvLayout> others);

    /** A new single-row layout holding row {@code r} without padding. */
    KvLayout extractRow(int r);

    /** Begins a speculative round: appends after this may be rolled back per row. */
    void beginRound();

    /** Accepts everything appended in the round. */
    void commitRound();

    /** Keeps {@code keep[r]} of the tokens row r appended in the round and drops the rest. */
    void rollback(int[] keep);

    /**
     * How many tokens row {@code row} may append in one multi-token step inside a speculative round
     * and still be attended exactly as if they had been appended one at a time;
     * {@link Integer#MAX_VALUE} when any number may. A delayed layout answers how many tokens are
     * left before the row changes precision (a single-token step converts it at once; a round
     * converts only when it ends).
     *
     * @since 0.2
     */
    default int exactRoundTokens(int row) {
        return Integer.MAX_VALUE;
    }

    /** Bytes stored per token across all rows' heads (keys and values). */
    long bytesPerToken();

    /** Bytes the layout would hold for {@code tokens} tokens per row, including growth slack. */
    long projectedBytes(long tokens);

    /**
     * Per row, the RoPE position of the first token of the next {@link #append}: {@link #offsets()}
     * minus the left padding still to be appended in a prepared prefill (padding tokens take the
     * positions just before the row's first real token, as in mlx-lm).
     *
     * @since 0.1
     */
    default int[] ropeOffsets() {
        return offsets();
    }

    /**
     * Re-lays every row in time order so that row r's first real token sits at column
     * {@code leftPadding[r]}; rows may end at different columns afterwards.
     *
     * @throws IllegalArgumentException when the array length is not {@link #rows()} or a value is negative
     * @throws UnsupportedOperationException when the layout cannot move rows (it does not declare
     *         {@link LayoutCapabilities#alignsRows()})
     * @since 0.1
     */
    default void alignRows(int[] leftPadding) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot align rows");
    }

    /**
     * A view of this layer's KV for a later layer that shares it (donor capture), without copying.
     *
     * @throws UnsupportedOperationException when the layout cannot expose its storage (it does not
     *         declare {@link LayoutCapabilities#capturable()})
     * @since 0.1
     */
    default KvCapture capture() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be captured by another layer");
    }

    /** Releases all planes and the codec. */
    @Override
    void close();
}
