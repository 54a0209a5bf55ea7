package panamax.kv.layouts;

import java.util.List;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;

/**
 * The {@code rotating} layout (params {@code window}, {@code keep}): a ring of {@code window}
 * tokens per row whose first {@code keep} are never evicted, as mlx-lm's RotatingKVCache.
 * Trimmable until a row wraps.
 */
public final class RotatingLayoutProvider implements KvLayoutProvider {
    private static final LayoutCapabilities CAPABILITIES = LayoutCapabilities.builder(
            "sliding-window ring buffer with keep sink tokens; multi-token steps see time order")
            .params(List.of(LayoutParams.WINDOW, LayoutParams.KEEP))
            .batchable(true).trimmable(true).bounded(true).hostsRotatedValues(true).alignsRows(true).capturable(true)
            .build();

    @Override
    public String id() {
        return "rotating";
    }

    @Override
    public LayoutCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public long storedTokens(PluginParams params, long contextTokens) {
        return Math.min(contextTokens, params.getInt(LayoutParams.WINDOW.name()));
    }

    @Override
    public KvLayout create(PluginParams params, LayoutContext context) {
        return LayoutParams.create(context, LayoutParams.ring(id(), params), 0);
    }
}
