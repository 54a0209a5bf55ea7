package panamax.api.model;

/**
 * How many parameters a model has and how many one token reads: equal for a dense model; a
 * mixture of experts reads only the experts each token is routed to, so its memory is set by the
 * total and its decode speed by the active part.
 *
 * @param total             every parameter (all experts), 0 when the plugin does not count them
 * @param activePerToken    the parameters one token's forward pass multiplies by
 * @param activeWeightBytes the stored bytes of those parameters (a decode step's weight traffic)
 * @since 0.4
 */
public record ParameterCount(long total, long activePerToken, long activeWeightBytes) {
    public ParameterCount {
        if (total < 0 || activePerToken < 0 || activeWeightBytes < 0) {
            throw new IllegalArgumentException("parameter counts: expected non-negative values, found " + total + ", " + activePerToken
                    + ", " + activeWeightBytes + " bytes");
        }
        if (activePerToken > total) {
            throw new IllegalArgumentException("active parameters: expected at most the total " + total + ", found " + activePerToken);
        }
    }

    /** Uncounted parameters of a model that reads all of its {@code weightBytes} each token. */
    public static ParameterCount uncounted(long weightBytes) {
        return new ParameterCount(0, 0, weightBytes);
    }

    /** A dense model of {@code parameters}, every one read each token. */
    public static ParameterCount dense(long parameters, long weightBytes) {
        return new ParameterCount(parameters, parameters, weightBytes);
    }

    /** Whether the plugin counted the parameters. */
    public boolean counted() {
        return total > 0;
    }

    /** Whether a token reads only part of the parameters (a mixture of experts). */
    public boolean sparse() {
        return activePerToken < total;
    }
}
