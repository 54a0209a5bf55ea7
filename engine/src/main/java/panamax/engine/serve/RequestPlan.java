package panamax.engine.serve;

import java.util.LinkedHashMap;
import java.util.Map;
import panamax.api.plan.Batching;

/**
 * How one request runs, decided at admission, with the reasons.
 *
 * @param batching       continuous (shares the decode with other rows) or serial
 * @param batchingReason why
 * @param cachedTokens   prompt tokens taken from the prefix cache instead of prefilled
 * @param prefixReason   why those and not more (no cached prefix, reused N tokens, a wrapped row, reuse off)
 * @param speculative    whether the row takes drafts (speculative decoding)
 * @param speculationReason why, or why not
 */
public record RequestPlan(Batching batching, String batchingReason, int cachedTokens, String prefixReason, boolean speculative,
                          String speculationReason) {
    /** A plan without speculative decoding (the server runs none). */
    public RequestPlan(Batching batching, String batchingReason, int cachedTokens, String prefixReason) {
        this(batching, batchingReason, cachedTokens, prefixReason, false, "the server runs no drafter");
    }

    /** JSON-ready form. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batching", batching.name().toLowerCase(java.util.Locale.ROOT));
        m.put("batching_reason", batchingReason);
        m.put("cached_tokens", cachedTokens);
        m.put("prefix_reason", prefixReason);
        m.put("speculative", speculative);
        m.put("speculation_reason", speculationReason);
        return m;
    }
}
