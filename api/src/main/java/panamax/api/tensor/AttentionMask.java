package panamax.api.tensor;

/**
 * Which keys each query may attend to in {@link Ops#scaledDotProductAttention}.
 * Queries are the last {@code Tq} positions of the {@code Tk} keys unless the mask says otherwise.
 */
public sealed interface AttentionMask {
    /** Every query sees every key. */
    record None() implements AttentionMask {
    }

    /**
     * Query {@code i} (of Tq) sees key {@code j} iff {@code j <= Tk - Tq + i}, and, when
     * {@code window > 0}, also {@code j > Tk - Tq + i - window}. No mask array is built.
     */
    record Causal(int window) implements AttentionMask {
        public Causal {
            if (window < 0) throw new IllegalArgumentException("window must be >= 0, found " + window);
        }
    }

    /**
     * An explicit mask, borrowed: BOOL (true = attend) or floating (added to the scores, -inf to
     * block), shape broadcastable to {@code [B, Hq, Tq, Tk]}.
     */
    record Explicit(Tensor mask) implements AttentionMask {
    }

    AttentionMask NONE = new None();
    AttentionMask CAUSAL = new Causal(0);
}
