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
 */
public record RequestPlan(Batching batching, String batchingReason, int cachedTokens, String prefixReason) {
    /** JSON-ready form. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batching", batching.name().toLowerCase(java.util.Locale.ROOT));
        m.put("batching_reason", batchingReason);
        m.put("cached_tokens", cachedTokens);
        m.put("prefix_reason", prefixReason);
        return m;
    }
}
