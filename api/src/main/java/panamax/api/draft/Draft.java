package panamax.api.draft;

/**
 * Tokens proposed for one row, and how they were chosen.
 *
 * @param tokens        the proposed ids, in order
 * @param probabilities null when the tokens were chosen deterministically (a point mass on each);
 *                      else {@code probabilities[i]} is the whole distribution {@code tokens[i]} was
 *                      drawn from ({@code [vocab]}, summing to 1), which rejection sampling needs
 */
public record Draft(int[] tokens, float[][] probabilities) {
    /** No proposal. */
    public static final Draft NONE = new Draft(new int[0], null);

    public Draft {
        if (probabilities != null && probabilities.length != tokens.length) {
            throw new IllegalArgumentException("draft: " + tokens.length + " tokens but " + probabilities.length + " distributions");
        }
    }

    /** A deterministic draft. */
    public static Draft of(int... tokens) {
        return new Draft(tokens, null);
    }

    public int length() {
        return tokens.length;
    }

    /** The same draft cut to at most {@code n} tokens. */
    public Draft truncate(int n) {
        if (n >= tokens.length) return this;
        return new Draft(java.util.Arrays.copyOf(tokens, n), probabilities == null ? null : java.util.Arrays.copyOf(probabilities, n));
    }
}
