package panamax.layout.tck;

import java.util.Map;
import java.util.TreeMap;

/**
 * One parameter set of the layout under test and the reference rule it must follow: which earlier
 * positions a query sees, and when a row moves from the identity codec into the layout's codec.
 *
 * @param params    the layout's parameters, as a user gives them
 * @param window    0 when every token stays visible; otherwise a query at q sees p when
 *                  {@code p < keep} or {@code q − p < window − keep} (mlx-lm's rotating cache)
 * @param keep      sink tokens that never leave the window
 * @param convertAt 0 when rows are stored in the layout's codec from the start; otherwise rows
 *                  start in the context's identity codec and move to the codec once their offset
 *                  reaches it (only for layouts that declare {@code convertsCodec})
 */
public record LayoutCase(Map<String, String> params, int window, int keep, int convertAt) {
    public LayoutCase {
        params = new TreeMap<>(params);
        if (window < 0 || keep < 0 || convertAt < 0 || (window > 0 && keep >= window)) {
            throw new IllegalArgumentException("layout case " + params + ": window " + window + ", keep " + keep
                    + ", convertAt " + convertAt + " (all >= 0, keep < window)");
        }
    }

    /** A case whose rows keep every token. */
    public static LayoutCase keepingAll(Map<String, String> params) {
        return new LayoutCase(params, 0, 0, 0);
    }

    /** A case whose queries see the last {@code window − keep} tokens and the first {@code keep}. */
    public static LayoutCase window(Map<String, String> params, int window, int keep) {
        return new LayoutCase(params, window, keep, 0);
    }

    /** This case with rows that start in identity and convert to the codec at offset {@code start}. */
    public LayoutCase convertingAt(int start) {
        return new LayoutCase(params, window, keep, start);
    }

    /** The reference rule: may a query at position q see the token at p? */
    public boolean visible(int p, int q) {
        if (p < 0 || q < 0 || p > q) return false;
        return window == 0 || p < keep || q - p < window - keep;
    }

    @Override
    public String toString() {
        return params + (window > 0 ? " (window " + window + ", keep " + keep + ")" : "")
                + (convertAt > 0 ? " (codec from offset " + convertAt + ")" : "");
    }
}
