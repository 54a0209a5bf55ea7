package panamax.kv.layouts;

import panamax.api.tensor.AttentionMask;

/**
 * Which tokens a row keeps and which a query may see. {@code window = 0} keeps everything (the
 * {@code full} layout). Otherwise the row keeps its first {@code keep} tokens forever (attention
 * sinks) plus a sliding window: a query at position q sees a token at p ≤ q when
 * {@code q − p < window − keep} or {@code p < keep}. With {@code keep = 0} this is exactly a
 * sliding-window layer's rule; with {@code keep > 0} a single-token step sees the same
 * {@code window} tokens mlx-lm's RotatingKVCache holds.
 *
 * @param window tokens visible to one query (0: unbounded)
 * @param keep   leading tokens never evicted, less than {@code window} when bounded
 */
record Retention(int window, int keep) {
    static final Retention ALL = new Retention(0, 0);

    Retention {
        if (window < 0) throw new IllegalArgumentException("window must be >= 0, found " + window);
        if (keep < 0) throw new IllegalArgumentException("keep must be >= 0, found " + keep);
        if (window > 0 && keep >= window) {
            throw new IllegalArgumentException("keep must be less than window " + window + ", found " + keep);
        }
        if (window == 0 && keep != 0) throw new IllegalArgumentException("keep needs a window, found keep " + keep);
    }

    boolean bounded() {
        return window > 0;
    }

    /** Whether a query at position {@code q} may attend to the token at position {@code p}. */
    boolean visible(int p, int q) {
        if (p < 0 || q < 0 || p > q) return false;
        return window == 0 || p < keep || q - p < window - keep;
    }

    /**
     * How many of its most recent non-sink tokens a row keeps when it is compacted: {@code window −
     * keep}, so the query of the row's last token still sees its whole window, and the first query
     * of a following multi-token step sees all it needs too. Unbounded for {@code full}.
     */
    int recentKept() {
        return bounded() ? window - keep : Integer.MAX_VALUE;
    }

    /**
     * The mask without an array, when the rows are aligned and unpadded with every column holding
     * its own position ({@code columns} of them), or null when an explicit mask is needed.
     */
    AttentionMask causalForm(int columns) {
        if (!bounded()) return AttentionMask.CAUSAL;
        if (keep == 0) return new AttentionMask.Causal(window);
        // sinks are always visible, so only a window that never cuts anything reduces to causal
        return columns <= window - keep ? AttentionMask.CAUSAL : null;
    }
}
