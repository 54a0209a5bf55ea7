package panamax.api.kv;

import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Tensor;

/**
 * One attention layer's KV cache for a batch of rows, following mlx-lm's cache contract. It owns
 * per-row positions (offset and left padding), the codec planes, and the attention mask. Tensor
 * arguments are borrowed; returned tensors are owned by the caller. Not thread-safe.
 *
 * <p>The contract, by what a caller is doing:
 * <ul>
 *   <li>every step — {@link #append}, {@link #attend}, {@link #mask}, and the positions of
 *       {@link RowPositions};</li>
 *   <li>undoing tokens — {@link #trim} while {@link #isTrimmable()};</li>
 *   <li>budgeting memory — {@link #bytesPerToken()}, {@link #projectedBytes};</li>
 *   <li>batching — {@link RowMembership} (filter, merge, extract, align) and {@link PaddedPrefill}
 *       (a right-padded prefill cohort turned into left padding);</li>
 *   <li>speculative decoding — {@link SpeculativeRounds} (begin, commit, rollback per row);</li>
 *   <li>KV sharing between layers — {@link DonorCapture}.</li>
 * </ul>
 * Optional parts ({@link #alignRows}, {@link #capture}) are declared in {@link LayoutCapabilities}
 * and throw {@link UnsupportedOperationException} by default.
 */
public interface KvLayout extends RowPositions, RowMembership, PaddedPrefill, SpeculativeRounds, DonorCapture,
        AutoCloseable {
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

    /** Bytes stored per token across all rows' heads (keys and values). */
    long bytesPerToken();

    /** Bytes the layout would hold for {@code tokens} tokens per row, including growth slack. */
    long projectedBytes(long tokens);

    /** Releases all planes and the codec. */
    @Override
    void close();
}
